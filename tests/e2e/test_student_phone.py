"""A student's phone in the class room: the way back to the room can be read, and nothing offers what a student
cannot do (the teacher's chain presets)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect
from room_helpers import Server, join, new_context, start_room

PHONE = {"width": 390, "height": 844}


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
