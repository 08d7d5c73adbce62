"""Bundled lesson 1 played in a class room with three students: one phone, one in German, one without JavaScript.

Every screen's question reaches the phones (each in its own language), each voted screen opens a round that the
class votes in and the teacher reveals, and no byte any student's browser receives holds a teacher's note or
where the teacher is in the lesson.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from markupsafe import escape
from playwright.sync_api import Browser, BrowserContext, Page, Response, expect
from room_helpers import Server, join, join_in_german, new_context, reveal

from webapp.lessons.bundled import bundled

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("room-server")
    server = Server(f"sqlite:///{folder / 'rooms.sqlite3'}", folder).start()
    yield server
    server.stop()


class Received:
    """Every body a browser context receives, as text."""

    def __init__(self, context: BrowserContext):
        self.bodies: list[str] = []
        context.on("response", self.keep)

    def keep(self, response: Response) -> None:
        # a redirect, or a response the page left before it arrived, has no body
        with contextlib.suppress(Exception):
            self.bodies.append(response.body().decode("utf-8", errors="replace"))

    def holding(self, text: str) -> bool:
        return any(text in body for body in self.bodies)


def test_lesson_one_played_in_a_room_reaches_every_phone_and_keeps_the_notes_on_the_laptop(
    browser: Browser, room_server: Server, save_screenshot
) -> None:
    url = room_server.url
    english, german = bundled("article", "en"), bundled("article", "de")
    teacher = new_context(browser, url, viewport=PROJECTOR).new_page()
    teacher.goto(url + "/lessons/article")
    teacher.get_by_role("button", name="Play it in a class room").click()
    expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach"))
    code = teacher.url.split("/room/")[1].split("/")[0]

    # Every body each student's browser receives is kept from the moment it opens, its join and first page too.
    anna_context = new_context(browser, url, viewport=PHONE)
    jonas_context = new_context(browser, url, viewport=PHONE, locale="de-DE")
    quiet_context = new_context(browser, url, java_script_enabled=False)
    received = [Received(c) for c in (anna_context, jonas_context, quiet_context)]
    anna = join(anna_context, url, code, "Anna")
    jonas = join_in_german(jonas_context, url, code)
    quiet = join(quiet_context, url, code, "no-js")
    teacher.get_by_role("link", name="Start the lesson").click()

    n = len(english.screens)
    for i, (screen, screen_de) in enumerate(zip(english.screens, german.screens, strict=True)):
        panel = teacher.locator("#room-lesson")
        expect(panel).to_contain_text(f"screen {i + 1} of {n}")
        if screen.notes:
            expect(panel.locator(".lesson-notes")).to_contain_text(screen.notes[:40])
        expect(anna.locator("#room-question")).to_contain_text(screen.question)
        expect(jonas.locator("#room-question")).to_contain_text(screen_de.question)
        quiet.reload()
        expect(quiet.locator("#room-question")).to_contain_text(screen.question)
        if screen.vote:
            vote_and_reveal(teacher, code, (anna, jonas), quiet)
        if i == 0:
            save_screenshot(anna, "lesson-room-phone-en")
            save_screenshot(jonas, "lesson-room-phone-de")
        if i + 1 < n:
            teacher.keyboard.press("PageDown") if i % 2 else panel.get_by_role("button", name="Next screen →").click()
            expect(panel).to_contain_text(f"screen {i + 2} of {n}")

    assert any(screen.vote for screen in english.screens), "lesson 1 has a screen the class votes on"
    secrets = [s.notes for lesson in (english, german) for s in lesson.screens if s.notes]
    firsts = (english.screens[0].question, german.screens[0].question, english.screens[0].question)
    for student, first in zip(received, firsts, strict=True):
        assert student.holding(str(escape(first))), "the check reads what the students received"
        for note in secrets:
            assert not student.holding(note), f"a student received a teacher's note: {note[:60]}"
        assert not student.holding(f" of {n}"), "a student received where the teacher is in the lesson"


def vote_and_reveal(teacher: Page, code: str, phones: tuple[Page, ...], quiet: Page) -> None:
    """The round is open as the screen arrives (its pick hidden): every student votes for the first token offered
    (the student without JavaScript after a reload), the teacher reveals: the round counts every vote."""
    opened = teacher.request.get(f"/room/{code}/results.json").json()
    assert opened["round_open"]
    expect(teacher.locator("#ranges")).to_contain_text("hidden")
    quiet.reload()
    for student in (*phones, quiet):
        first = student.locator("#ballot button.ballot-token").first
        expect(first).to_be_visible()
        first.click()
    expect(teacher.locator(".room-votes")).to_have_text(str(len(phones) + 1))
    reveal(teacher)
    done = teacher.request.get(f"/room/{code}/results.json").json()
    assert not done["round_open"] and done["rounds"][-1]["n_votes"] == len(phones) + 1
