"""The browser's history after a lesson: Step, Back and choose add an entry; moving a setting replaces it."""

from __future__ import annotations

from on_screen import click_step, expect_step_done, expect_url_ids, expect_url_param, no_animation, url_ids
from playwright.sync_api import Page, expect
from stepping import START


def entries(page: Page) -> int:
    return page.evaluate("history.length")


@no_animation
def test_settings_replace_the_entry_and_steps_add_one(page: Page) -> None:
    page.goto(START)
    first = entries(page)
    click_step(page, 0)
    click_step(page, 1)
    ids = url_ids(page)
    assert entries(page) == first + 2, "each Step adds an entry"

    slider = page.get_by_label("Temperature", exact=True)
    for value in ("0.5", "0.8", "1.2", "1.5"):
        slider.fill(value)
        expect_url_param(page, "temperature", value)
    page.get_by_label("Top-k", exact=True).fill("12")
    page.get_by_label("Top-k", exact=True).press("Tab")
    expect_url_param(page, "top_k", "12")
    assert entries(page) == first + 2, "moving a setting only replaces the current entry"
    expect_url_ids(page, ids)

    page.get_by_role("button", name="Back", exact=True).click()
    expect_url_ids(page, ids[:1])
    assert entries(page) == first + 3, "Back (the app's) adds an entry"

    page.go_back()  # the browser's Back: the two-token screen, with the latest settings
    expect_url_ids(page, ids)
    expect_url_param(page, "top_k", "12")
    expect_step_done(page, 1)
    page.go_back()
    expect_url_ids(page, ids[:1])
    expect(page.locator("#temperature")).to_have_value("1")  # this entry was left at T = 1
