"""A refused setting: the page says why, keeps the screen, and the field goes back to the value in use."""

from __future__ import annotations

from on_screen import click_step, expect_url_param, no_animation
from playwright.sync_api import Page, expect
from stepping import START


@no_animation
def test_a_refused_value_leaves_the_field_at_the_value_in_use(page: Page) -> None:
    page.goto(START)
    click_step(page, 0)
    top_k = page.get_by_label("Top-k", exact=True)
    top_k.fill("5")
    top_k.press("Tab")
    expect_url_param(page, "top_k", "5")

    top_k.fill("1.5")
    top_k.press("Tab")
    expect(page.get_by_role("alert")).to_contain_text("top-k must be a whole number, not '1.5'")
    expect(top_k).to_have_value("5")  # what the table still uses
    expect_url_param(page, "top_k", "5")

    top_k.fill("-1")
    top_k.press("Tab")
    expect(page.get_by_role("alert")).to_contain_text("top-k must be a whole number >= 1")
    expect(top_k).to_have_value("5")
