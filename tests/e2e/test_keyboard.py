"""The keyboard shortcuts, their help dialog, and keys typed in a field left to the field."""

from __future__ import annotations

from urllib.parse import urlsplit

from on_screen import (
    expect_step_done,
    expect_url_ids,
    expect_url_param,
    generated,
    no_animation,
    open_more,
    range_bar,
    step_button,
)
from playwright.sync_api import Page, expect
from stepping import PROMPT, START, state_url


@no_animation
def test_keyboard_shortcuts(page: Page, expected_ids) -> None:
    page.goto(START)
    temperature = page.locator("#temperature-value")
    expect(temperature).to_have_text("T = 1.00")

    page.keyboard.press("Space")
    expect_step_done(page, 0)
    page.keyboard.press("ArrowRight")
    expect_step_done(page, 1)
    expect(generated(page)).to_have_count(2)
    expect_url_ids(page, expected_ids[:2])

    page.keyboard.press("ArrowLeft")
    expect(generated(page)).to_have_count(1)
    expect_step_done(page, 0)
    expect_url_ids(page, expected_ids[:1])

    page.keyboard.press("ArrowUp")
    expect(temperature).to_have_text("T = 1.05 (flatter)")
    expect(page.locator("#chart-heading")).to_contain_text("Softmax at T = 1.05")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(temperature).to_have_text("T = 0.95 (sharper)")
    expect_url_param(page, "temperature", "0.95")
    expect(generated(page)).to_have_count(1)  # the temperature redraws, it does not step

    page.keyboard.press("r")
    expect(generated(page)).to_have_count(0)
    expect(range_bar(page)).to_have_attribute("data-step", "")
    expect(page.get_by_label("Prompt", exact=True)).to_have_value(PROMPT)


@no_animation
def test_question_mark_opens_the_key_help_and_escape_closes_it(page: Page) -> None:
    page.goto(START)
    help_dialog = page.get_by_role("dialog", name="Keyboard")
    expect(help_dialog).to_be_hidden()

    page.keyboard.press("?")

    expect(help_dialog).to_be_visible()
    keys = help_dialog.get_by_role("table", name="Keyboard shortcuts")
    for name, action in [("Space or →", "Step"), ("←", "Back"), ("P", "Play or pause"),
                         ("↑ ↓", "Temperature up or down"), ("R", "Reset"), ("?", "This help")]:
        row = keys.get_by_role("row").filter(has=page.get_by_role("rowheader", name=name, exact=True))
        expect(row.get_by_role("cell")).to_have_text(action)
    page.keyboard.press("Space")  # keys go to the dialog while it is open, not to the stepper
    page.keyboard.press("Escape")
    expect(help_dialog).to_be_hidden()
    expect(generated(page)).to_have_count(0)

    page.get_by_role("button", name="Keyboard help (?)").click()
    expect(help_dialog).to_be_visible()
    help_dialog.get_by_role("button", name="Close").click()
    expect(help_dialog).to_be_hidden()


@no_animation
def test_keys_typed_in_a_field_do_not_drive_the_stepper(page: Page, expected_ids, requests_seen) -> None:
    page.goto(state_url(expected_ids[:2]))
    prompt = page.get_by_label("Prompt", exact=True)
    prompt.click()
    for key in ("End", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"):
        page.keyboard.press(key)  # the caret moves; the stepper must not
    prompt.press("End")
    prompt.press_sequentially(" r p?")

    new_prompt = PROMPT + " r p?"
    expect(prompt).to_have_value(new_prompt)  # a shortcut would have called preventDefault: no character
    expect_url_param(page, "prompt", new_prompt)  # typing resets to the new prompt, after a pause
    expect(page.locator("#text .prompt-text")).to_have_text(new_prompt)
    paths = [urlsplit(url).path for url in requests_seen]
    assert "/step" not in paths and "/back" not in paths
    expect(page.get_by_role("dialog", name="Keyboard")).to_be_hidden()
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#temperature-value")).to_have_text("T = 1.00")

    open_more(page)
    teachers_r = page.get_by_label("Your r")
    teachers_r.click()
    n_resets = [urlsplit(url).path for url in requests_seen].count("/reset")
    for key in ("Space", "ArrowRight", "ArrowLeft", "r", "p", "?"):
        teachers_r.press(key)
    step_button(page).click()  # a request after any the keys would have made
    expect_step_done(page, 0)
    paths = [urlsplit(url).path for url in requests_seen]
    assert (paths.count("/step"), paths.count("/back"), paths.count("/reset")) == (1, 0, n_resets)
    expect(page.get_by_role("dialog", name="Keyboard")).to_be_hidden()
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")
