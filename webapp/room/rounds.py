"""When the class's vote opens, closes and comes back, from what the teacher's screen shows.

With class votes on, the teacher's screen is in predict-then-reveal mode: after Step the pick is
hidden until Reveal. A round opens when a hidden step appears, and is about that step: its step key
names the prompt, the model and the tokens before the pick, the text the class guesses from. A round is

    open      taking votes: its step is on screen with the pick hidden, and class votes are on;
    kept      left before its pick was shown (Back, Reset, choose, another model, class votes off):
              it takes no votes and keeps those it has; when its step is on screen hidden again with
              class votes on, it opens again, the same round with the same votes;
    revealed  its pick can be read (Reveal, or a Step past the hidden pick puts it in the text): its
              votes are counted (votes.py), kept or open, and it never opens again.

So no vote is ever dropped, and no dialog interrupts the lesson: a Back pressed by accident (or the
Left arrow key) and Step bring the round back as it was, and every round a room ever had is one of
these three, in results.json too.

A setting that changes the distribution (the temperature, a truncation, the seed) keeps the step:
the votes were cast on the same text, before any of the model's numbers were shown, and the class is
compared with the model at T = 1 whatever the teacher's settings. So a round stays open through a
change of temperature even when the new temperature picks another token: Reveal counts the votes
against the pick it shows. A model is another step (another vocabulary: a token id names another word).
A token the teacher chooses by hand is the teacher's, not the model's pick: it reveals no round.
Back never opens a new round: the pick it hides again was in the text a moment ago.

The room keeps its rounds in one short text (Room.rounds, written by the same compare-and-set as the
rest of the room), a round as 'number:step:status:key':

    >>> format_rounds({"k1": Round(2, 4, KEPT, "k1")})
    '2:4:kept:k1'
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from .store import Room

OPEN, KEPT, REVEALED = "open", "kept", "revealed"
KEY_CHARS = 16  # 64 bits: a room holds at most a few thousand steps, so two never share a key by chance


def step_keys(prompt: str, model: str, ids: Sequence[int], scope: str = "") -> list[str]:
    """The key of each step of a text: keys[j] names step j, the pick of ids[j], by the text before it.

    keys[j] == step_key(prompt, model, ids[:j], scope); one hash carried along, so a long text costs one pass.
    """
    running = hashlib.sha256("\x1f".join(_named(scope, model, prompt, "")).encode("utf-8"))
    keys = []
    for j, token in enumerate(ids):
        keys.append(running.hexdigest()[:KEY_CHARS])
        running.update(f"{',' if j else ''}{token}".encode())
    return keys


def step_key(prompt: str, model: str, before: Sequence[int], scope: str = "") -> str:
    """Name a step by what the class guesses from: the prompt, the model and the ids before the pick, within its
    scope: a lesson's screen ('article#4') asks its own question, even of a step another screen asked about."""
    text = "\x1f".join(_named(scope, model, prompt, ",".join(map(str, before))))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_CHARS]


def _named(scope: str, *parts: str) -> tuple[str, ...]:
    """What a key hashes: the parts, after the scope if there is one (a room's keys without one stay as they were)."""
    return (scope, *parts) if scope else parts


@dataclass(frozen=True)
class Picks:
    """The model's picks on the teacher's screen, by step key: the one hidden, and those anyone can read."""

    hidden: str | None = None  # the key of the step whose pick is hidden, if one is
    hidden_step: int | None = None  # its generation index
    shown: Mapping[str, int] = field(default_factory=dict)  # key -> generation index of each pick in view


def picks(prompt: str, model: str, ids: Sequence[int], forced: Sequence[bool], last_hidden: bool,
          scope: str = "") -> Picks:
    """What a screen of these ids shows of the model's picks: every one in the text, but a hidden last one,
    and none the teacher chose by hand (forced). `scope` as step_key takes it."""
    keys = step_keys(prompt, model, ids, scope)
    last = len(ids) - 1
    hiding = last_hidden and last >= 0
    shown = {keys[j]: j for j in range(len(ids)) if not forced[j] and not (hiding and j == last)}
    return Picks(keys[last] if hiding else None, last if hiding else None, shown)


