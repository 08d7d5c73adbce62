"""On a phone the panels stack, and nothing is cut off at the screen's edge."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest
from on_screen import PANELS, assert_fits_width, expect_step_done
from playwright.sync_api import Page, expect
from stepping import state_url


def dismiss_guide(page: Page) -> None:
    """Close the first-visit guide, if this build shows one, so that screenshots show the panels."""
    dismiss = page.get_by_role("button", name="Don't show again")
    if dismiss.count() and dismiss.is_visible():
        dismiss.click()
        expect(dismiss).to_be_hidden()



@pytest.mark.browser_context_args(
    viewport={"width": 390, "height": 844}, reduced_motion="reduce", is_mobile=True, has_touch=True
)
def test_phone_screen_stacks_the_panels(page: Page, expected_ids, save_screenshot: Callable) -> None:
    page.goto(state_url(expected_ids, src="s,f,0.999", at="1"))
    dismiss_guide(page)
    expect_step_done(page, 1)
    qr = page.get_by_role("img", name="QR code")
    qr.scroll_into_view_if_needed()  # fetched when it comes into view (loading="lazy")
    expect(qr).not_to_have_js_property("naturalWidth", 0)
    # Everything fits, the logits table and its "choose" buttons too: on a phone each of its rows takes two lines.
    assert_fits_width(page, 390)
    expect(page.locator("html")).to_have_js_property("scrollWidth", 390)  # the page does not scroll sideways
    boxes = [page.locator(s).bounding_box() for s in PANELS]
    assert all(a["y"] + a["height"] <= b["y"] + 0.5 for a, b in pairwise(boxes)), "panels do not stack"
    save_screenshot(page, "phone-classroom")
