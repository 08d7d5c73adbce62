"""The teacher's controls on the projector: the live tally, hidden until the teacher shows it, then in front where
the hidden logits table was, large enough for the back row and counting as votes come in; and the open vote
started again, which every phone sees as a vote not yet cast."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect
from room_helpers import join, new_context
from test_room_projector import LEGIBILITY, PROJECTOR, PUBLISHED, expect_presenting, start_presenting


def test_the_live_tally_and_a_vote_started_again(browser: Browser, base_url: str, save_screenshot) -> None:
    teacher, code = start_presenting(browser, base_url)
    anna, ben = (join(new_context(browser, base_url, viewport={"width": 390, "height": 844}), base_url, code, name)
                 for name in ("Anna", "Ben"))
    teacher.locator("#join-hide").click()
    teacher.locator('.room-settings button[name="votes_on"]').click()
    with teacher.expect_response(PUBLISHED):
        teacher.locator("#controls [data-control=step]").click()
    anna.locator("#ballot button.ballot-token").nth(0).click()
    expect(teacher.locator(".room-votes")).to_have_text("1")
    expect(teacher.locator("#room-tally")).to_be_hidden()  # hidden by default: early votes do not sway the rest

    teacher.get_by_role("button", name="Live votes: hidden").click()
    expect_presenting(teacher)
    tally = teacher.locator("#room-tally")
    expect(tally).to_be_visible()
    expect(teacher.locator(".panel-logits")).to_be_hidden()  # the tally takes the hidden table's place
    expect(tally.locator(".tally-column")).to_have_count(1)
    ben.locator("#ballot button.ballot-token").nth(1).click()
    expect(tally.locator(".tally-column")).to_have_count(2)  # counted as it comes in, without a reload
    expect(tally.locator('.tally-column[data-votes="1"]')).to_have_count(2)
    seen = teacher.evaluate(LEGIBILITY, "#room-tally")
    assert not seen["small"] and not seen["cut"] and not seen["outside"], seen
    assert seen["page"] <= PROJECTOR["height"], seen
    assert "Anna" not in tally.inner_text() and "Ben" not in tally.inner_text()
    save_screenshot(teacher, "room-live-tally")

    teacher.get_by_role("button", name="Start this vote again").click()
    expect_presenting(teacher)
    expect(teacher.locator(".room-votes")).to_have_text("0")
    expect(tally).to_be_hidden()  # nothing to show yet
    for phone in (anna, ben):
        expect(phone.locator(".my-vote")).to_contain_text("You have not voted on this step yet")
        expect(phone.locator('#ballot button.ballot-token[aria-pressed="true"]')).to_have_count(0)
    anna.locator("#ballot button.ballot-token").nth(2).click()
    expect(teacher.locator(".room-votes")).to_have_text("1")
    expect(tally.locator(".tally-column")).to_have_count(1)
    expect(teacher.locator("#room-live")).to_contain_text(re.compile(r"1 of 2 voted"))
