"""The room outlives its server: stopped mid-lesson and started again (SQLite), the room, the votes and
the teacher's control are intact; the same lesson runs on Redis with the teacher and the students
on two different servers, as on two machines behind a load balancer; and a student's screen says so
while Redis is not answering, and follows again once it is."""

from __future__ import annotations

from playwright.sync_api import Browser, expect
from redis_server import RedisServer
from room_helpers import Server, join, new_context, start_room, step, text_of


def vote_on_the_next_step(teacher, student) -> str:
    """Turn class votes on, Step, and have the student vote the first ballot token; return its id."""
    teacher.get_by_role("button", name="Class votes: off").click()
    step(teacher)
    first = student.locator("#ballot button.ballot-token").first
    token = first.get_attribute("value")
    first.click()
    expect(student.locator(".my-vote")).to_contain_text("Your vote on this step")
    expect(teacher.locator(".room-votes")).to_have_text("1")
    return token


def reveal_and_check(teacher, student, code: str, token: str) -> None:
    teacher.get_by_role("button", name="Reveal").click()
    expect(teacher.locator("#room-results")).to_be_visible()
    expect(teacher.locator(f'.vote-row[data-token="{token}"]')).to_have_attribute("data-votes", "1")
    expect(teacher.locator(".share-picked")).to_contain_text("of 1")
    expect(student.locator(".my-record")).to_contain_text("of 1")
    step(teacher)
    expect(student.locator(".text-so-far")).to_have_text(text_of(teacher))


def test_a_room_survives_a_restart_of_the_server(browser: Browser, tmp_path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", tmp_path).start()
    try:
        teacher, code = start_room(new_context(browser, server.url), server.url)
        student = join(new_context(browser, server.url), server.url, code, "Anna")
        token = vote_on_the_next_step(teacher, student)

        server.stop()
        server.start()  # the same port: the browsers' cookies still apply

        teacher.reload()
        expect(teacher.locator("#room-code")).to_have_text(f"{code[:4]}-{code[4:]}")  # still the teacher
        expect(teacher.locator(".room-count")).to_have_text("1")
        expect(teacher.locator(".room-votes")).to_have_text("1")
        student.reload()
        expect(student.locator(".my-vote")).to_contain_text("Your vote on this step")
        reveal_and_check(teacher, student, code, token)
    finally:
        server.stop()


def test_the_same_lesson_runs_on_redis_across_two_servers(browser: Browser, tmp_path, redis_url: str) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    first = Server(redis_url, tmp_path).start()
    second = Server(redis_url, tmp_path).start()
    try:
        teacher, code = start_room(new_context(browser, first.url), first.url)
        student = join(new_context(browser, second.url), second.url, code, "Ben")
        expect(teacher.locator(".room-count")).to_have_text("1")
        token = vote_on_the_next_step(teacher, student)
        reveal_and_check(teacher, student, code, token)
    finally:
        first.stop()
        second.stop()


def test_a_students_screen_says_the_store_is_not_answering_and_goes_on_when_it_answers(browser: Browser,
                                                                                      tmp_path) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    server = Server(redis.url, tmp_path).start()
    try:
        teacher, code = start_room(new_context(browser, server.url), server.url)
        student = join(new_context(browser, server.url), server.url, code, "Cleo")
        redis.pause()
        expect(student.locator("#error")).to_contain_text("is not answering; try again in a moment", timeout=15_000)
        redis.resume()
        # the next poll after the breaker's cooldown and the page's back-off is answered: the sentence goes
        expect(student.locator("#error .error-message")).to_have_count(0, timeout=45_000)
        expect(student.locator("#room-status")).to_be_visible()
    finally:
        server.stop()
        redis.stop()
