"""What a person sees and does on the stepper page, in a real Chromium against the production server.

The page sends a strict Content-Security-Policy (no 'unsafe-eval'), so these tests never evaluate
JavaScript in the page: they find things by role, label and text, and wait with `expect`.
The pick animation's end state is `#range-bar[data-state="done"]`; no test sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect
from stepping import PROMPT, SEED, START, state_url, tab_to

PANELS = ("#tokens", "#logits", "#chart", "#ranges", "#text")
ANIMATION_MS = 1200  # static/js/pick.js: DURATION_MS
PAGE_WEIGHT_LIMIT = 100_000  # bytes, the "under 100 KB"

# For tests about something other than the animation: the same end state, without 1.2 s a step.
no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")


# --- helpers -------------------------------------------------------------------------------------


def url_ids(page: Page) -> list[int]:
    """The generated ids in the address bar."""
    text = parse_qs(urlsplit(page.url).query).get("ids", [""])[0]
    return [int(part) for part in text.split(",") if part]


def url_param(page: Page, name: str) -> str | None:
    return parse_qs(urlsplit(page.url).query).get(name, [None])[0]


def expect_url_ids(page: Page, ids: list[int]) -> None:
    """Wait until the address bar holds exactly these ids (htmx pushes the URL after the swap)."""
    if ids:
        joined = "(?:%2C|,)".join(map(str, ids))
        expect(page).to_have_url(re.compile(rf"[?&]ids={joined}(?:&|$)"))
    else:
        expect(page).to_have_url(re.compile(r"^(?!.*[?&]ids=\d)"))
    assert url_ids(page) == ids


def range_bar(page: Page) -> Locator:
    return page.locator("#range-bar")


def generated(page: Page) -> Locator:
    """The generated tokens in the text panel."""
    return page.locator("#text .text-so-far .gen")


def chips(page: Page) -> Locator:
    return page.get_by_role("list", name="Tokens").get_by_role("listitem")


def click_step(page: Page, step_index: int) -> None:
    """Press Step and wait until the pick animation of that generation step has ended."""
    page.get_by_role("button", name="Step", exact=True).click()
    expect_step_done(page, step_index)


def expect_step_done(page: Page, step_index: int) -> None:
    expect(range_bar(page)).to_have_attribute("data-step", str(step_index))
    expect(range_bar(page)).to_have_attribute("data-state", "done")


def snapshot(page: Page) -> dict[str, str]:
    """What the panels show, as a person reads them."""
    return {selector: page.locator(selector).inner_text() for selector in PANELS}


def expect_same_screen(page: Page, before: dict[str, str]) -> None:
    """Wait until every panel reads as before, then check the text exactly."""
    for selector, text in before.items():
        expect(page.locator(selector)).to_have_text(text, use_inner_text=True)
    assert snapshot(page) == before


def newest_token(page: Page) -> str:
    return page.locator("#text .gen-new").inner_text().strip()


def picked_token(page: Page) -> str:
    """The token in the pick sentence, without its quotes."""
    return page.locator("#pick-sentence strong.tok").inner_text().strip().strip("'")


def marker_position_in(html: str) -> dict[str, str]:
    """The marker's placing attributes (x, transform) as the server rendered them."""
    match = re.search(r'<\w+ class="marker"([^>]*)>', html)
    assert match, "the step's fragment has no marker"
    attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(1)))
    placing = {name: value for name, value in attributes.items() if name in ("x", "transform")}
    assert placing, f"the marker has no position: {match.group(0)}"
    return placing


# --- the tests -----------------------------------------------------------------------------------