@dataclass(frozen=True)
class Round:
    number: int
    step: int  # the generation index of the step voted on; -1 for a round an older server opened
    status: str  # OPEN, KEPT or REVEALED
    key: str


def read_rounds(room: Room) -> dict[str, Round]:
    """The room's rounds by step key (a round opened by an older server, which did not list it, among them)."""
    rounds = {}
    for entry in room.rounds.split():
        number, step, status, key = entry.split(":", 3)
        rounds[key] = Round(int(number), int(step), status, key)
    if room.round_open and not any(r.number == room.round for r in rounds.values()):
        rounds[room.round_key] = Round(room.round, -1, OPEN, room.round_key)
    return rounds


def format_rounds(rounds: Mapping[str, Round]) -> str:
    return " ".join(f"{r.number}:{r.step}:{r.status}:{r.key}" for r in sorted(rounds.values(), key=lambda r: r.number))


@dataclass(frozen=True)
class RoundChange:
    """What a new screen does to the vote: the room's new round fields, and the round to count now."""

    round: int
    round_open: bool
    round_key: str
    n_rounds: int
    rounds: str
    revealed: Round | None = None  # the round to count now
    more: bool = False  # another round's pick can be read too: counted by the next change (one at a time)
    new: bool = False  # a round opened that the room never had

    def fields(self) -> dict:
        return {"round": self.round, "round_open": self.round_open, "round_key": self.round_key,
                "n_rounds": self.n_rounds, "rounds": self.rounds}


def next_round(room: Room, screen: Picks, action: str) -> RoundChange:
    """The rounds after the teacher's screen changes to `screen` by `action` ('step', 'back', ...).

    Done again from its own result with the same screen, it changes nothing (but count the next of
    several rounds revealed at once): a change that lost a race, or has more to count, is decided again.
    """
    rounds = read_rounds(room)
    readable = sorted((r for r in rounds.values() if r.status != REVEALED and r.key in screen.shown),
                      key=lambda r: r.number)
    revealed = None
    if readable:
        revealed = rounds[readable[0].key] = replace(readable[0], status=REVEALED, step=screen.shown[readable[0].key])
    voting = screen.hidden if room.votes_on else None
    for key, r in rounds.items():
        if r.status == OPEN and key != voting:
            rounds[key] = replace(r, status=KEPT)
    n_rounds, new = room.rounds_opened, False
    if voting is not None:
        there = rounds.get(voting)
        if there is None and action != "back":
            n_rounds, new = n_rounds + 1, True
            rounds[voting] = Round(n_rounds, screen.hidden_step, OPEN, voting)
        elif there is not None and there.status == KEPT:
            rounds[voting] = replace(there, status=OPEN)
    now_open = next((r for r in rounds.values() if r.status == OPEN), None)
    number = now_open.number if now_open else revealed.number if revealed else room.round
    return RoundChange(round=number, round_open=now_open is not None, round_key=now_open.key if now_open else "",
                       n_rounds=n_rounds, rounds=format_rounds(rounds), revealed=revealed, more=len(readable) > 1,
                       new=new)


def restart_round(room: Room) -> RoundChange | None:
    """The open round started again (the teacher's Reset of the vote): the same step under the next number, with
    no votes; the old number is dropped, and its votes with it (the caller clears them). None if no round is open.

    A new number rather than the same one emptied: every phone sees a round it has not voted on, and a vote sent
    for the old one just before is refused as late, never counted in the new one.
    """
    rounds = read_rounds(room)
    now_open = next((r for r in rounds.values() if r.status == OPEN), None)
    if not room.round_open or now_open is None:
        return None
    number = room.rounds_opened + 1
    rounds[now_open.key] = replace(now_open, number=number)
    return RoundChange(round=number, round_open=True, round_key=now_open.key, n_rounds=number,
                       rounds=format_rounds(rounds), new=True)


def kept_rounds(room: Room) -> list[Round]:
    """The rounds left before their reveal, oldest first (an open one is not among them)."""
    return sorted((r for r in read_rounds(room).values() if r.status == KEPT), key=lambda r: r.number)
