"""Predict, then reveal: the numbers and the pick stay hidden until Reveal."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from on_screen import (
    expect_step_done,
    expect_url_ids,
    expect_url_param,
    generated,
    no_animation,
    picked_token,
    step_button,
)
from playwright.sync_api import Page, expect
from stepping import state_url


@no_animation
def test_predict_hides_the_numbers_until_reveal(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1], view="teacher"))  # a classroom control: open in the teacher's view
    page.get_by_label("Predict, then reveal").check()
    expect_url_param(page, "predict", "1")
    expect(page.locator("#logits table")).to_have_count(0)  # the shown step is hidden too

    step_button(page).click()

    expect(generated(page)).to_have_count(2)
    expect(generated(page).last).to_have_text("?")
    expect(page.locator("#tokens .chip-generated").last).to_have_text("?")
    expect(page.locator("#logits table")).to_have_count(0)
    expect(page.locator("#range-bar")).to_have_count(0)
    expect(page.locator("#chart")).to_contain_text("Hidden until Reveal.")
    expect(page.locator("#announce")).to_be_empty()
    reveal = page.get_by_role("button", name="Reveal")
    expect(reveal).to_be_visible()

    reveal.click()

    expect_step_done(page, 1)
    expect(page.locator("#logits table")).to_be_visible()
    expect(page.locator("#pick-sentence")).to_contain_text("falls in")
    expect(generated(page).last).not_to_have_text("?")
    assert generated(page).last.inner_text().strip() == picked_token(page)
    expect(page.locator("#announce")).to_contain_text("picked")
    expect(reveal).to_have_count(0)
    expect_url_ids(page, expected_ids[:2])

    step_button(page).click()  # the next step is hidden again
    expect(generated(page)).to_have_count(3)
    expect(generated(page).last).to_have_text("?")
    expect(page.get_by_role("button", name="Reveal")).to_be_visible()


@no_animation
def test_while_the_pick_is_hidden_the_address_and_the_link_do_not_name_it(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1], view="teacher"))  # a classroom control: open in the teacher's view
    page.get_by_label("Predict, then reveal").check()
    expect_url_param(page, "predict", "1")
    step_button(page).click()
    expect(generated(page).last).to_have_text("?")
    expect(page).to_have_url(re.compile(rf"/step\?.*ids={expected_ids[0]}(&|$)"))  # htmx pushes it after the swap

    for address in (page.url, page.get_by_label("Link to this screen").input_value()):
        parts = urlsplit(address)
        query = parse_qs(parts.query)
        assert parts.path == "/step" and query["ids"] == [str(expected_ids[0])], address
        assert str(expected_ids[1]) not in query["ids"][0].split(",")
    page.reload()  # the address takes the same pick again, still hidden
    expect(generated(page)).to_have_count(2)
    expect(generated(page).last).to_have_text("?")

    page.get_by_role("button", name="Reveal").click()
    expect_step_done(page, 1)
    expect_url_ids(page, expected_ids[:2])
    assert generated(page).last.inner_text() == picked_token(page)
