"""The teacher's changes to a room: the new screen stored, and what it does to the vote, as one change.

What a change does to the vote is rounds.py's: a round the teacher leaves before its pick is shown
(Back, Reset, choose, another model, class votes off) is kept with its votes and opens again when its
step comes back, a temperature or other setting leaves it open, a round whose pick can be read is
counted. No vote is dropped, and the teacher is not stopped by a question in the middle of a lesson
(keeping is never wrong; a "reveal first?" dialog is one more thing to misclick). When one screen shows
the picks of several rounds at once (a link far ahead), they are counted one change after another.

Two changes can race (the teacher's laptop and phone, auto-play and a click): each is a
compare-and-set on the version the change was decided from. When another change came first, this
one is decided again from the room as it now is, up to MAX_ATTEMPTS times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .rounds import Picks, next_round
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
    picks: Picks  # the model's picks it hides and shows, by step key (rounds.picks)
    # (round, step, the room's version revealing it) -> (votes -> the round's result, as JSON)
    count: Callable[[int, int, int], Callable[[dict[str, int]], str]]


def apply_change(store: RoomStore, room: Room, screen: TeacherScreen, action: str, now: float, **changes) -> Room:
    """Store the teacher's new screen and what it does to the vote; count each round whose pick it shows.

    `changes` are the room's own settings changed with it (votes_on, leaderboard).
    """
    code = room.code
    stored = False  # the screen is in the room: what is left is counting further rounds it shows
    attempts = 0
    while True:
        change = next_round(replace(room, **changes), screen.picks, action)
        if stored and change.revealed is None:
            return room
        fields = {"state": screen.state, "action": action, **changes, **change.fields()}
        if change.revealed:
            counted = change.revealed
            count = screen.count(counted.number, counted.step, room.version + 1)
            updated = store.close_round(room, now, counted.number, count, **fields)
        else:
            updated = store.update(room, now, **fields)
        if updated is not None:
            if not change.more:
                return updated
            room, stored = updated, True
            continue
        attempts += 1
        if attempts >= MAX_ATTEMPTS:
            raise TooManyChanges(code)
        room = store.get(code, now)  # another change came first: decide again from it
        if room is None:
            raise RoomGone(code)
