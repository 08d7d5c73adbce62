"""Keyboard focus is visible on every control when tabbing."""

from __future__ import annotations

import re

from on_screen import expect_step_done, no_animation, step_button
from playwright.sync_api import Page, expect
from stepping import START, tab_to


@no_animation
def test_focus_is_visible_when_tabbing(page: Page, artifacts_dir) -> None:
    page.goto(START)
    step = step_button(page)
    tab_to(page, step)
    expect(step).to_be_focused()
    expect(step).to_have_css("outline-style", "solid")
    expect(step).not_to_have_css("outline-width", "0px")
    page.locator("#controls-panel").screenshot(path=str(artifacts_dir / "screenshots" / "focus-step.png"))

    page.keyboard.press("Enter")
    expect_step_done(page, 0)
    expect(step).to_be_focused()
    choose = page.locator("#logits").get_by_role("button", name=re.compile(r"^Choose '")).first
    choose.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focus by keyboard, so that :focus-visible applies
    expect(choose).to_be_focused()
    expect(choose).to_have_css("outline-style", "solid")
