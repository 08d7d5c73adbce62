"""A student's side of a class vote in a real browser: the pick kept from them, their vote marked.

While the class votes, "Explore from here on my own" opens the stepper at the text the class has seen,
not at the hidden pick; unticking "Predict, then reveal" there shows nothing more, and their own Step
draws an r of its own. On the ballot, the button voted for is pressed; a refusal says the vote stays as
it was, and goes when a vote gets through; their record asked for before a vote and answered after it is
asked for again rather than shown over the vote.
"""

from __future__ import annotations

import re

import pytest
from on_screen import open_more
from playwright.sync_api import Browser, Page, Route, expect
from room_helpers import Server, join, new_context, query, reveal, start_room, step, text_of, vote_open
from stepping import PROMPT, SEED, api_step

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("room-server")
    server = Server(f"sqlite:///{folder / 'rooms.sqlite3'}", folder).start()
    yield server
    server.stop()


def ids_in(page: Page) -> list[int]:
    """The generated ids the stepper's controls form holds: what its next action sends."""
    value = page.locator("#state-fields input[name=ids]").input_value()
    return [int(i) for i in value.split(",") if i]


def test_a_student_exploring_during_a_vote_starts_from_the_text_the_class_has_seen(
    browser: Browser, room_server: Server, save_screenshot
) -> None:
    url = room_server.url
    teacher, code = start_room(new_context(browser, url, viewport=PROJECTOR), url)
    anna = join(new_context(browser, url, viewport=PHONE), url, code, "Anna")
    jonas = new_context(browser, url, viewport=PHONE, locale="de-DE").new_page()  # the join form in German
    jonas.goto(f"{url}/join?code={code}")
    jonas.locator("#nickname").fill("Jonas")
    jonas.locator(".join-form button[type=submit]").click()
    expect(jonas).to_have_url(f"{url}/room/{code}")
    revealed = vote_open(teacher, code)
    for student in (anna, jonas):
        expect(student.locator(".text-so-far")).to_have_text(text_of(teacher))  # the same '?' where the pick will be
    expect(anna.locator("#ballot").get_by_role("heading", name="What comes next?")).to_be_visible()
    expect(jonas.locator("#ballot h2")).to_have_text("Was kommt als Nächstes?")
    save_screenshot(anna, "room-student-phone-vote-open-en")
    save_screenshot(jonas, "room-student-phone-vote-open-de")

    anna.get_by_role("link", name="Explore from here on my own").click()
    expect(anna).to_have_url(re.compile(r"/\?prompt="))
    assert [int(i) for i in query(anna.url)["ids"].split(",")] == revealed
    assert ids_in(anna) == revealed, "the explore page holds the text the class has seen, not the pick"
    expect(anna.locator(".text-so-far")).not_to_contain_text("?")
    open_more(anna)  # her own screen is in the student's view: the classroom controls under More
    anna.get_by_label("Predict, then reveal").uncheck()
    expect(anna.get_by_label("Predict, then reveal")).not_to_be_checked()
    anna.wait_for_load_state("networkidle")  # unticking asks for the screen again: its answer lands before Step
    assert ids_in(anna) == revealed, "unticking shows no pick: there is none on this screen"

    own_r = query(anna.url)["r"]
    anna.locator("button[data-control=step]:visible").click()  # on her phone, the step bar's
    before = ",".join(map(str, revealed))
    expect(anna.locator("#state-fields input[name=ids]")).to_have_value(re.compile(rf"^{before},\d+$"))
    teachers_r = api_step(url, revealed)["r"]  # the seeded r, which picked the teacher's hidden token
    assert float(anna.locator("#range-bar").get_attribute("data-r")) == pytest.approx(float(own_r))
    assert float(own_r) != teachers_r and SEED in anna.url and PROMPT.split()[0] in anna.url


