"""The Redis room store when Redis stops answering: paused (SIGSTOP) or killed, against a real redis-server.

A call fails with StoreUnavailable within the client's timeout, the calls after it at once while the
breaker is open, and the store answers again by itself once Redis does; an outage is logged once.
A round whose count a dying Redis interrupts is left open and uncounted, never closed without its result.
"""

from __future__ import annotations

import json
import logging
import time

import pytest
import redis
from redis_server import Clock, RedisServer

from webapp.room.breaker import COOLDOWN_SECONDS, Breaker
from webapp.room.redis_store import FAILURES, TIMEOUT_SECONDS, RedisStore
from webapp.room.store import Room, StoreUnavailable, Vote

IDLE = 600.0
T0 = 1_000_000.0
CODE = "ABCDEFGH"


@pytest.fixture
def server(tmp_path):
    server = RedisServer(tmp_path)
    yield server
    server.stop()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(server, clock):
    store = RedisStore(server.url, IDLE, Breaker(FAILURES, clock=clock))
    yield store
    store.close()


def new_room() -> Room:
    return Room(code=CODE, key_hash="h" * 64, state="prompt=a", created=T0, touched=T0)


def refused_at_once(call, n: int = 100) -> bool:
    """n calls refused in less time than one socket timeout: none of them waited on the network."""
    start = time.monotonic()
    for _ in range(n):
        with pytest.raises(StoreUnavailable):
            call()
    return time.monotonic() - start < TIMEOUT_SECONDS


def test_a_paused_redis_fails_a_call_within_the_timeout_then_at_once_until_it_answers_again(server, clock, store):
    store.create(new_room(), 10)
    server.pause()
    start = time.monotonic()
    with pytest.raises(StoreUnavailable) as refused:
        store.version(CODE, T0)
    assert time.monotonic() - start < 5 * TIMEOUT_SECONDS  # one timeout, no retries (it was 5 s, retried 10 times)
    assert refused.value.retry_seconds == COOLDOWN_SECONDS
    assert refused_at_once(lambda: store.get(CODE, T0))
    server.resume()
    assert refused_at_once(lambda: store.version(CODE, T0))  # Redis answers, but the cooldown is not over
    clock.advance(COOLDOWN_SECONDS)
    assert store.version(CODE, T0) == 1  # the probe: answered, so the breaker closes
    assert store.get(CODE, T0) == new_room()


def test_a_killed_redis_is_one_warning_and_its_return_one_line_however_many_calls_fail(server, clock, store,
                                                                                       caplog) -> None:
    caplog.set_level(logging.INFO, logger="webapp.room.breaker")
    store.create(new_room(), 10)
    server.kill()
    with pytest.raises(StoreUnavailable):
        store.get(CODE, T0)  # refused at once: the connection is refused
    assert refused_at_once(lambda: store.version(CODE, T0))
    clock.advance(COOLDOWN_SECONDS)
    with pytest.raises(StoreUnavailable):
        store.version(CODE, T0)  # the probe: Redis is still gone, so another cooldown
    assert refused_at_once(lambda: store.version(CODE, T0))
    server.start_again()  # nothing kept: the room is gone, but Redis answers
    clock.advance(COOLDOWN_SECONDS)
    assert store.version(CODE, T0) is None
    assert store.create(new_room(), 10)
    records = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "webapp.room.breaker"]
    assert [level for level, _ in records] == ["WARNING", "INFO"]
    assert "not answering" in records[0][1] and "ConnectionError" in records[0][1]
    assert "answers again" in records[1][1]
    assert not any(r.exc_info for r in caplog.records)  # no traceback, not even one


def test_a_call_beyond_the_bound_in_flight_fails_at_once_and_does_not_open_the_breaker(server, clock) -> None:
    store = RedisStore(server.url, IDLE, Breaker(FAILURES, clock=clock, max_calls=1))
    try:
        store.create(new_room(), 10)
        # the one call in flight, as one waiting on a hung Redis would be, and one more
        with store.breaker.call(), pytest.raises(StoreUnavailable) as refused:
            store.version(CODE, T0)
        assert refused.value.retry_seconds == 1
        assert not store.breaker.is_open
        assert store.version(CODE, T0) == 1
    finally:
        store.close()


def test_after_the_cooldown_one_call_probes_and_the_others_are_refused_until_it_has_answered(clock) -> None:
    breaker = Breaker(FAILURES, clock=clock)
    with pytest.raises(StoreUnavailable), breaker.call():
        raise redis.ConnectionError("Connection refused: as while Redis restarts")
    assert breaker.is_open
    clock.advance(COOLDOWN_SECONDS)
    with breaker.call():  # the probe
        with pytest.raises(StoreUnavailable), breaker.call():
            pass  # another call meanwhile: refused, as while open
        assert breaker.is_open
    assert not breaker.is_open


def join_and_vote(store, n: int) -> tuple[Room, dict[str, int]]:
    store.create(new_room(), 10)
    students = [f"{i:043d}" for i in range(n)]
    for s in students:
        store.join(CODE, s, "", 100)
    room = store.update(store.get(CODE, T0), T0, round=1, round_open=True, round_key="k")
    votes = {s: i % 7 for i, s in enumerate(students)}
    for s, token in votes.items():
        assert store.vote(CODE, 1, s, token) is Vote.COUNTED
    return room, votes


def test_redis_dying_while_a_round_is_counted_leaves_it_open_and_uncounted_and_it_counts_again(tmp_path) -> None:
    """The store's Redis is killed between reading the round's votes and closing the round (inside count),
    then started again from its append-only file: the room is as it was, and the next Reveal counts it."""
    server, clock = RedisServer(tmp_path, keep=True), Clock()
    store = RedisStore(server.url, IDLE, Breaker(FAILURES, clock=clock))
    try:
        room, votes = join_and_vote(store, 20)

        def count_as_redis_dies(counted: dict[str, int]) -> str:
            server.kill()
            return json.dumps(counted)

        with pytest.raises(StoreUnavailable):
            store.close_round(room, T0, 1, count_as_redis_dies, round_open=False)
        server.start_again()
        clock.advance(COOLDOWN_SECONDS)
        assert store.get(CODE, T0) == room  # still open, at the same version: unchanged
        assert store.results(CODE) == {}
        closed = store.close_round(room, T0, 1, json.dumps, round_open=False)  # the teacher's Reveal again
        assert closed is not None and not closed.round_open and closed.version == room.version + 1
        assert json.loads(store.results(CODE)[1]) == votes  # every vote accepted, counted once
        assert store.vote(CODE, 1, "0" * 43, 3) is Vote.CLOSED
    finally:
        store.close()
        server.stop()


def test_a_vote_while_the_round_is_counted_is_refused_and_the_round_is_still_open_to_readers(server, store) -> None:
    room, votes = join_and_vote(store, 3)
    seen = {}

    def count(counted: dict[str, int]) -> str:
        seen["vote"] = store.vote(CODE, 1, "0" * 43, 6)
        seen["room"] = store.get(CODE, T0)
        return json.dumps(counted)

    closed = store.close_round(room, T0, 1, count, round_open=False)
    assert seen["vote"] is Vote.CLOSED  # refused, as after the reveal: the count has it not
    assert seen["room"] == room  # open, unchanged, until the result is there with it
    assert json.loads(store.results(CODE)[1]) == votes and closed.version == room.version + 1


def test_the_log_names_the_redis_without_its_password() -> None:
    store = RedisStore("redis://:secret@127.0.0.1:1/0", IDLE)
    assert store.breaker.name == "room store at redis://127.0.0.1:1/0"
    store.close()
