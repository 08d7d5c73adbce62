"""A student's phone in the class room: the text so far on the first screen (the pick kept out while the class
votes), every column of the tables on a 360 px screen, the way back to the room can be read, and nothing offers
what a student cannot do (the teacher's chain presets)."""

from __future__ import annotations

import re

import pytest
from on_screen import tables_on_screen
from playwright.sync_api import Browser, Locator, expect
from room_helpers import Server, join, new_context, reveal, start_room, vote_open

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("phone-room")
    server = Server(f"sqlite:///{folder / 'rooms.sqlite3'}", folder).start()
    yield server
    server.stop()


def luminance(rgb: tuple[int, ...]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    def linear(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


# The element's text colour, and the first opaque background behind it (its own or an ancestor's).
COLOURS = """element => {
  const rgb = text => text.match(/[\\d.]+/g).map(Number);
  let node = element, background = null;
  while (node && node.nodeType === 1) {
    const colour = rgb(getComputedStyle(node).backgroundColor);
    if (colour.length < 4 || colour[3] > 0) { background = colour; break; }
    node = node.parentElement;
  }
  return [rgb(getComputedStyle(element).color), background || [255, 255, 255]];
}"""


def test_the_way_back_to_the_room_reads_on_the_header(browser: Browser, room_server: Server) -> None:
    url = room_server.url
    _teacher, code = start_room(new_context(browser, url), url)
    student = join(new_context(browser, url, viewport=PHONE), url, code, "Anna")
    student.goto(url + "/")  # the student wanders off to the ordinary stepper
    back = student.locator("#follow-teacher")
    expect(back).to_be_visible()
    expect(back).to_have_attribute("href", f"/room/{code}")
    text, background = back.evaluate(COLOURS)
    assert contrast(tuple(text), tuple(background)) >= 4.5


def test_a_student_is_not_offered_the_chain_s_presets(browser: Browser, room_server: Server) -> None:
    url = room_server.url
    _teacher, code = start_room(new_context(browser, url), url)
    student = join(new_context(browser, url, viewport=PHONE), url, code)
    chain = student.locator("#chain .panel-note")
    expect(chain).to_contain_text("Each stage sees the distribution")
    assert "Presets" not in chain.inner_text()  # hidden with the buttons it names, not "Presets: , ."
    assert not re.search(r":\s*,", student.locator("#main").inner_text())


def generated(text: Locator) -> list[str]:
    """The generated tokens a text so far shows ('?' for a hidden pick)."""
    return [word.strip() for word in text.locator(".gen").all_inner_texts()]


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_the_text_so_far_is_on_a_phone_s_first_screen_and_the_pick_only_after_reveal(
    browser: Browser, room_server: Server, locale: str, save_screenshot
) -> None:
    url = room_server.url
    teacher, code = start_room(new_context(browser, url), url)
    student = new_context(browser, url, viewport=SMALL_PHONE, locale=locale).new_page()
    student.goto(f"{url}/join?code={code}")  # the join form in the phone's language
    student.locator(".join-form button[type=submit]").click()
    expect(student).to_have_url(f"{url}/room/{code}")
    vote_open(teacher, code)
    top, panel = student.locator("#text-now"), student.locator("#text .text-so-far")
    expect(top.locator(".gen")).to_have_count(2)  # the poll brought the second vote: the revealed step, then '?'
    expect(top.locator(".gen").last).to_have_text("?")
    during = generated(top)
    assert during == generated(panel), "the decode panel's text"
    box = top.bounding_box()
    assert box is not None and box["y"] + box["height"] <= SMALL_PHONE["height"], f"below the first screen: {box}"
    expect(student.locator("html")).to_have_js_property("scrollWidth", SMALL_PHONE["width"])
    save_screenshot(student, f"room-student-360-vote-open-{locale}")

    reveal(teacher)
    expect(top.locator(".gen").last).not_to_have_text("?")  # the poll brought the pick
    after = generated(top)
    assert after == generated(panel) and after[:-1] == during[:-1], "the same text, the pick where '?' was"
    problems, headers = tables_on_screen(student, SMALL_PHONE["width"])
    assert problems == [] and len(headers["logits-table"]) == 5, headers  # #, token, z, p, range; no "choose"
    expect(student.locator("html")).to_have_js_property("scrollWidth", SMALL_PHONE["width"])
    save_screenshot(student, f"room-student-360-revealed-{locale}")
