"""The classroom features as a teacher and a class use them, in Chromium against the production server.

Presenter mode, the keyboard, auto-play, history and branching, the teacher's r, predict then
reveal, temperatures side by side, share, export, the live region and visible focus. Locators go
by role, label and text; `expect` does the waiting (the page's CSP forbids eval, so no test
evaluates JavaScript in the page). Every test but the animation's own runs with reduced motion,
so that a step ends at once in `#range-bar[data-state="done"]`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from urllib.parse import parse_qs, quote, quote_plus, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect
from stepping import PROMPT, SEED, START, api_step, state_url, tab_to

PANELS = ("#prompt-panel", "#controls-panel", "#logits", "#chart", "#ranges", "#text", "#share")
CSV_COLUMNS = ("rank", "token", "id", "logit", "scaled", "prob", "prob_t1", "kept", "prob_kept", "lo", "hi")

no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")


# --- helpers -------------------------------------------------------------------------------------


def url_query(page: Page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def url_ids(page: Page) -> list[int]:
    return [int(part) for part in url_query(page).get("ids", "").split(",") if part]


def expect_url_param(page: Page, name: str, value: str) -> None:
    """Wait until the address bar has name=value, each character as typed or percent-encoded."""
    forms = ("|".join(sorted({re.escape(c), re.escape(quote(c, safe="")), re.escape(quote_plus(c))})) for c in value)
    pattern = "".join(f"(?:{alternatives})" for alternatives in forms)
    expect(page).to_have_url(re.compile(rf"[?&]{re.escape(name)}={pattern}(?:&|$)"))


def ids_pattern(ids: list[int], more: bool = False) -> re.Pattern:
    """The address bar's ids=... for these ids; with more=True, any ids may follow them."""
    joined = "(?:%2C|,)".join(map(str, ids))
    tail = r"(?:(?:%2C|,)\d+)*" if more else ""
    return re.compile(rf"[?&]ids={joined}{tail}(?:&|$)")


def expect_url_ids(page: Page, ids: list[int], more: bool = False) -> None:
    """Wait until the address bar holds these ids (htmx pushes the URL as it swaps the panels in)."""
    expect(page).to_have_url(ids_pattern(ids, more))


def expect_no_url_param(page: Page, name: str) -> None:
    expect(page).not_to_have_url(re.compile(rf"[?&]{name}="))


def range_bar(page: Page) -> Locator:
    return page.locator("#range-bar")


def generated(page: Page) -> Locator:
    """The generated tokens in the text panel (links to their step)."""
    return page.locator("#text .text-so-far a.gen")


def step_button(page: Page) -> Locator:
    return page.get_by_role("button", name="Step", exact=True)


def expect_step_done(page: Page, step_index: int) -> None:
    expect(range_bar(page)).to_have_attribute("data-step", str(step_index))
    expect(range_bar(page)).to_have_attribute("data-state", "done")


def click_step(page: Page, step_index: int) -> None:
    step_button(page).click()
    expect_step_done(page, step_index)


def picked_token(page: Page) -> str:
    return page.locator("#pick-sentence strong.tok").inner_text().strip().strip("'")


def not_picked_row_token(page: Page) -> str:
    """The token of the best-ranked table row that r did not pick: one to choose instead."""
    row = page.locator("#logits tbody tr:not(.picked):not(.cut)").first
    return row.locator(".tok").inner_text().strip()


def dismiss_guide(page: Page) -> None:
    """Close the first-visit guide, if this build shows one, so that screenshots show the panels."""
    dismiss = page.get_by_role("button", name="Don't show again")
    if dismiss.count() and dismiss.is_visible():
        dismiss.click()
        expect(dismiss).to_be_hidden()


INNER = "table:visible, svg.range-svg:visible, svg.bar-chart:visible, button:visible, .table-scroll:visible"
# On a phone the logits table scrolls sideways inside its .table-scroll box, "choose" buttons and all.
PHONE_INNER = ("table.compare-table:visible, svg.range-svg:visible, svg.bar-chart:visible, button:not(.choose):visible,"
               " .table-scroll:visible")