def test_a_students_vote_is_pressed_and_a_refusal_goes_when_a_vote_gets_through(
    browser: Browser, room_server: Server, save_screenshot
) -> None:
    url = room_server.url
    teacher, code = start_room(new_context(browser, url, viewport=PROJECTOR), url)
    cleo = join(new_context(browser, url, viewport=PHONE), url, code, "Cleo")
    vote_open(teacher, code)
    expect(cleo.locator(".text-so-far")).to_have_text(text_of(teacher))  # the second round's screen, and ballot
    ballot = cleo.locator("#ballot")
    expect(ballot.get_by_role("heading", name="What comes next?")).to_be_visible()
    tokens = ballot.locator("button.ballot-token")
    expect(tokens).to_have_count(8)
    expect(ballot.locator("button.ballot-token", has_text="<unk>")).to_have_count(0)

    tokens.nth(1).click()
    expect(tokens.nth(1)).to_have_attribute("aria-pressed", "true")
    expect(ballot.locator('button.ballot-token[aria-pressed="true"]')).to_have_count(1)
    chosen = tokens.nth(1).inner_text()

    cleo.get_by_label("or type a word").fill("Mr.")
    ballot.get_by_role("button", name="Vote").click()
    expect(cleo.locator("#error")).to_contain_text(f"Your vote stays '{chosen}': 'Mr.' is 2 tokens")
    expect(cleo.locator("#error")).not_to_contain_text("Not changed")
    expect(tokens.nth(1)).to_have_attribute("aria-pressed", "true")  # it still stands
    save_screenshot(cleo, "room-student-phone-vote-refused")

    tokens.nth(4).click()
    expect(tokens.nth(4)).to_have_attribute("aria-pressed", "true")
    expect(tokens.nth(1)).to_have_attribute("aria-pressed", "false")
    expect(cleo.locator("#error")).to_have_text("")
    save_screenshot(cleo, "room-student-phone-vote-changed")
    now = tokens.nth(4).inner_text()
    cleo.reload()  # the page the server sends marks the same one
    expect(cleo.locator('#ballot button.ballot-token[aria-pressed="true"]')).to_have_text(now)


def test_a_students_record_asked_before_their_vote_does_not_undo_it(
    browser: Browser, room_server: Server, save_screenshot
) -> None:
    """The student's record, asked for after a reveal and answered late (a slow network) once they have voted on
    the next step, is out of date: it is not shown over the vote, and is asked for again."""
    url = room_server.url
    teacher, code = start_room(new_context(browser, url, viewport=PROJECTOR), url)
    dara = join(new_context(browser, url, viewport=PHONE), url, code, "Dara")
    held = []

    def hold_the_first(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))  # read from the server now, answered later

    dara.route(re.compile(r"/room/[A-Z0-9]{8}/me$"), hold_the_first)
    teacher.get_by_role("button", name="Class votes: off").click()
    expect(teacher.get_by_role("button", name="Class votes: on")).to_be_visible()
    step(teacher)
    with dara.expect_request(re.compile(r"/room/[A-Z0-9]{8}/me$")):
        reveal(teacher)  # the reveal's round closes: her record is asked for
    step(teacher)
    tokens = dara.locator("#ballot button.ballot-token")
    expect(tokens).to_have_count(8)
    tokens.nth(2).click()
    expect(dara.locator("#my-vote")).to_have_attribute("data-token", tokens.nth(2).get_attribute("value"))
    expect(tokens.nth(2)).to_have_attribute("aria-pressed", "true")

    route, answer = held[0]
    with dara.expect_request(re.compile(r"/room/[A-Z0-9]{8}/me$")):  # asked again
        route.fulfill(response=answer)
    expect(dara.locator("#me")).to_contain_text("Your vote on this step")
    expect(tokens.nth(2)).to_have_attribute("aria-pressed", "true")
    expect(dara.locator('#ballot button.ballot-token[aria-pressed="true"]')).to_have_count(1)
    save_screenshot(dara, "room-student-phone-record-late")