def test_typing_a_prompt_shows_its_tokens_with_unk_for_an_unknown_word(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids))  # generated tokens on screen, which typing must clear
    expect(generated(page)).to_have_count(3)
    prompt = page.get_by_label("Prompt", exact=True)

    prompt.select_text()
    prompt.press_sequentially("The girl saw a computer")

    expect(chips(page).locator(".chip-text")).to_have_text(["The", "girl", "saw", "a", "<unk>"])
    unk = page.locator("#tokens .chip-unk")
    expect(unk).to_have_count(1)
    expect(unk.locator(".chip-text")).to_have_text("<unk>")
    expect(unk.locator(".chip-source")).to_have_text("computer")
    expect(page.locator("#tokens")).to_contain_text("1 word not in the vocabulary became <unk>")
    expect(page).to_have_url(re.compile(r"prompt=The\+girl\+saw\+a\+computer"))
    expect_url_ids(page, [])  # a new prompt clears the generated tokens
    expect(generated(page)).to_have_count(0)
    expect(page.locator("#text .prompt-text")).to_have_text("The girl saw a computer")


def test_three_steps_update_table_chart_range_bar_and_text(page: Page, expected_ids) -> None:
    page.goto(START)
    bar = range_bar(page)
    expect(bar).to_have_attribute("data-state", "done")
    expect(bar).to_have_attribute("data-step", "")
    expect(page.locator("#logits .badge-picked")).to_have_count(0)
    expect(page.locator("#pick-sentence")).to_contain_text("Press Step")

    for i in range(3):
        table_before = page.locator("#logits").inner_text()
        chart_before = page.locator("#chart svg").text_content()
        page.get_by_role("button", name="Step", exact=True).click()

        expect(bar).to_have_attribute("data-step", str(i))
        if i == 0:  # the marker travels for 1.2 s: long enough to see it moving
            expect(bar).to_have_attribute("data-state", "moving")
        expect(bar).to_have_attribute("data-state", "done")
        expect_url_ids(page, expected_ids[: i + 1])  # the same picks as the JSON twin

        # table: the picked row is marked, the rest of the vocabulary summed in the last row
        logits = page.locator("#logits")
        expect(logits.locator(".badge-picked")).to_have_count(1)
        expect(logits.locator("tr.picked")).to_have_count(1)
        expect(logits.locator("tfoot")).to_contain_text(re.compile(r"^\s*[\d,]+ other tokens", re.M))
        assert logits.inner_text() != table_before

        # chart: one bar per top row at T and at T = 1, the picked token's bar marked (a pick below the
        # top rows gets a row of its own under them in the table, but no bar)
        rows = logits.locator("tbody tr:not(.beyond)").count()
        picked_in_top = logits.locator("tbody tr.picked:not(.beyond)").count()
        expect(page.locator("#chart svg rect.bar")).to_have_count(rows)
        expect(page.locator("#chart svg rect.bar-t1")).to_have_count(rows)
        expect(page.locator("#chart svg g.picked")).to_have_count(picked_in_top)
        if i > 0:  # before the first step the chart already showed step 0's distribution
            assert page.locator("#chart svg").text_content() != chart_before

        # range bar and the sentence under it
        expect(bar.locator(".kept-ranges g.landing")).to_have_count(1)
        sentence = page.locator("#pick-sentence")
        expect(sentence).to_be_visible()
        expect(sentence).to_contain_text(re.compile(r"r = 0\.\d{3} falls in \[\d\.\d{3}, \d\.\d{3}\): '.+'"))
        r = float(bar.get_attribute("data-r") or "nan")
        assert f"r = {r:.3f} falls in" in sentence.inner_text()

        # text: prompt + the generated tokens, the newest highlighted and equal to the pick
        expect(generated(page)).to_have_count(i + 1)
        expect(page.locator("#text .gen-new")).to_have_count(1)
        expect(generated(page).last).to_have_class(re.compile(r"\bgen-new\b"))
        expect(page.locator("#text .prompt-text")).to_have_text(PROMPT)
        assert picked_token(page) == newest_token(page)
        expect(page.locator("#tokens .chip-generated")).to_have_count(i + 1)

    assert len(url_ids(page)) == 3


