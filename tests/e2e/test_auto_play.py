"""Auto-play: Step after Step until a key pauses it or the context is full."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from on_screen import expect_step_done, expect_url_ids, generated, no_animation, range_bar
from playwright.sync_api import Page, expect
from stepping import START, api_step, state_url

AT_LEAST_2 = re.compile(r"^(?:[2-9]|\d{2,})$")  # auto-play moves on while expect polls: match any step >= 2


@no_animation
def test_auto_play_steps_on_until_a_key_pauses_it(page: Page, expected_ids, requests_seen) -> None:
    page.clock.install()  # time runs as usual, and run_for() can jump past any timer left running
    page.goto(START)
    page.get_by_label("Auto-play speed").select_option(label="fast")
    play = page.locator("#play")
    expect(play).to_have_text("Play")
    expect(play).to_have_attribute("aria-pressed", "false")

    page.get_by_role("button", name="Play").click()

    expect(play).to_have_text("Pause")
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(range_bar(page)).to_have_attribute("data-step", AT_LEAST_2)  # three steps or more, no key pressed
    expect_url_ids(page, expected_ids, more=True)

    page.keyboard.press("x")  # any key

    expect(play).to_have_text("Play")
    expect(play).to_have_attribute("aria-pressed", "false")
    n_requested = [urlsplit(url).path for url in requests_seen].count("/step")
    expect_step_done(page, n_requested - 1)  # a step already under way may land; no more start
    page.clock.run_for(10_000)  # any auto-play timer still set would fire now
    page.keyboard.press("ArrowRight")  # a step of our own, after any stray one
    expect_step_done(page, n_requested)
    assert [urlsplit(url).path for url in requests_seen].count("/step") == n_requested + 1
    expect(play).to_have_text("Play")

    page.keyboard.press("p")  # P plays again, and pauses
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(play).to_have_text("Pause")
    expect(generated(page)).not_to_have_count(n_requested + 1)  # it steps on again
    page.keyboard.press("p")
    expect(play).to_have_attribute("aria-pressed", "false")
    expect(play).to_have_text("Play")


@no_animation
def test_auto_play_stops_at_the_end_of_the_context(page: Page, app_url: str) -> None:
    n_prompt = len(api_step(app_url, [])["prompt_tokens"])
    start = api_step(app_url, [])["chosen"]["id"]
    ids = [start] * (1024 - 2 - n_prompt)  # one step left before prompt + generated reaches 1,023 tokens
    page.clock.install()
    page.goto(state_url(ids))
    page.get_by_label("Auto-play speed").select_option(label="fast")
    play = page.locator("#play")

    play.click()

    expect_step_done(page, len(ids))
    page.clock.run_for(5_000)
    expect(play).to_have_text("Play")
    expect(play).to_have_attribute("aria-pressed", "false")
    expect(page).to_have_url(re.compile(rf"[?&]ids=(?:\d+(?:%2C|,)){{{len(ids)}}}\d+(?:&|$)"))  # one more id
