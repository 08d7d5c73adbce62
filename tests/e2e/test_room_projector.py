"""The class room on a 1280x720 projector in presenter mode, as the back row reads it.

A room opens on its join screen: the code at least 64 px tall, the QR code a third of the screen's height or
more, the address, and on 127.0.0.1 (where the test server is) the warning with the command that serves the
room's network. The teacher puts it away and brings it back, with JavaScript without a reload, without it by
links. Presenter mode stays on through the start, the settings, Step and Reveal. The revealed round's results
are at 20 px or more, nothing in them cut off or scrolled, all of them on the first screen, in every language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect
from room_helpers import join, new_context
from stepping import state_url

PROJECTOR = {"width": 1280, "height": 720}
ZOOMS = {100: ({"width": 1280, "height": 720}, 1.0), 125: ({"width": 1024, "height": 576}, 1.25),
         150: ({"width": 853, "height": 480}, 1.5)}  # browser zoom on the projector, as test_projector.py has it
PUBLISHED = re.compile(r"/room/[A-Z0-9]{8}/state(?:\?|$)")

# What the back row cannot read: text under 20 px, a box that cuts or scrolls what is in it, text outside the
# results' box, and how far down the page the results and the page itself reach.
LEGIBILITY = """(selector) => {
  const box = document.querySelector(selector), frame = box.getBoundingClientRect();
  const shown = [box, ...box.querySelectorAll("*")].filter((e) => e.getClientRects().length
    && !e.closest(".visually-hidden") && getComputedStyle(e).visibility !== "hidden");
  const texts = shown.filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
  const name = (e) => e.tagName + "." + (e.getAttribute("class") || "")
    + " '" + e.textContent.trim().slice(0, 30) + "'";
  const small = texts.filter((e) => parseFloat(getComputedStyle(e).fontSize) < 20)
    .map((e) => name(e) + " " + getComputedStyle(e).fontSize);
  const cut = shown.filter((e) => !e.closest("svg") && getComputedStyle(e).display !== "inline"
    && (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)).map(name);
  const outside = texts.filter((e) => {
    const r = e.getBoundingClientRect();
    return r.left < frame.left - 0.5 || r.right > frame.right + 0.5
      || r.top < frame.top - 0.5 || r.bottom > frame.bottom + 0.5;
  }).map(name);
  return {texts: texts.length, small, cut, outside, bottom: frame.bottom, page: document.documentElement.scrollHeight};
}"""


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def font_px(page: Page, selector: str) -> float:
    return float(page.locator(selector).evaluate("e => getComputedStyle(e).fontSize")[:-2])


def start_presenting(browser: Browser, url: str, lang: str | None = None, **options) -> tuple[Page, str]:
    """The teacher starts a room from a presenter-mode screen (at 1280x720 unless told); return the page and the
    room's code."""
    context = new_context(browser, url, **{"viewport": PROJECTOR, **options})
    teacher = context.new_page()
    teacher.goto(state_url([], present="1", **({"lang": lang} if lang else {})))
    teacher.locator("form.start-room button").click()
    expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach\?"))
    teacher.wait_for_load_state()  # room.js in place: what a click does depends on it
    return teacher, teacher.url.split("/room/")[1].split("/")[0]


