"""The same logits at three temperatures, side by side with the chosen one."""

from __future__ import annotations

import re

from on_screen import no_animation, url_ids
from playwright.sync_api import Page, expect
from stepping import state_url


@no_animation
def test_the_same_logits_at_three_temperatures(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1]))
    compare = page.get_by_role("table", name=re.compile("several temperatures"))
    heads = compare.get_by_role("columnheader")
    expect(heads).to_have_count(4)
    expect(heads.nth(1)).to_have_text("T = 0.5")
    expect(heads.nth(2)).to_contain_text("T = 1")
    expect(heads.nth(3)).to_have_text("T = 1.5")
    current = compare.locator("thead th.current")
    expect(current).to_have_count(1)
    expect(current).to_contain_text("T = 1 (chosen)")
    expect(compare.get_by_role("row")).to_have_count(6)  # a header and the top five tokens
    expect(compare.locator("tbody td.current")).to_have_count(5)

    page.get_by_label("Temperature", exact=True).fill("0.7")

    expect(heads).to_have_count(5)
    expect(current).to_contain_text("T = 0.7 (chosen)")
    expect(heads.nth(1)).to_have_text("T = 0.5")
    expect(heads.nth(4)).to_have_text("T = 1.5")
    assert url_ids(page) == expected_ids[:1]
