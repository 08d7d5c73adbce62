"""When the class's vote opens and closes, from what the teacher's screen shows.

With class votes on, the teacher's screen is in predict-then-reveal mode: after Step the pick
is hidden until Reveal. A round opens when a hidden step appears, and is about that step only
(its step key: the prompt, the model and the ids up to the hidden one). It closes either

    revealed   the teacher reveals that same step: the votes are counted (see votes.py), or
    abandoned  the teacher moves elsewhere first (Back, Reset, another step): nothing is counted.

A settings change that keeps the same step hidden (the temperature, say) keeps the round open.
A revealed round never opens again: going Back and stepping to the same token shows it revealed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .store import Room


def step_key(prompt: str, model: str, ids: tuple[int, ...]) -> str:
    """Name a step by what decides its pick: the text up to and including the token picked."""
    text = "\x1f".join((model, prompt, ",".join(map(str, ids))))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class RoundChange:
    """What a new screen does to the vote: the room's new round fields, and a round that closed."""

    round: int
    round_open: bool
    round_key: str
    revealed: int | None = None  # the round to count now
    abandoned: int | None = None

    def fields(self) -> dict:
        return {"round": self.round, "round_open": self.round_open, "round_key": self.round_key}


def next_round(room: Room, hidden: str | None, shown: str | None) -> RoundChange:
    """The round after the teacher's screen changes to one whose step is hidden (key) or shown (key).

    hidden: the step key if the screen hides its pick, else None; shown: the step key if the
    screen shows a revealed pick, else None (both None before the first Step).
    """
    revealed = abandoned = None
    key = room.round_key
    if room.round_open:
        if hidden == room.round_key:
            return RoundChange(room.round, True, key)
        if shown == room.round_key:
            revealed = room.round
        else:
            abandoned, key = room.round, ""  # the same step may open a round again later
    if room.votes_on and hidden is not None and hidden != key:
        return RoundChange(room.round + 1, True, hidden, revealed, abandoned)
    return RoundChange(room.round, False, key, revealed, abandoned)
