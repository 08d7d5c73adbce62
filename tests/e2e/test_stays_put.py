"""What a pupil presses stays where it was on the screen: an answer that grows a panel above it (the forward
pass opening, a new chip wrapping onto another line) does not carry the page away from it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

SCREEN = "/?prompt=It+is+a+truth+universally+acknowledged&ids=21&seed=7&guide=0"
LAPTOP = {"viewport": {"width": 1366, "height": 768}, "reduced_motion": "reduce"}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "reduced_motion": "reduce"}


def top(page: Page, selector: str) -> float:
    return page.locator(selector).bounding_box()["y"]


@pytest.mark.parametrize("device", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_opening_the_forward_pass_keeps_it_where_it_was(browser, base_url, device):
    page = browser.new_context(base_url=base_url, **device).new_page()
    page.goto(SCREEN)
    link = page.locator("#inside a", has_text="Open the forward pass")
    link.scroll_into_view_if_needed()
    before = top(page, "#inside")
    link.click()
    expect(page.locator("#inside")).to_have_class("panel panel-inside is-open")
    page.wait_for_timeout(300)  # htmx settles the swap, then the page is put back
    assert abs(top(page, "#inside") - before) <= 2
    page.context.close()


def test_a_step_that_wraps_the_chips_leaves_the_page_where_it_was_on_a_phone(browser, base_url):
    page = browser.new_context(base_url=base_url, **PHONE).new_page()
    page.goto("/?prompt=It+is+a+truth+universally+acknowledged+that+a+single+man&seed=7&guide=0")
    page.locator("#controls").scroll_into_view_if_needed()
    before = top(page, "#controls")
    lines = page.locator("#tokens .chips").bounding_box()["height"]
    step = page.locator("button[data-control=step]:visible")  # the step bar's, at the bottom of the screen
    for n in range(1, 7):
        step.click()
        expect(page.locator(".text-so-far .gen")).to_have_count(n)
        page.wait_for_timeout(100)
        assert abs(top(page, "#controls") - before) <= 2, n
    assert page.locator("#tokens .chips").bounding_box()["height"] > lines  # the chips did wrap
    page.context.close()