def assert_fits_width(page: Page, width: int, inner: str = INNER) -> None:
    """Every panel, and every table, chart and button in it, lies within 0..width: nothing cut off."""
    for selector in PANELS:
        panel = page.locator(selector)
        expect(panel).to_be_visible()
        box = panel.bounding_box()
        assert box is not None, selector
        assert box["x"] >= -0.5 and box["x"] + box["width"] <= width + 0.5, f"{selector} spans {box}"
        for element in panel.locator(inner).all():
            b = element.bounding_box()
            if b and b["width"] > 0:
                assert b["x"] >= box["x"] - 0.5 and b["x"] + b["width"] <= box["x"] + box["width"] + 0.5, (
                    f"{selector}: an element spans {b}, beyond the panel's {box}")


def table_rows(page: Page) -> list[tuple[str, str, str]]:
    """(rank, token, id) of each row of the logits table on screen."""
    rows = []
    for tr in page.locator("#logits tbody tr").all():
        cells = tr.locator("td")
        rows.append((cells.nth(0).inner_text().strip(), tr.locator(".tok").inner_text().strip(),
                     cells.nth(2).text_content().strip()))
    return rows


# --- presenter mode ------------------------------------------------------------------------------


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_fits_a_1280x720_projector(page: Page, expected_ids, save_screenshot: Callable) -> None:
    page.goto(state_url(expected_ids))
    main = page.locator("main")
    expect(main).not_to_have_class(re.compile(r"\bpresent\b"))

    page.get_by_role("link", name="Presenter mode", exact=True).click()

    expect_url_param(page, "present", "1")
    expect(main).to_have_class(re.compile(r"\bpresent\b"))
    assert url_ids(page) == expected_ids
    expect(generated(page)).to_have_count(3)
    # secondary detail folded away, the loop itself on show
    expect(page.locator("#compare")).to_be_hidden()
    expect(page.locator("#pick-sentence .r-source")).to_be_hidden()
    expect(page.locator("#pick-sentence")).to_be_visible()
    expect(step_button(page)).to_be_visible()
    assert_fits_width(page, 1280)
    expect(page.locator("html")).to_have_js_property("scrollWidth", 1280)  # no sideways scrolling
    save_screenshot(page, "presenter-1280x720")

    click_step(page, 3)  # stepping keeps presenter mode
    expect_url_param(page, "present", "1")
    assert_fits_width(page, 1280)

    page.get_by_role("link", name="Leave presenter mode").click()
    expect_no_url_param(page, "present")
    expect(main).not_to_have_class(re.compile(r"\bpresent\b"))
    expect(page.get_by_role("link", name="Presenter mode", exact=True)).to_be_visible()

    page.goto(state_url(expected_ids[:1], present="1", top_k="5", temperature="0.7"))  # by the URL alone
    expect(main).to_have_class(re.compile(r"\bpresent\b"))
    expect(page.get_by_role("link", name="Leave presenter mode")).to_be_visible()
    assert_fits_width(page, 1280)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_keeps_a_longer_text_on_one_1280x720_screen(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids * 5, present="1"))
    expect(generated(page)).to_have_count(15)
    expect(page.locator("html")).to_have_js_property("scrollHeight", 720, timeout=1000)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_shows_no_guide_outline(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids, present="1"))
    expect(page.locator("#guide")).to_be_hidden()
    expect(page.locator(".guide-target")).to_have_count(0, timeout=1000)


@pytest.mark.browser_context_args(viewport={"width": 390, "height": 844}, reduced_motion="reduce", is_mobile=True,
                                  has_touch=True)