def test_temperature_slider_redraws_the_shown_step_without_a_new_token(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:2]))
    heading = page.locator("#chart-heading")
    values = page.locator("#chart svg .bar-value")
    expect(heading).to_contain_text("Softmax at T = 1")
    values_before = values.all_text_contents()
    table_before = page.locator("#logits").inner_text()
    text_before = page.locator("#text").inner_text()

    page.get_by_label("Temperature", exact=True).fill("1.5")

    expect(heading).to_contain_text("Softmax at T = 1.5")
    expect(page.locator("#temperature-value")).to_have_text("T = 1.50 (flatter)")
    expect(values.first).not_to_have_text(values_before[0])
    assert values.all_text_contents() != values_before
    expect(page).to_have_url(re.compile(r"[?&]temperature=1\.5(?:&|$)"))
    expect(page.locator("#logits thead")).to_contain_text("z / 1.5")
    assert page.locator("#logits").inner_text() != table_before
    # no new token: same ids, same text, the same step on show
    assert url_ids(page) == expected_ids[:2]
    expect(generated(page)).to_have_count(2)
    expect(page.locator("#tokens .chip-generated")).to_have_count(2)
    assert page.locator("#text").inner_text() == text_before
    expect(range_bar(page)).to_have_attribute("data-step", "1")

    page.get_by_label("Temperature", exact=True).fill("0")

    expect(heading).to_contain_text("Softmax at T = 0 (greedy)")
    expect(page.locator("#temperature-value")).to_have_text("T = 0.00 (greedy)")
    expect(values.first).to_have_text("100.0 %")
    assert url_ids(page) == expected_ids[:2]


@no_animation
def test_back_removes_the_last_token(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids))
    text_before = page.locator("#text .text-so-far").inner_text()
    expect(generated(page)).to_have_count(3)

    page.get_by_role("button", name="Back", exact=True).click()

    expect_url_ids(page, expected_ids[:2])
    expect(generated(page)).to_have_count(2)
    expect(page.locator("#tokens .chip-generated")).to_have_count(2)
    expect_step_done(page, 1)  # the step that picked the (new) last token is on show
    text_after = page.locator("#text .text-so-far").inner_text()
    assert len(text_after) < len(text_before)
    assert text_before.startswith(text_after)
    assert picked_token(page) == newest_token(page)

    click_step(page, 2)  # stepping again picks the same token: r depends on (seed, step) only
    expect_url_ids(page, expected_ids)
    assert page.locator("#text .text-so-far").inner_text() == text_before


def test_reset_clears_the_generated_tokens_and_keeps_the_prompt(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids))
    n_prompt_chips = page.locator("#tokens .chip:not(.chip-generated)").count()

    page.get_by_role("button", name="Reset", exact=True).click()

    expect_url_ids(page, [])
    assert url_param(page, "prompt") == PROMPT
    assert url_param(page, "seed") == SEED
    expect(generated(page)).to_have_count(0)
    expect(chips(page)).to_have_count(n_prompt_chips)
    expect(page.get_by_label("Prompt", exact=True)).to_have_value(PROMPT)
    expect(page.locator("#text .text-so-far")).to_have_text(PROMPT)
    expect(page.locator("#logits .badge-picked")).to_have_count(0)
    expect(page.locator("#pick-sentence")).to_contain_text("Press Step")
    expect(range_bar(page)).to_have_attribute("data-step", "")


@no_animation
def test_reload_and_the_browsers_back_button_reproduce_the_screen(page: Page, expected_ids) -> None:
    page.goto(START)
    click_step(page, 0)
    expect_url_ids(page, expected_ids[:1])
    url_a, screen_a = page.url, snapshot(page)
    click_step(page, 1)
    expect_url_ids(page, expected_ids[:2])
    url_b, screen_b = page.url, snapshot(page)

    page.reload()
    assert page.url == url_b
    expect(range_bar(page)).to_have_attribute("data-state", "done")
    expect_same_screen(page, screen_b)

    page.go_back()  # to an entry pushed by the document before the reload
    expect(page).to_have_url(url_a)
    expect_same_screen(page, screen_a)

    click_step(page, 1)  # the same step again, then Back within one document (htmx's history)
    expect(page).to_have_url(url_b)
    expect_same_screen(page, screen_b)
    page.go_back()
    expect(page).to_have_url(url_a)
    expect_same_screen(page, screen_a)
    expect(page.get_by_label("Prompt", exact=True)).to_have_value(PROMPT)


