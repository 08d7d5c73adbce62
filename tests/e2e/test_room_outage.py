"""A class room while its server is away, in real browsers: stopped mid-lesson, both screens say they are
reconnecting, and a vote clicked meanwhile says it did not arrive, with a button to send it again; started
again, the lines go, the vote sent again counts, and the teacher's next Step reaches the students. With the
room's store not answering (Redis paused), a Step the teacher made meanwhile reaches the class by itself once
it answers again."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect
from redis_server import RedisServer
from room_helpers import Server, join, new_context, start_room, step, text_of

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}
STUDENT_LOST = "Reconnecting to the room…"
TEACHER_LOST = "Reconnecting… the class does not see your changes yet."
VOTE_LOST = "Your vote did not arrive: the server could not be reached."
AWAY = 10_000  # the pages ask again every 0.4 to 1.5 s: a few seconds is plenty
BACK = 20_000  # the server's start, then the next poll


def votes_on_and_step(teacher: Page, student: Page) -> None:
    teacher.get_by_role("button", name="Class votes: off").click()
    expect(teacher.get_by_role("button", name="Class votes: on")).to_be_visible()
    step(teacher)
    expect(student.locator("#ballot button.ballot-token").first).to_be_visible()


def test_a_restart_is_said_on_both_screens_and_a_vote_that_did_not_arrive_is_sent_again(
    browser: Browser, tmp_path
) -> None:
    server = Server(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", tmp_path).start()
    try:
        teacher, code = start_room(new_context(browser, server.url, viewport=PROJECTOR), server.url)
        teacher.goto(f"/room/{code}/teach?present=1")
        student = join(new_context(browser, server.url, viewport=PHONE), server.url, code, "Anna")
        votes_on_and_step(teacher, student)
        expect(student.locator("#connection")).to_be_empty()
        expect(teacher.locator("#connection")).to_be_empty()

        server.stop()
        expect(student.get_by_role("status").filter(has_text=STUDENT_LOST)).to_be_visible(timeout=AWAY)
        expect(teacher.get_by_role("status").filter(has_text=TEACHER_LOST)).to_be_visible(timeout=AWAY)
        box = student.locator("#connection").bounding_box()
        assert box is not None and box["y"] < 40, "the line is at the top of the phone's screen"
        choice = student.locator("#ballot button.ballot-token").first
        choice.click()
        expect(student.get_by_role("alert").filter(has_text=VOTE_LOST)).to_be_visible(timeout=AWAY)
        expect(choice).to_have_attribute("aria-pressed", "false")  # not counted, so not marked
        expect(student.locator(".my-vote")).to_have_text("You have not voted on this step yet.")

        server.start()  # the same port and file: the browsers' cookies and the room still apply
        expect(student.locator("#connection")).to_be_empty(timeout=BACK)
        expect(teacher.locator("#connection")).to_be_empty(timeout=BACK)
        student.get_by_role("button", name="Send again").click()
        expect(student.locator(".my-vote")).to_contain_text("Your vote on this step")
        expect(student.locator("#vote-lost")).to_have_count(0)
        expect(choice).to_have_attribute("aria-pressed", "true")
        expect(teacher.locator(".room-votes")).to_have_text("1")

        with teacher.expect_response(lambda r: r.url.endswith("/state")):
            teacher.get_by_role("button", name="Reveal").click()
        expect(student.locator(".my-record")).to_contain_text("of 1")
        step(teacher)
        expect(student.locator(".text-so-far")).to_have_text(text_of(teacher))
    finally:
        server.stop()


def test_a_step_made_while_the_store_is_not_answering_reaches_the_class_when_it_answers(
    browser: Browser, tmp_path
) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    server = Server(redis.url, tmp_path).start()
    try:
        teacher, code = start_room(new_context(browser, server.url, viewport=PROJECTOR), server.url)
        student = join(new_context(browser, server.url, viewport=PHONE), server.url, code, "Ben")
        step(teacher)
        expect(student.locator(".text-so-far")).to_have_text(text_of(teacher))
        before = text_of(teacher)

        redis.pause()
        teacher.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
        expect(teacher.locator(".text-so-far")).not_to_have_text(before)  # the stepper answers; the room does not
        expect(teacher.get_by_role("status").filter(has_text=TEACHER_LOST)).to_be_visible(timeout=AWAY)
        expect(student.get_by_role("status").filter(has_text=STUDENT_LOST)).to_be_visible(timeout=AWAY)
        expect(student.locator(".text-so-far")).to_have_text(before)

        redis.resume()  # after the breaker's cooldown the counts line is answered, and the Step sent again
        expect(student.locator(".text-so-far")).to_have_text(text_of(teacher), timeout=45_000)
        expect(teacher.locator("#connection")).to_be_empty(timeout=BACK)
        expect(student.locator("#connection")).to_be_empty(timeout=BACK)
        expect(teacher.locator("#error .error-message")).to_have_count(0)  # "not answering" no longer holds
    finally:
        server.stop()
        redis.stop()
