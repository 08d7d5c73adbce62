"""The teacher's change to a room, against both real stores (an SQLite file, a redis-server): stored, decided
again when another came first, and a round left before its reveal kept with its votes until its step comes back."""

from __future__ import annotations

import json
import sqlite3

import pytest

from webapp.room.backends import open_store
from webapp.room.rounds import Picks, picks, read_rounds, step_key
from webapp.room.store import Room, Vote
from webapp.room.teacher import MAX_ATTEMPTS, RoomGone, TeacherScreen, TooManyChanges, apply_change

NOW = 1_000_000.0
KEY = step_key("It is", "austen-bigram", ())
STUDENTS = [f"{n}" * 43 for n in range(3)]


def no_count(round_, step, version):
    raise AssertionError("no round is revealed here")


def counting(counted: list):
    """count(round, step) that records what it counted and saves the votes as the result."""
    return lambda round_, step, version: lambda votes: counted.append((round_, step, dict(votes))) or json.dumps(votes)


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    else:
        url = request.getfixturevalue("redis_url")
        import redis

        redis.Redis.from_url(url).flushdb()
    s = open_store(url, 3600)
    yield s
    s.close()


def new_room(store, votes_on: bool = True) -> Room:
    room = Room(code="ABCDEFGH", key_hash="k", state="", created=NOW, touched=NOW, votes_on=votes_on)
    assert store.create(room, 10)
    for student in STUDENTS:
        store.join(room.code, student, "", 10)
    return store.get(room.code, NOW)


def screen_of(ids: tuple[int, ...], hidden: bool, count=no_count, forced=None) -> TeacherScreen:
    """The teacher's screen of 'It is' and these ids, its last pick hidden or not."""
    on_screen = picks("It is", "austen-bigram", ids, forced or (False,) * len(ids), hidden)
    return TeacherScreen(state=f"ids={ids}&hidden={hidden}", picks=on_screen, count=count)


def test_a_hidden_step_with_votes_on_is_stored_and_opens_a_round(store):
    room = new_room(store)
    screen = screen_of((12,), hidden=True)
    updated = apply_change(store, room, screen, "step", NOW)
    assert (updated.state, updated.action, updated.round_open, updated.round_key) == (screen.state, "step", True, KEY)
    assert updated.version == room.version + 1
    assert store.get(room.code, NOW) == updated


def test_a_change_that_lost_the_race_is_decided_again_from_the_room_as_it_is(store):
    room = new_room(store)
    other = store.update(room, NOW, state="prompt=Other")  # came first: `room` is now one version behind
    screen = screen_of((12,), hidden=True)
    updated = apply_change(store, room, screen, "step", NOW)
    assert updated.version == other.version + 1
    assert updated.state == screen.state


def test_revealing_the_hidden_step_closes_the_round_and_counts_it(store):
    room = apply_change(store, new_room(store), screen_of((12,), hidden=True), "step", NOW)
    counted = []
    updated = apply_change(store, room, screen_of((12,), hidden=False, count=counting(counted)), "show", NOW)
    assert counted == [(room.round, 0, {})] and not updated.round_open


def test_a_round_left_before_its_reveal_keeps_its_votes_and_comes_back_with_them(store):
    room = apply_change(store, new_room(store), screen_of((12,), hidden=True), "step", NOW)
    for student, token in zip(STUDENTS, (4, 4, 9), strict=True):
        assert store.vote(room.code, room.round, student, token) is Vote.COUNTED
    left = apply_change(store, room, screen_of((), hidden=False), "back", NOW)
    assert not left.round_open and store.vote(room.code, room.round, STUDENTS[0], 7) is Vote.CLOSED
    assert store.votes(room.code, room.round) == dict(zip(STUDENTS, (4, 4, 9), strict=True))
    assert [(r.number, r.status) for r in read_rounds(store.get(room.code, NOW)).values()] == [(1, "kept")]
    back = apply_change(store, left, screen_of((12,), hidden=True), "step", NOW)
    assert (back.round, back.round_open) == (1, True)
    assert store.votes_of(room.code, STUDENTS[2]) == {1: 9}
    assert store.vote(room.code, back.round, STUDENTS[2], 4) is Vote.COUNTED
    counted = []
    apply_change(store, back, screen_of((12,), hidden=False, count=counting(counted)), "show", NOW)
    assert counted == [(1, 0, dict(zip(STUDENTS, (4, 4, 4), strict=True)))]


def test_a_student_finds_the_votes_of_later_rounds_while_an_earlier_one_is_open_again(store):
    room = apply_change(store, new_room(store), screen_of((12,), hidden=True), "step", NOW)
    store.vote(room.code, 1, STUDENTS[0], 4)
    room = apply_change(store, room, screen_of((12,), hidden=True, forced=(True,)), "choose", NOW)  # round 1 kept
    room = apply_change(store, room, screen_of((12, 30), hidden=True, forced=(True, False)), "step", NOW)
    assert (room.round, room.n_rounds) == (2, 2)
    store.vote(room.code, 2, STUDENTS[0], 8)
    room = apply_change(store, room, screen_of((12,), hidden=True), "step", NOW)  # the model's pick again
    assert (room.round, room.round_open) == (1, True)
    assert store.votes_of(room.code, STUDENTS[0]) == {1: 4, 2: 8}