def expect_presenting(teacher: Page) -> None:
    expect(teacher.locator("main")).to_have_class(re.compile(r"\bpresent\b"))
    expect(teacher.locator("#presenter-link")).to_have_attribute("href", re.compile(r"/teach(?:\?(?!.*present=1)|$)"))
    expect(teacher.locator('.room-settings input[name="present"]')).to_have_value("1")
    assert query(teacher).get("present") == ["1"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_join_screen_reads_from_the_back_row(browser: Browser, base_url: str, lang: str, save_screenshot) -> None:
    teacher, code = start_presenting(browser, base_url, lang)
    assert query(teacher).get("present") == ["1"] and query(teacher).get("join") == ["1"]
    expect(teacher.locator("#room-code")).to_have_text(f"{code[:4]}-{code[4:]}")
    assert font_px(teacher, "#room-code") >= 64
    qr = teacher.locator("img.room-qr")
    expect(qr).to_have_attribute("src", re.compile(rf"^/room/{code}/qr.svg(?:\?lang={lang})?$"))
    assert qr.bounding_box()["height"] >= PROJECTOR["height"] / 3
    port = urlsplit(base_url).port
    expect(teacher.locator(".room-address a")).to_have_text(f"{base_url}/join")
    warning = teacher.locator("#join-loopback")
    expect(warning).to_be_visible()
    expect(warning.locator("code")).to_have_text(f"token-by-token --host 0.0.0.0 --port {port}")
    assert font_px(teacher, "#join-loopback") >= 20
    expect(teacher.locator("#controls")).to_be_hidden()  # the lesson waits behind the join screen
    expect(teacher.locator("html")).to_have_js_property("scrollHeight", PROJECTOR["height"])
    for selector in ("#room-code", "img.room-qr", ".room-address", "#join-loopback", "#join-hide"):
        box = teacher.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PROJECTOR["width"]
        assert box["y"] + box["height"] <= PROJECTOR["height"]
    save_screenshot(teacher, f"room-join-screen-{lang}")


@pytest.mark.parametrize("zoom", ZOOMS)
def test_the_join_screen_reflows_at_browser_zoom_without_sideways_scrolling(
    browser: Browser, base_url: str, zoom: int, save_screenshot: Callable
) -> None:
    viewport, scale = ZOOMS[zoom]
    teacher, _ = start_presenting(browser, base_url, "de", viewport=viewport, device_scale_factor=scale)
    save_screenshot(teacher, f"room-join-screen-zoom-{zoom}")
    expect(teacher.locator("html")).to_have_js_property("scrollWidth", viewport["width"])
    wider = teacher.locator("#room-join, #room-join *").evaluate_all(
        "(els, width) => els.filter(e => e.getClientRects().length && e.getBoundingClientRect().right > width + 0.5)"
        ".map(e => e.getAttribute('class'))",
        viewport["width"],
    )
    assert not wider, wider
    assert teacher.locator("img.room-qr").bounding_box()["height"] >= viewport["height"] / 3


def test_the_teacher_puts_the_join_screen_away_and_brings_it_back_without_a_reload(browser: Browser, base_url: str):
    teacher, code = start_presenting(browser, base_url)
    loads = []
    teacher.on("load", lambda _: loads.append(teacher.url))
    panel = teacher.locator("#room-panel")
    teacher.get_by_role("link", name="Start the lesson").click()
    expect(panel).not_to_have_class(re.compile(r"\bjoining\b"))
    expect(teacher.locator("#controls [data-control=step]")).to_be_focused()
    expect(teacher.locator("img.room-qr")).to_be_hidden()
    assert query(teacher) == {"present": ["1"]} and loads == []
    expect(teacher.locator('.room-settings input[name="join"]')).to_have_value("0")
    teacher.get_by_role("link", name="Show how to join").click()
    expect(panel).to_have_class(re.compile(r"\bjoining\b"))
    assert query(teacher) == {"present": ["1"], "join": ["1"]} and loads == []
    expect(teacher.locator("#presenter-link")).to_have_attribute("href", f"/room/{code}/teach?join=1")
    teacher.reload()
    expect(panel).to_have_class(re.compile(r"\bjoining\b"))  # the address keeps it


def test_without_javascript_the_join_screen_goes_and_comes_back_by_links(browser: Browser, base_url: str) -> None:
    teacher, code = start_presenting(browser, base_url, java_script_enabled=False)
    assert query(teacher) == {"present": ["1"], "join": ["1"]}
    teacher.get_by_role("link", name="Start the lesson").click()
    expect(teacher).to_have_url(f"{base_url}/room/{code}/teach?present=1")
    expect(teacher.locator("#room-panel")).not_to_have_class(re.compile(r"\bjoining\b"))
    expect(teacher.locator("#controls [data-control=step]")).to_be_visible()
    teacher.get_by_role("link", name="Show how to join").click()
    expect(teacher).to_have_url(f"{base_url}/room/{code}/teach?present=1&join=1")
    expect(teacher.locator("img.room-qr")).to_be_visible()


def test_presenter_mode_stays_on_through_the_settings_step_and_reveal(browser: Browser, base_url: str) -> None:
    teacher, code = start_presenting(browser, base_url)
    expect_presenting(teacher)
    teacher.get_by_role("link", name="Start the lesson").click()
    for setting in ("Class votes", "Leaderboard"):
        teacher.get_by_role("button", name=f"{setting}: off").click()
        expect(teacher.get_by_role("button", name=f"{setting}: on")).to_be_visible()
        expect_presenting(teacher)
        assert "join" not in query(teacher)  # put away, it stays away
    for control in ("#controls [data-control=step]", "#ranges button[name=reveal]"):
        with teacher.expect_response(PUBLISHED) as published:
            teacher.locator(control).click()
        assert published.value.ok
        expect(teacher.get_by_role("link", name="Leave presenter mode")).to_be_visible()
        expect(teacher.get_by_role("link", name="Show how to join")).to_be_visible()
        expect_presenting(teacher)
    expect(teacher.locator("#room-results")).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "de", "es", "fr", "zh"])
def test_the_revealed_results_are_20_px_whole_and_on_the_first_screen(
    browser: Browser, base_url: str, lang: str, save_screenshot: Callable
) -> None:
    teacher, code = start_presenting(browser, base_url, lang)
    students = [join(new_context(browser, base_url, viewport={"width": 390, "height": 844}), base_url, code, name)
                for name in ("Anna", "Ben", "Chiara")]
    teacher.locator("#join-hide").click()
    teacher.locator('.room-settings button[name="votes_on"]').click()
    expect(teacher.locator('.room-settings button[name="votes_on"][aria-pressed="true"]')).to_be_visible()
    with teacher.expect_response(PUBLISHED):
        teacher.locator("#controls [data-control=step]").click()
    for i, student in enumerate(students):
        student.locator("#ballot button.ballot-token").nth(i).click()
        expect(student.locator(".my-vote")).to_contain_text("Your vote on this step")
    expect(teacher.locator(".room-votes")).to_have_text("3")
    save_screenshot(teacher, f"room-projector-vote-open-{lang}")
    with teacher.expect_response(PUBLISHED):
        teacher.locator("#ranges button[name=reveal]").click()
    results = teacher.locator("#room-results")
    expect(results).to_be_visible()
    expect(teacher.locator("#chart")).to_be_hidden()  # the class beside the model takes its place
    expect_presenting(teacher)
    save_screenshot(teacher, f"room-projector-revealed-{lang}")
    seen = teacher.evaluate(LEGIBILITY, "#room-results")
    assert seen["texts"] > 10, seen
    assert not seen["small"], seen["small"]
    assert not seen["cut"], seen["cut"]
    assert not seen["outside"], seen["outside"]
    assert seen["bottom"] <= PROJECTOR["height"], seen
    if lang in ("en", "de"):
        assert seen["page"] <= PROJECTOR["height"], seen