@no_animation
def test_a_copied_link_reproduces_the_screen(page: Page, context: BrowserContext, expected_ids) -> None:
    page.goto(START)
    click_step(page, 0)
    page.get_by_label("Temperature", exact=True).fill("0.7")
    expect(page.locator("#temperature-value")).to_have_text("T = 0.70 (sharper)")
    click_step(page, 1)
    expect(page).to_have_url(re.compile(r"[?&]temperature=0\.7(?:&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]ids=\d+(?:%2C|,)\d+(?:&|$)"))
    link, screen = page.url, snapshot(page)

    other = context.new_page()
    other.goto(link)

    expect(range_bar(other)).to_have_attribute("data-state", "done")
    expect_same_screen(other, screen)
    expect(other.get_by_label("Temperature", exact=True)).to_have_value("0.7")
    expect(other.get_by_label("Prompt", exact=True)).to_have_value(PROMPT)
    other.close()


def test_without_javascript_step_and_back_still_work(new_context, expected_ids) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(START)
    step = page.get_by_role("button", name="Step", exact=True)

    step.click()
    expect_url_ids(page, expected_ids[:1])
    step.click()
    expect_url_ids(page, expected_ids[:2])

    expect(generated(page)).to_have_count(2)
    expect(range_bar(page)).to_have_attribute("data-state", "done")  # no script, the end state at once
    expect(range_bar(page)).to_have_attribute("data-step", "1")
    expect(page.locator("#logits .badge-picked")).to_have_count(1)
    assert picked_token(page) == newest_token(page)

    page.get_by_role("button", name="Back", exact=True).click()
    expect_url_ids(page, expected_ids[:1])
    expect(generated(page)).to_have_count(1)
    expect(range_bar(page)).to_have_attribute("data-step", "0")


def test_reduced_motion_shows_the_pick_without_animating(new_context) -> None:
    context = new_context(reduced_motion="reduce")
    page = context.new_page()
    page.goto(START)
    bar = range_bar(page)

    with page.expect_response(re.compile(r"/step\?")) as step_response:
        page.get_by_role("button", name="Step", exact=True).click()
    final_position = marker_position_in(step_response.value.text())

    expect(bar).to_have_attribute("data-step", "0")  # the fragment is in
    # The animation takes 1.2 s; done well before that means the marker did not travel.
    expect(bar).to_have_attribute("data-state", "done", timeout=ANIMATION_MS // 2)
    marker = bar.locator(".marker")
    for name, value in final_position.items():
        expect(marker).to_have_attribute(name, value)
    expect(page.locator("#pick-sentence")).to_be_visible()


@no_animation
def test_a_whole_session_makes_no_request_beyond_127_0_0_1(page: Page, requests_seen) -> None:
    page.goto(START)
    click_step(page, 0)
    click_step(page, 1)
    page.get_by_label("Temperature", exact=True).fill("1.3")
    expect(page.locator("#chart-heading")).to_contain_text("T = 1.3")
    page.get_by_role("button", name="Back", exact=True).click()
    expect(generated(page)).to_have_count(1)
    page.get_by_role("button", name="Reset", exact=True).click()
    expect(generated(page)).to_have_count(0)
    page.get_by_label("Prompt", exact=True).fill("She looked at the")
    expect(page.locator("#text .prompt-text")).to_have_text("She looked at the")
    page.wait_for_load_state("networkidle")

    paths = {urlsplit(url).path for url in requests_seen}
    assert {"/", "/step", "/back", "/reset", "/static/vendor/htmx.min.js", "/static/js/pick.js"} <= paths
    assert requests_seen.external() == []


def test_a_bad_value_shows_a_message_and_leaves_the_screen_as_it_was(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:2]))
    url, screen = page.url, snapshot(page)
    region = page.locator("#error")  # empty and hidden until there is something to say
    expect(region).to_be_empty()
    expect(region).to_have_attribute("role", "alert")
    alert = page.get_by_role("alert")
    top_k = page.get_by_label("Top-k", exact=True)

    top_k.fill("0")
    top_k.dispatch_event("change")

    expect(alert).to_contain_text("top-k must be a whole number >= 1, not 0")
    expect(alert).to_contain_text("Not changed:")
    expect(alert).to_be_visible()
    assert page.url == url
    assert snapshot(page) == screen

    top_k.fill("5")  # a good value clears the message and cuts all but 5 tokens
    top_k.dispatch_event("change")

    expect(page).to_have_url(re.compile(r"[?&]top_k=5(?:&|$)"))
    expect(region).to_be_empty()
    expect(page.locator("#logits .badge-cut")).not_to_have_count(0)
    expect(page.locator("#logits tbody tr:not(.cut)")).to_have_count(5)
    expect(page.locator("#logits .truncation-note")).to_contain_text("Top-k = 5 cut 4,995 tokens")
    assert url_ids(page) == expected_ids[:2]


