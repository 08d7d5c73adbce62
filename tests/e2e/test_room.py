"""The class room in a real browser: a teacher and students in separate browser contexts.

The students' screens follow the teacher's Step, Back and temperature; they vote (a top token, a
typed word, a word of two tokens that is refused); the projector shows the counts and, after
Reveal, the histogram and shares that match the votes cast. A student without JavaScript follows
by reloading and votes with the plain form.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect
from room_helpers import Server, join, new_context, start_room, step, text_of
from stepping import START

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("room-server")
    server = Server(f"sqlite:///{folder / 'rooms.sqlite3'}", folder).start()
    yield server
    server.stop()


def test_students_follow_the_teacher_and_vote(browser: Browser, room_server: Server, save_screenshot) -> None:
    url = room_server.url
    teacher_context = new_context(browser, url, viewport=PROJECTOR)
    teacher, code = start_room(teacher_context, url)
    anna = join(new_context(browser, url, viewport=PHONE), url, code, "Anna")
    ben = join(new_context(browser, url, viewport=PHONE), url, code, "<b>Ben</b>")
    expect(teacher.locator(".room-count")).to_have_text("2")

    step(teacher)
    for student in (anna, ben):
        expect(student.locator(".text-so-far")).to_have_text(text_of(teacher))
        r = teacher.locator("#range-bar").get_attribute("data-r")
        expect(student.locator("#range-bar")).to_have_attribute("data-r", r)
    step(teacher)
    expect(anna.locator(".text-so-far")).to_have_text(text_of(teacher))
    step(teacher, "Back")
    expect(anna.locator(".text-so-far")).to_have_text(text_of(teacher))
    assert len(text_of(teacher).split()) == len(START.split("+")) + 1  # "The girl saw a" and one token

    with teacher.expect_response(re.compile(r"/state$")):
        teacher.locator("#temperature").fill("0.5")
    expect(anna.locator("#chart-heading")).to_contain_text("T = 0.5")

    teacher.get_by_role("button", name="Class votes: off").click()
    expect(teacher.get_by_role("button", name="Class votes: on")).to_be_visible()
    step(teacher)
    expect(teacher.locator("#ranges")).to_contain_text("hidden")
    ballot = anna.locator("#ballot")
    expect(ballot.get_by_role("heading", name="What comes next?")).to_be_visible()
    expect(anna.locator("#ranges")).to_contain_text("hidden")  # the students do not see the pick either

    first = ballot.locator("button.ballot-token").first
    anna_token = first.get_attribute("value")
    first.click()
    expect(anna.locator(".my-vote")).to_contain_text("Your vote on this step")

    ben.get_by_label("or type a word").fill("Mr.")
    ben.locator("#ballot").get_by_role("button", name="Vote").click()
    expect(ben.locator("#error")).to_contain_text("is 2 tokens")
    ben.get_by_label("or type a word").fill("her")
    ben.locator("#ballot").get_by_role("button", name="Vote").click()
    expect(ben.locator(".my-vote")).to_contain_text("'her'")
    expect(teacher.locator(".room-votes")).to_have_text("2")
    save_screenshot(anna, "room-student-phone-vote")

    teacher.get_by_role("button", name="Reveal").click()
    results = teacher.locator("#room-results")
    expect(results).to_be_visible()
    tally = teacher_context.request.get(f"/room/{code}/results.json").json()["rounds"][-1]
    assert tally["n_votes"] == 2
    for token, votes in tally["tally"].items():
        expect(results.locator(f'.vote-row[data-token="{token}"]')).to_have_attribute("data-votes", str(votes))
    assert anna_token in tally["tally"]
    n_picked = tally["tally"].get(str(tally["picked"]), 0)
    expect(results.locator(".share-picked")).to_have_text(f"{n_picked} of 2")
    expect(results.locator(".share-top")).to_have_text(str(tally["tally"].get(str(tally["top"]), 0)))
    expect(results.locator(".class-bits")).to_be_visible()
    expect(anna.locator(".my-record")).to_contain_text("of 1")
    expect(ben.locator("#me-heading")).to_contain_text("<b>Ben</b>")  # a nickname is text, never markup

    teacher.get_by_role("button", name="Leaderboard: off").click()
    expect(teacher.locator(".leaderboard")).to_contain_text("<b>Ben</b>")
    save_screenshot(teacher, "room-teacher-laptop")
    teacher.goto(teacher.url.split("?")[0] + "?present=1")
    expect(teacher.locator("#room-results")).to_be_visible()
    phone = save_screenshot(anna, "room-student-phone-revealed")

    anna.get_by_role("link", name="Explore from here on my own").click()
    expect(anna).to_have_url(re.compile(r"/\?prompt="))  # the ordinary stepper, at the teacher's screen
    expect(anna.locator(".text-so-far")).to_have_text(text_of(teacher))
    anna.get_by_role("link", name="Follow the teacher").click()
    expect(anna).to_have_url(f"{url}/room/{code}")
    teacher.screenshot(path=str(phone.parent / "room-teacher-projector.png"))  # what the projector's 1280x720 shows


def test_a_student_without_javascript_follows_by_reloading_and_votes(browser: Browser, room_server: Server) -> None:
    url = room_server.url
    teacher, code = start_room(new_context(browser, url), url)
    student = join(new_context(browser, url, java_script_enabled=False), url, code, "no-js")
    step(teacher)
    student.reload()
    expect(student.locator(".text-so-far")).to_have_text(text_of(teacher))

    teacher.get_by_role("button", name="Class votes: off").click()
    step(teacher)
    student.get_by_role("link", name="Reload").click()
    student.locator("#ballot button.ballot-token").first.click()
    expect(student).to_have_url(f"{url}/room/{code}")
    expect(student.locator(".my-vote")).to_contain_text("Your vote on this step")
    expect(teacher.locator(".room-votes")).to_have_text("1")
    teacher.get_by_role("button", name="Reveal").click()
    expect(teacher.locator(".share-picked")).to_contain_text("of 1")
    student.reload()
    expect(student.locator(".my-record")).to_contain_text("of 1")


def test_a_word_being_typed_on_the_ballot_stays_while_the_room_changes_in_the_same_round(
    browser: Browser, room_server: Server
) -> None:
    url = room_server.url
    teacher, code = start_room(new_context(browser, url, viewport=PROJECTOR), url)
    cleo = join(new_context(browser, url, viewport=PHONE), url, code, "Cleo")
    teacher.get_by_role("button", name="Class votes: off").click()
    expect(teacher.get_by_role("button", name="Class votes: on")).to_be_visible()
    step(teacher)
    expect(cleo.locator("#ballot").get_by_role("heading", name="What comes next?")).to_be_visible()
    cleo.get_by_label("or type a word").fill("her")

    def new_screen(response) -> bool:
        return response.url.endswith(f"/room/{code}/screen") and response.status == 200

    with cleo.expect_response(new_screen) as screen:  # the room's version moves on, its round stays
        teacher.get_by_role("button", name="Leaderboard: off").click()
    assert screen.value.headers["x-room-round"] == "1-open"
    expect(cleo.get_by_label("or type a word")).to_have_value("her")

    with teacher.expect_response(re.compile(r"/state$")):
        teacher.get_by_role("button", name="Reveal").click()
    step(teacher)  # a new round: a fresh ballot
    expect(cleo.get_by_label("or type a word")).to_have_value("")


def test_a_room_refused_for_its_screen_says_why_on_the_teacher_s_page(browser: Browser, room_server: Server) -> None:
    """The room would store a screen the budget refuses (each of 1,000 steps again, to colour the text): the
    teacher's page says so in its error area, stays where it is, and no room starts."""
    url = room_server.url
    teacher = new_context(browser, url, viewport=PROJECTOR).new_page()
    teacher.goto(url + START)
    heavy = START + "&model=austen-transformer&surprise=1&ids=" + ",".join(str(10 + i % 900) for i in range(1000))
    field = teacher.locator("form.start-room input[name=from]")
    own = field.input_value()
    field.evaluate("(field, heavy) => field.value = heavy", heavy)
    teacher.get_by_role("button", name="Start a class room").click()
    expect(teacher.locator("#error")).to_contain_text("the server's limit for one request is about 1.0 s")
    expect(teacher.locator("#error")).to_be_in_viewport()  # said at the top, and scrolled to from the Share panel
    expect(teacher).to_have_url(url + START)
    field.evaluate("(field, own) => field.value = own", own)  # the screen's own: it starts
    teacher.get_by_role("button", name="Start a class room").click()
    expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach"))
