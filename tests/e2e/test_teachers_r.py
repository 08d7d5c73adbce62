"""The teacher's r: typed for one step, used for the pick, recorded in the URL and kept with its step."""

from __future__ import annotations

import re

from on_screen import (
    click_step,
    expect_no_url_param,
    expect_step_done,
    expect_url_param,
    generated,
    no_animation,
    picked_token,
    range_bar,
    url_ids,
)
from playwright.sync_api import Page, expect
from stepping import state_url


@no_animation
def test_teachers_r_is_used_recorded_and_kept(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1], view="teacher"))  # the teacher's r: open in the teacher's view
    field = page.get_by_label("Your r")
    expect(field).to_have_value("")

    field.fill("0.999")
    click_step(page, 1)

    sentence = page.locator("#pick-sentence")
    expect(sentence).to_contain_text("This r was typed in, not drawn.")
    expect(sentence).to_contain_text(re.compile(r"r = 0\.9990* falls in"))
    expect(sentence).not_to_contain_text("default_rng")
    expect(range_bar(page)).to_have_attribute("data-r", "0.999")
    expect(field).to_have_value("")  # for one step only
    expect_url_param(page, "src", "s,0.999")
    expect_no_url_param(page, "r")
    expect(generated(page).last).to_have_class(re.compile(r"\bgen-typed\b"))
    expect(page.locator("#announce")).to_contain_text("r = 0.999, picked")
    ids = url_ids(page)
    assert ids[0] == expected_ids[0] and ids[1] != expected_ids[1]  # r = 0.999 picks another token than the seed's
    assert picked_token(page) == generated(page).last.inner_text().strip()

    page.reload()
    expect_step_done(page, 1)
    expect(sentence).to_contain_text("This r was typed in, not drawn.")
    expect(sentence).to_contain_text(re.compile(r"r = 0\.9990* falls in"))
    expect(field).to_have_value("")

    click_step(page, 2)  # the next step draws the seeded r again
    expect_url_param(page, "src", "s,0.999,s")
    expect(sentence).to_contain_text("default_rng([44, 2])")
    expect(sentence).not_to_contain_text("This r was typed in, not drawn.")
