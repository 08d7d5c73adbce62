"""The teacher's change to a room, against a real SQLite store: stored, decided again when another came first."""

from __future__ import annotations

import pytest

from webapp.room.backends import open_store
from webapp.room.rounds import step_key
from webapp.room.store import Room
from webapp.room.teacher import MAX_ATTEMPTS, RoomGone, TeacherScreen, TooManyChanges, apply_change

NOW = 1_000_000.0
KEY = step_key("It is", "austen-bigram", (12,))


def no_count(round_):
    raise AssertionError("no round is revealed here")


@pytest.fixture
def store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", 3600)
    yield s
    s.close()


def new_room(store, votes_on: bool = True) -> Room:
    room = Room(code="ABCDEFGH", key_hash="k", state="", created=NOW, touched=NOW, votes_on=votes_on)
    assert store.create(room, 10)
    return store.get(room.code, NOW)


def test_a_hidden_step_with_votes_on_is_stored_and_opens_a_round(store):
    room = new_room(store)
    screen = TeacherScreen(state="prompt=It+is&ids=12", hidden_key=KEY, shown_key=None, count=no_count)
    updated = apply_change(store, room, screen, "step", NOW)
    assert (updated.state, updated.action, updated.round_open, updated.round_key) == (screen.state, "step", True, KEY)
    assert updated.version == room.version + 1


def test_a_change_that_lost_the_race_is_decided_again_from_the_room_as_it_is(store):
    room = new_room(store)
    other = store.update(room, NOW, state="prompt=Other")  # came first: `room` is now one version behind
    screen = TeacherScreen(state="prompt=It+is&ids=12", hidden_key=KEY, shown_key=None, count=no_count)
    updated = apply_change(store, room, screen, "step", NOW)
    assert updated.version == other.version + 1
    assert updated.state == screen.state


def test_revealing_the_hidden_step_closes_the_round_and_counts_it(store):
    room = apply_change(store, new_room(store), TeacherScreen("s", KEY, None, no_count), "step", NOW)
    counted = []
    screen = TeacherScreen("s&revealed=1", None, KEY, lambda round_: lambda votes: counted.append(round_) or "{}")
    updated = apply_change(store, room, screen, "show", NOW)
    assert counted == [room.round] and not updated.round_open


def test_a_room_that_ended_meanwhile_is_said_to_be_gone(store):
    room = new_room(store)
    store.update(room, NOW, state="x")
    store.purge(NOW + 10 * 3600)
    with pytest.raises(RoomGone):
        apply_change(store, room, TeacherScreen("s", None, None, no_count), "show", NOW + 10 * 3600)


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
        apply_change(behind, new_room(store), TeacherScreen("s", None, None, no_count), "show", NOW)
    assert behind.updates == MAX_ATTEMPTS