def test_phone_screen_stacks_the_panels(page: Page, expected_ids, save_screenshot: Callable) -> None:
    page.goto(state_url(expected_ids, src="s,f,0.999", at="1"))
    dismiss_guide(page)
    expect_step_done(page, 1)
    expect(page.get_by_role("img", name="QR code")).not_to_have_js_property("naturalWidth", 0)
    # The logits table scrolls sideways in its own box on a phone; everything else fits.
    assert_fits_width(page, 390, inner=PHONE_INNER)
    expect(page.locator("html")).to_have_js_property("scrollWidth", 390)  # the page does not scroll sideways
    boxes = [page.locator(s).bounding_box() for s in PANELS]
    assert all(a["y"] + a["height"] <= b["y"] + 0.5 for a, b in pairwise(boxes)), "panels do not stack"
    save_screenshot(page, "phone-classroom")


# --- keyboard ------------------------------------------------------------------------------------


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

    teachers_r = page.get_by_label("Teacher's r")
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


# --- auto-play -----------------------------------------------------------------------------------


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


# --- history and branching, the teacher's r, export ----------------------------------------------


@no_animation
def test_clicking_a_generated_token_shows_its_step_again(page: Page, expected_ids, app_url: str) -> None:
    page.goto(state_url(expected_ids))
    expect_step_done(page, 2)
    first = generated(page).first
    step0 = api_step(app_url, [])

    first.click()

    expect_url_param(page, "at", "0")
    expect_step_done(page, 0)
    expect(first).to_have_attribute("aria-current", "step")
    expect(first).to_have_class(re.compile(r"\bgen-shown\b"))
    expect(generated(page).nth(2)).not_to_have_attribute("aria-current", "step")
    expect(generated(page)).to_have_count(3)  # looking back drops nothing
    expect(page.locator("#logits tr.picked .tok")).to_have_text(step0["chosen"]["token"])
    assert table_rows(page)[0] == ("1", step0["rows"][0]["token"], str(step0["rows"][0]["id"]))
    assert picked_token(page) == step0["chosen"]["token"]

    generated(page).nth(1).click()
    expect_step_done(page, 1)
    expect(generated(page).nth(1)).to_have_attribute("aria-current", "step")
    expect(first).not_to_have_attribute("aria-current", "step")


@no_animation
def test_choose_instead_forces_a_token_and_generation_goes_on_from_it(page: Page, expected_ids, app_url) -> None:
    page.goto(state_url(expected_ids))
    generated(page).nth(1).click()  # back to step 1
    expect_step_done(page, 1)
    token = not_picked_row_token(page)

    page.get_by_role("button", name=f"Choose '{token}' instead", exact=True).click()

    expect(generated(page)).to_have_count(2)  # step 2 is dropped
    last = generated(page).last
    expect(last).to_have_text(token)
    expect(last).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(last).to_have_attribute("title", re.compile("chosen by hand"))
    expect_url_param(page, "src", "s,f")
    forced_row = page.locator("#logits tbody tr.forced")
    expect(forced_row.locator(".tok")).to_have_text(token)
    expect(forced_row.locator(".badge-forced")).to_have_text("chosen")
    expect(page.locator("#logits tr.picked .badge-picked")).to_have_text("r picked")
    expect(page.locator("#ranges .forced-note")).to_contain_text(f"The teacher chose '{token}' instead of the pick")
    expect(page.locator("#announce")).to_contain_text(f"the teacher chose '{token}' instead")
    forced_id = url_ids(page)[1]
    assert url_ids(page)[0] == expected_ids[0]

    click_step(page, 2)

    expect_url_param(page, "src", "s,f,s")
    next_id = api_step(app_url, [expected_ids[0], forced_id])["chosen"]["id"]
    assert url_ids(page) == [expected_ids[0], forced_id, next_id]
    expect(generated(page).nth(1)).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(generated(page).last).not_to_have_class(re.compile(r"\bgen-forced\b"))

    page.reload()
    expect(generated(page)).to_have_count(3)
    expect(generated(page).nth(1)).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(generated(page).nth(1)).to_have_text(token)


