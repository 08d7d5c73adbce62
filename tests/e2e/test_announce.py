"""The live region announces each pick."""

from __future__ import annotations

import re

from on_screen import click_step, no_animation, picked_token, range_bar
from playwright.sync_api import Page, expect
from stepping import START


@no_animation
def test_each_pick_is_announced(page: Page) -> None:
    page.goto(START)
    announce = page.locator("#announce")
    expect(announce).to_have_attribute("aria-live", "polite")
    expect(announce).to_be_empty()

    click_step(page, 0)

    expect(announce).to_have_text(re.compile(r"^r = 0\.\d{3}, picked '.+', \d+\.\d %$"))
    r = float(range_bar(page).get_attribute("data-r") or "nan")
    expect(announce).to_have_text(re.compile(rf"^r = {r:.3f}, picked '{re.escape(picked_token(page))}', "))
    click_step(page, 1)
    r1 = float(range_bar(page).get_attribute("data-r") or "nan")
    expect(announce).to_have_text(re.compile(rf"^r = {r1:.3f}, picked '{re.escape(picked_token(page))}', "))