def test_class_votes_off_during_a_round_keep_it_and_on_again_open_it_with_its_votes(store):
    room = apply_change(store, new_room(store), screen_of((12,), hidden=True), "step", NOW)
    store.vote(room.code, 1, STUDENTS[1], 6)
    off = apply_change(store, room, screen_of((12,), hidden=True), "show", NOW, votes_on=False)
    assert not off.votes_on and not off.round_open
    on = apply_change(store, off, screen_of((12,), hidden=True), "show", NOW, votes_on=True)
    assert (on.round, on.round_open) == (1, True) and store.votes(room.code, 1) == {STUDENTS[1]: 6}


def test_a_screen_showing_several_rounds_picks_counts_each_once(store):
    room = apply_change(store, new_room(store), screen_of((12,), hidden=True), "step", NOW)
    store.vote(room.code, 1, STUDENTS[0], 12)
    room = apply_change(store, room, screen_of((), hidden=False), "reset", NOW)  # round 1 kept
    room = apply_change(store, room, screen_of((12, 30), hidden=True, forced=(True, False)), "step", NOW)
    store.vote(room.code, 2, STUDENTS[0], 30)
    counted = []
    shown = apply_change(store, room, screen_of((12, 30, 7), hidden=True, count=counting(counted)), "step", NOW)
    assert counted == [(1, 0, {STUDENTS[0]: 12}), (2, 1, {STUDENTS[0]: 30})]
    assert {n: json.loads(text) for n, text in store.results(room.code).items()} == {
        1: {STUDENTS[0]: 12}, 2: {STUDENTS[0]: 30}}
    assert (shown.round, shown.round_open, shown.n_rounds) == (3, True, 3)


def test_a_room_that_ended_meanwhile_is_said_to_be_gone(store):
    room = new_room(store)
    store.update(room, NOW, state="x")
    store.purge(NOW + 10 * 3600)
    if hasattr(store, "r"):  # Redis lets the room's keys expire on their own: the test ends it at once
        store.r.delete("tbt:room:ABCDEFGH")
    with pytest.raises(RoomGone):
        apply_change(store, room, TeacherScreen("s", Picks(), no_count), "show", NOW + 10 * 3600)


class AlwaysBehind:
    """A store whose every compare-and-set finds a newer version."""

    def __init__(self, store):
        self.store, self.updates = store, 0

    def update(self, room, now, **changes):
        self.updates += 1
        return None

    def get(self, code, now):
        return self.store.get(code, now)


def test_changes_that_keep_coming_first_give_up_after_max_attempts(store):
    behind = AlwaysBehind(store)
    with pytest.raises(TooManyChanges):
        apply_change(behind, new_room(store), TeacherScreen("s", Picks(), no_count), "show", NOW)
    assert behind.updates == MAX_ATTEMPTS


OLD_SCHEMA = """
CREATE TABLE rooms (
    code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, state TEXT NOT NULL, version INTEGER NOT NULL,
    action TEXT NOT NULL, votes_on INTEGER NOT NULL, round INTEGER NOT NULL, round_open INTEGER NOT NULL,
    round_key TEXT NOT NULL, leaderboard INTEGER NOT NULL, created REAL NOT NULL, touched REAL NOT NULL);
INSERT INTO rooms VALUES ('ABCDEFGH', 'k', 'prompt=a', 7, 'step', 1, 3, 1, 'old', 0, 1000000.0, 1000000.0);
"""


def test_a_room_an_older_server_stored_reads_on_and_its_open_round_is_kept(tmp_path):
    path = tmp_path / "rooms.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
    store = open_store(f"sqlite:///{path}", 3600)
    room = store.get("ABCDEFGH", NOW)
    assert (room.round, room.rounds_opened, room.rounds) == (3, 3, "")
    moved = apply_change(store, room, screen_of((12,), hidden=True), "step", NOW)
    assert (moved.round, moved.n_rounds, moved.round_open) == (4, 4, True)
    assert {r.number: r.status for r in read_rounds(moved).values()} == {3: "kept", 4: "open"}
    store.close()


def test_a_room_an_older_server_stored_in_redis_reads_on(redis_url):
    import redis

    r = redis.Redis.from_url(redis_url, decode_responses=True)
    r.flushdb()
    r.hset("tbt:room:ABCDEFGH", mapping={"code": "ABCDEFGH", "key_hash": "k", "state": "prompt=a", "version": "2",
                                         "action": "show", "votes_on": "1", "round": "3", "round_open": "0",
                                         "round_key": "", "leaderboard": "0", "created": repr(NOW),
                                         "touched": repr(NOW)})
    store = open_store(redis_url, 3600)
    room = store.get("ABCDEFGH", NOW)
    assert (room.round, room.rounds_opened, room.rounds) == (3, 3, "")
    store.close()