@no_animation
def test_teachers_r_is_used_recorded_and_kept(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1]))
    field = page.get_by_label("Teacher's r")
    expect(field).to_have_value("")

    field.fill("0.999")
    click_step(page, 1)

    sentence = page.locator("#pick-sentence")
    expect(sentence).to_contain_text("The teacher typed r.")
    expect(sentence).to_contain_text("r = 0.999 falls in")
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
    expect(sentence).to_contain_text("The teacher typed r.")
    expect(sentence).to_contain_text("r = 0.999 falls in")
    expect(field).to_have_value("")

    click_step(page, 2)  # the next step draws the seeded r again
    expect_url_param(page, "src", "s,0.999,s")
    expect(sentence).to_contain_text("default_rng([44, 2])")
    expect(sentence).not_to_contain_text("The teacher typed r.")


@no_animation
def test_forced_tokens_and_typed_r_survive_a_reload_and_reach_the_json_export(page: Page) -> None:
    page.goto(START)
    click_step(page, 0)
    token = not_picked_row_token(page)
    page.get_by_role("button", name=f"Choose '{token}' instead", exact=True).click()
    expect_url_param(page, "src", "f")
    page.get_by_label("Teacher's r").fill("0.999")
    click_step(page, 1)
    click_step(page, 2)
    expect_url_param(page, "src", "f,0.999,s")
    ids = url_ids(page)

    page.reload()

    assert url_ids(page) == ids
    expect(generated(page)).to_have_count(3)
    expect(generated(page).nth(0)).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(generated(page).nth(0)).to_have_text(token)
    expect(generated(page).nth(1)).to_have_class(re.compile(r"\bgen-typed\b"))
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download JSON").click()
    download = download_info.value
    assert download.suggested_filename == "trace.json"
    trace = json.loads(Path(download.path()).read_text(encoding="utf-8"))

    assert trace["generated"] == ids
    steps = trace["steps"]
    assert len(steps) == len(ids) == generated(page).count()
    assert [s["forced"] for s in steps] == [True, False, False]
    assert [s["token_in_text"]["id"] for s in steps] == ids
    assert steps[0]["token_in_text"]["token"] == token and steps[0]["pick"]["id"] != ids[0]
    assert (steps[1]["r"], steps[1]["r_source"]) == (0.999, "given")
    assert steps[2]["r_source"] == "seed" and steps[1]["pick"]["id"] == ids[1] and steps[2]["pick"]["id"] == ids[2]
    for i, s in enumerate(steps):
        assert s["step"] == i and s["rows"] and s["seed"] == int(SEED)
        assert s["pick"]["lo"] <= s["r"] < s["pick"]["hi"] or s["pick"]["hi"] == 1.0


