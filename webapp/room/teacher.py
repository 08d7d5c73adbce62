"""The teacher's changes to a room: the new screen stored, and what it does to the vote, as one change.

Two changes can race (the teacher's laptop and phone, auto-play and a click): each is a
compare-and-set on the version the change was decided from. When another change came first, this
one is decided again from the room as it now is, up to MAX_ATTEMPTS times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .rounds import next_round
from .store import Room, RoomStore

MAX_ATTEMPTS = 8  # compare-and-set tries when changes race


class RoomGone(Exception):
    """The room ended (or expired) while the change was being made."""


class TooManyChanges(Exception):
    """Other changes kept coming first: the room changed too often at once."""


@dataclass(frozen=True)
class TeacherScreen:
    """The screen the teacher moved to, as the room stores it and the vote reads it."""

    state: str  # the stepper's state as a query string
    hidden_key: str | None  # the step key of the step on screen if its pick is hidden (rounds.step_key)
    shown_key: str | None  # the step key of the step on screen if its pick is shown
    count: Callable[[int], Callable[[dict[str, int]], str]]  # round -> (votes -> the round's result, as JSON)


def apply_change(store: RoomStore, room: Room, screen: TeacherScreen, action: str, now: float, **changes) -> Room:
    """Store the teacher's new screen and what it does to the vote; count a round the teacher revealed.

    `changes` are the room's own settings changed with it (votes_on, leaderboard).
    """
    code = room.code
    for _attempt in range(MAX_ATTEMPTS):
        change = next_round(replace(room, **changes), screen.hidden_key, screen.shown_key)
        fields = {"state": screen.state, "action": action, **changes, **change.fields()}
        if change.revealed:
            updated = store.close_round(room, now, change.revealed, screen.count(change.revealed), **fields)
        else:
            updated = store.update(room, now, **fields)
        if updated is not None:
            return updated
        room = store.get(code, now)  # another change came first: decide again from it
        if room is None:
            raise RoomGone(code)
    raise TooManyChanges(code)