@no_animation
def test_the_page_is_keyboard_operable(page: Page) -> None:
    page.goto(START)
    step = page.get_by_role("button", name="Step", exact=True)

    tab_to(page, step, presses=20)  # past the header (the title, five languages) and the first panel's words
    expect(step).to_be_focused()

    page.keyboard.press("Enter")
    expect_step_done(page, 0)
    expect(step).to_be_focused()  # the swap keeps the focus on Step
    page.keyboard.press("Enter")
    expect_step_done(page, 1)
    expect(generated(page)).to_have_count(2)

    slider = page.get_by_label("Temperature", exact=True)
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#temperature-value")).to_have_text("T = 1.05 (flatter)")
    expect(page.locator("#chart-heading")).to_contain_text("Softmax at T = 1.05")
    expect(generated(page)).to_have_count(2)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
def test_screenshots_after_three_steps(page: Page, save_screenshot: Callable) -> None:
    page.goto(START)
    for i in range(3):
        click_step(page, i)
    expect(generated(page)).to_have_count(3)

    desktop = save_screenshot(page, "desktop-3-steps")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.get_by_role("button", name="Step", exact=True)).to_be_visible()
    phone = save_screenshot(page, "phone-3-steps")

    assert desktop.stat().st_size > 10_000
    assert phone.stat().st_size > 10_000


def test_the_first_page_load_is_under_100_kb(new_context) -> None:
    context = new_context()  # a fresh context: nothing cached
    page = context.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response))

    page.goto("/")
    page.wait_for_load_state("networkidle")

    # What crossed the wire: bodies as sent (gzip where the server compressed them) plus headers.
    sent = {r.url: r.request.sizes()["responseBodySize"] for r in responses if not 300 <= r.status < 400}
    unpacked = sum(len(r.body()) for r in responses if not 300 <= r.status < 400)
    headers = sum(r.request.sizes()["responseHeadersSize"] for r in responses)
    total = sum(sent.values()) + headers
    listing = ", ".join(f"{urlsplit(url).path} {size:,}" for url, size in sent.items())
    print(
        f"\nfirst page load: {total:,} bytes transferred in {len(sent)} responses, headers included"
        f" ({listing}); {unpacked:,} bytes once unpacked"
    )
    assert {"/", "/static/vendor/htmx.min.js", "/static/css/app.css"} <= {urlsplit(u).path for u in sent}
    assert any(r.headers.get("content-encoding") == "gzip" for r in responses), "nothing was compressed"
    assert 0 < total < PAGE_WEIGHT_LIMIT