@no_animation
def test_download_csv_holds_the_table_on_screen(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids, top_k="8"))
    generated(page).nth(1).click()
    expect_step_done(page, 1)

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download CSV").click()
    download = download_info.value

    assert download.suggested_filename == "logits-step-1.csv"
    lines = list(csv.reader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    assert tuple(lines[0]) == CSV_COLUMNS
    body = lines[1:-1]
    on_screen = table_rows(page)
    assert [(line[0], line[1], line[2]) for line in body] == on_screen[: len(body)]
    assert len(body) >= len(on_screen) - 2  # the page may add the pick's and the text's rows below
    kept = [line[7] for line in body]
    assert kept.count("True") == 8  # top-k = 8
    assert lines[-1][1].endswith("other tokens")


# --- predict then reveal, temperatures side by side ----------------------------------------------


@no_animation
def test_predict_hides_the_numbers_until_reveal(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1]))
    page.get_by_label("Predict, then reveal").check()
    expect_url_param(page, "predict", "1")
    expect(page.locator("#logits table")).to_have_count(0)  # the shown step is hidden too

    step_button(page).click()

    expect(generated(page)).to_have_count(2)
    expect(generated(page).last).to_have_text("?")
    expect(page.locator("#tokens .chip-generated").last).to_have_text("?")
    expect(page.locator("#logits table")).to_have_count(0)
    expect(page.locator("#range-bar")).to_have_count(0)
    expect(page.locator("#chart")).to_contain_text("Hidden until Reveal.")
    expect(page.locator("#announce")).to_be_empty()
    reveal = page.get_by_role("button", name="Reveal")
    expect(reveal).to_be_visible()

    reveal.click()

    expect_step_done(page, 1)
    expect(page.locator("#logits table")).to_be_visible()
    expect(page.locator("#pick-sentence")).to_contain_text("falls in")
    expect(generated(page).last).not_to_have_text("?")
    assert generated(page).last.inner_text().strip() == picked_token(page)
    expect(page.locator("#announce")).to_contain_text("picked")
    expect(reveal).to_have_count(0)
    expect_url_ids(page, expected_ids[:2])

    step_button(page).click()  # the next step is hidden again
    expect(generated(page)).to_have_count(3)
    expect(generated(page).last).to_have_text("?")
    expect(page.get_by_role("button", name="Reveal")).to_be_visible()


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


# --- share, the live region, focus ---------------------------------------------------------------


def same_screen(link: str, url: str) -> bool:
    """Tell whether a share link opens the screen at url: same host, and the same state once defaults are filled."""
    a, b = urlsplit(link), urlsplit(url)
    qa, qb = ({k: v[0] for k, v in parse_qs(x.query).items()} for x in (a, b))
    defaults = {"model": qa.get("model"), "temperature": qa.get("temperature")}
    return a.netloc == b.netloc and a.path == b.path == "/" and qa == {**defaults, **qb}


@pytest.mark.browser_context_args(reduced_motion="reduce", permissions=["clipboard-read", "clipboard-write"])
def test_share_shows_a_qr_code_and_the_link_of_this_screen(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:2]))
    qr = page.get_by_role("img", name="QR code")
    link = page.get_by_label("Link to this screen")

    expect(qr).to_be_visible()
    expect(qr).to_have_js_property("complete", True)
    expect(qr).not_to_have_js_property("naturalWidth", 0)  # the SVG loaded and drew
    assert same_screen(link.input_value(), page.url)

    click_step(page, 2)
    expect(link).to_have_value(re.compile(r"[?&]ids=\d+,\d+,\d+(?:&|$)"))  # follows the screen
    assert same_screen(link.input_value(), page.url)
    expect(qr).to_have_attribute("src", re.compile(r"/qr\.svg\?.*ids=\d+(?:%2C|,)\d+(?:%2C|,)\d+"))
    expect(qr).not_to_have_js_property("naturalWidth", 0)

    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#copy-status")).to_have_text("Link copied.")


@no_animation
def test_each_pick_is_announced(page: Page) -> None:
    page.goto(START)
    announce = page.locator("#announce")
    expect(announce).to_have_attribute("aria-live", "polite")
    expect(announce).to_be_empty()

    click_step(page, 0)

    expect(announce).to_have_text(re.compile(r"^r = 0\.\d{3}, picked '.+', \d+ %$"))
    r = float(range_bar(page).get_attribute("data-r") or "nan")
    expect(announce).to_have_text(re.compile(rf"^r = {r:.3f}, picked '{re.escape(picked_token(page))}', "))
    click_step(page, 1)
    r1 = float(range_bar(page).get_attribute("data-r") or "nan")
    expect(announce).to_have_text(re.compile(rf"^r = {r1:.3f}, picked '{re.escape(picked_token(page))}', "))


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
    choose = page.locator("#logits button.choose").first
    choose.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focus by keyboard, so that :focus-visible applies
    expect(choose).to_be_focused()
    expect(choose).to_have_css("outline-style", "solid")
