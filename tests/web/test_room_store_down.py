"""The class room while its Redis store is gone: the room's pages, votes and polls answer the app's own 503
with Retry-After and a sentence a teacher can read, the rest of the app answers as ever, the log says it
once, and the room is back as soon as Redis is."""

from __future__ import annotations

import logging

import pytest
from redis_server import Clock, RedisServer

from webapp.room.breaker import COOLDOWN_SECONDS, Breaker
from webapp.room.redis_store import FAILURES, RedisStore
from webapp.web import create_app

from .test_room import ORIGIN, START, join, publish, push, results, reveal, start_room, step

NOT_ANSWERING = "is not answering; try again in a moment."
HTMX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """One app for the module (the models load once); each test gives it a store on a Redis of its own."""
    return create_app({"TESTING": True, "ROOM_STORE": "redis://127.0.0.1:1/0"})


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def server(app, tmp_path, clock):
    """A Redis that keeps what it is told (so that it can be killed and come back), and the app's store on it."""
    server = RedisServer(tmp_path, keep=True)
    store = RedisStore(server.url, app.config["ROOM_IDLE_SECONDS"], Breaker(FAILURES, clock=clock))
    app.extensions["room_store"] = store
    yield server
    store.close()
    server.stop()


def refused(answer, status: int = 503) -> str:
    assert answer.status_code == status, answer.get_data(as_text=True)[:300]
    assert int(answer.headers["Retry-After"]) >= 1
    return answer.get_data(as_text=True)


def test_with_redis_gone_the_room_answers_503_saying_why_and_the_rest_of_the_app_answers(app, server, clock,
                                                                                           caplog) -> None:
    caplog.set_level(logging.INFO)
    teacher = app.test_client()
    code = start_room(teacher)
    url = step(teacher, code)
    student = join(app, code)
    etag = student.get(f"/room/{code}/screen").headers["ETag"]
    server.kill()

    assert NOT_ANSWERING in refused(student.get(f"/room/{code}"))  # the student's page
    vote = student.post(f"/room/{code}/vote", data={"round": "1", "token": "5"}, headers={**ORIGIN, **HTMX})
    assert NOT_ANSWERING in refused(vote) and vote.headers["HX-Retarget"] == "#error"
    for _ in range(20):  # the polls, answered before Flask while the store answers (student_polls.py)
        poll = student.get(f"/room/{code}/screen", headers={"If-None-Match": etag})
        assert NOT_ANSWERING in refused(poll)
    german = student.get(f"/room/{code}/screen", headers={"If-None-Match": etag, "Accept-Language": "de"})
    assert "antwortet nicht" in refused(german)
    as_data = teacher.get(f"/room/{code}/results.json")
    refused(as_data)
    assert NOT_ANSWERING in as_data.get_json()["error"]
    assert NOT_ANSWERING in refused(publish(teacher, code, push(teacher, "/", url + "&reveal=1")))
    assert NOT_ANSWERING in refused(teacher.get(f"/room/{code}/teach"))

    for path in ("/", "/healthz", "/step?" + START.split("?", 1)[1]):
        assert student.get(path, headers=HTMX).status_code == 200, path  # htmx: a Step answers its panels
    breaker = [r for r in caplog.records if r.name == "webapp.room.breaker"]
    assert [r.levelname for r in breaker] == ["WARNING"]  # one line for the outage, not one a request
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]

    server.start_again()  # from its append-only file: the room as it was
    assert NOT_ANSWERING in refused(student.get(f"/room/{code}/screen", headers={"If-None-Match": etag}))
    clock.advance(COOLDOWN_SECONDS)
    assert student.get(f"/room/{code}/screen", headers={"If-None-Match": etag}).status_code == 304
    assert student.post(f"/room/{code}/vote", data={"round": "1", "token": "5"}, headers=ORIGIN).status_code == 303
    assert teacher.get(f"/room/{code}/results.json").get_json()["open_votes"] == 1
    assert [r.levelname for r in caplog.records if r.name == "webapp.room.breaker"] == ["WARNING", "INFO"]
    reveal(teacher, code, url)
    reveal(teacher, code, url)  # a second Reveal of the revealed step: the round stays counted
    rounds = results(teacher, code)["rounds"]
    assert [(r["round"], r["n_votes"]) for r in rounds] == [(1, 1)]
