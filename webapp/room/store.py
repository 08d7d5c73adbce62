"""The room store: one small interface, two backends (SQLite on one machine, Redis across several).

Everything a room is lives here, so that any process on any machine can serve any student:

    Room      the teacher's screen (a query string), its version, the vote's round and flags, and every
              round by its step (rounds.py)
    students  id -> nickname, at most max_students a room; the teacher may remove one (remove)
    votes     (round, student) -> token id; a second vote on a round replaces the first
    results   round -> the revealed round's figures (JSON written by the web layer)
    hits      rate-limit counters: hit(key, limit, window) in fixed windows
    buckets   allowances: take(key, ...) from a token bucket that refills at a steady rate
    secret    the key the server signs student ids and teacher keys with (codes.signed_id), made once
              and the same for every process on every machine that shares the store
    lessons   id -> a lesson file a teacher opened or published (webapp/lessons), at most max_lessons,
              each kept `seconds` after it was last kept or read
    texts     id -> the sentences a class model is counted from (a room's, or a pasted text), kept as lessons are
    sentences n -> (student, sentence): what the class wrote while the room was writing (Room.writing), bounded
              per student and per room (inference/class_bigram.py's limits); they expire with the room

A room expires `idle_seconds` after the teacher last changed it: it then reads as missing and
its rows or keys are deleted by the next purge (SQLite) or expire on their own (Redis).

Two operations must be atomic across processes, and are, in both backends:
    update(room, **changes)   compare-and-set on the version the caller read (None if it moved on)
    close_round(...)          the same, and the closed round's votes counted into its result
    vote(...)                 stored only while that round is open and the student is in the room,
                              so that a vote racing the reveal is either counted or refused.
    add_sentence(...)         stored only while the room is writing, from a student in it, within the limits,
                              so that sentences sent at once never make more than the limits allow.

A store that stops answering (a Redis server hung or gone) raises StoreUnavailable within a short
timeout, and then at once until it answers again (breaker.py); whatever a call was changing is left
as it was or changed whole, never half.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import Enum

from ..inference.class_bigram import MAX_SENTENCES, MAX_SENTENCES_PER_STUDENT

DEFAULT_IDLE_SECONDS = 3 * 3600
DEFAULT_MAX_ROOMS = 200  # a school server's busiest hours, each room kept 3 hours after its lesson
DEFAULT_MAX_STUDENTS = 1000  # a lecture hall
MAX_VOTE_CHANGES = 20  # per student and round: the votes' rate limit, kept in the vote itself


@dataclass(frozen=True)
class Room:
    """A room as stored. `state` is the teacher's screen as the stepper's query string."""

    code: str
    key_hash: str
    state: str
    version: int = 1
    action: str = "show"  # what the teacher did last: "step" animates the pick on students' screens
    votes_on: bool = False
    round: int = 0  # the vote's number: the open round, else the last one opened or revealed; 0 before the first
    round_open: bool = False
    round_key: str = ""  # which step the open round is about (see rounds.step_key)
    leaderboard: bool = False
    created: float = 0.0
    touched: float = 0.0
    n_rounds: int = 0  # rounds opened so far: the next new one is n_rounds + 1
    rounds: str = ""  # every round by its step, open, kept or revealed (rounds.py reads and writes it)
    tally_shown: bool = False  # the teacher shows the open round's votes as they come in (hidden by default)
    ended: bool = False  # the teacher ended the lesson: no more votes or changes; students explore on their own
    lesson: str = ""  # the lesson the room plays (a bundled lesson's name, or 'l:' and a kept lesson's id); '' none
    lesson_screen: int = 0  # the screen of that lesson on the teacher's screen, from 0
    topic: str = ""  # what the class writes sentences about ("Write a sentence about school lunch")
    writing: bool = False  # the writing round is open: students' sentences are stored

    @property
    def rounds_opened(self) -> int:
        """How many rounds the room has opened (a room stored before n_rounds was kept knows only its last)."""
        return max(self.round, self.n_rounds)


ROOM_FIELDS = tuple(f.name for f in fields(Room))


class Vote(Enum):
    COUNTED = "counted"
    CLOSED = "closed"  # no such round open: revealed, kept for later (rounds.py), or not begun
    NOT_JOINED = "not joined"
    TOO_MANY = "too many changes"  # the student changed their vote MAX_VOTE_CHANGES times on this round


class Sent(Enum):
    ADDED = "added"
    CLOSED = "closed"  # the room is not writing (the teacher closed the round, or never opened one)
    NOT_JOINED = "not joined"
    STUDENT_FULL = "student full"  # the student has sent MAX_SENTENCES_PER_STUDENT already
    ROOM_FULL = "room full"  # the room holds MAX_SENTENCES


class RoomsFull(Exception):
    """The store holds as many open rooms as it may."""


class StoreUnavailable(Exception):
    """The store is not answering (a timeout, a refused or reset connection): try again in a moment.

    Nothing was changed, or the change was made whole (see close_round); `retry_after` is how long to wait.
    """

    def __init__(self, retry_after: float = 1.0):
        super().__init__(f"the room store is not answering; try again in {retry_after:.0f} s")
        self.retry_after = retry_after

    @property
    def retry_seconds(self) -> int:
        """Retry-After in whole seconds, at least 1: 0.2 -> 1, 4.1 -> 5."""
        return max(1, math.ceil(self.retry_after))


class RoomStore(ABC):
    """What the web layer needs from wherever rooms live."""

    idle_seconds: float

    @abstractmethod
    def create(self, room: Room, max_rooms: int) -> bool:
        """Store a new room; False if its code is taken; RoomsFull if max_rooms are open."""

    @abstractmethod
    def get(self, code: str, now: float) -> Room | None:
        """The room, or None if there is none or it has been idle too long."""

    @abstractmethod
    def version(self, code: str, now: float) -> int | None:
        """The room's version alone: what students poll, so it must be cheap."""

    @abstractmethod
    def update(self, room: Room, now: float, **changes) -> Room | None:
        """Apply changes if the stored version is still room.version; return the room with version + 1."""

    @abstractmethod
    def close_round(self, room: Room, now: float, round_: int, count: Callable[[dict[str, int]], str],
                    **changes) -> Room | None:
        """update(room, now, **changes), and atomically with it save count(votes of round_) as round_'s
        result: no vote slips in between, and nobody sees the round closed but not yet counted."""

    @abstractmethod
    def join(self, code: str, student: str, nickname: str, max_students: int) -> bool:
        """Add a student (or keep one already there); False if the room is full."""

    @abstractmethod
    def nickname(self, code: str, student: str) -> str | None:
        """The student's nickname ('' if none), or None if they are not in the room."""

    @abstractmethod
    def students(self, code: str) -> dict[str, str]:
        """Every student of the room: id -> nickname."""

    @abstractmethod
    def n_students(self, code: str) -> int: ...

    @abstractmethod
    def remove(self, code: str, student: str) -> bool:
        """Take a student out of the room, with their votes on every round not yet counted (a revealed round's
        result stays as it was counted); False if they were not in it. They may join again, as anyone may."""

    @abstractmethod
    def clear_votes(self, code: str, round_: int) -> int:
        """Delete every vote of one round (the teacher reset it); how many there were."""

    @abstractmethod
    def vote(self, code: str, round_: int, student: str, token: int) -> Vote:
        """Store (or replace) the student's vote on round_, if that round is open and the student
        has changed it fewer than MAX_VOTE_CHANGES times."""

    @abstractmethod
    def votes(self, code: str, round_: int) -> dict[str, int]:
        """The votes of one round: student id -> token id."""

    @abstractmethod
    def votes_of(self, code: str, student: str) -> dict[int, int]:
        """One student's votes: round -> token id."""

    @abstractmethod
    def all_votes(self, code: str) -> dict[int, dict[str, int]]:
        """Every vote of the room: round -> student id -> token id."""

    @abstractmethod
    def save_result(self, code: str, round_: int, result: str) -> None: ...

    @abstractmethod
    def results(self, code: str) -> dict[int, str]:
        """The revealed rounds' results as saved: round -> JSON text."""

    @abstractmethod
    def hit(self, key: str, limit: int, window: int, now: float) -> bool:
        """Count one event for key in the current window of `window` seconds; False beyond limit."""

    @abstractmethod
    def take(self, key: str, burst: float, per_second: float, now: float, n: int = 1) -> bool:
        """Take n tokens from key's bucket, which holds `burst` at first and refills at `per_second` up to
        that; False, taking none, if it holds fewer than n. A negative n gives tokens back (up to `burst`).

        Each key keeps its own burst and rate: a caller asks with the same ones every time.
        """

    @abstractmethod
    def secret(self) -> str:
        """The store's signing secret: made at random by the first caller, the same for every later one."""

    @abstractmethod
    def keep_lesson(self, lesson_id: str, text: str, now: float, max_lessons: int, seconds: float) -> bool:
        """Keep a lesson's file under its id for `seconds` from now (again: for `seconds` more); False, keeping
        nothing, if max_lessons others are kept already."""

    @abstractmethod
    def kept_lesson(self, lesson_id: str, now: float, seconds: float) -> str | None:
        """The lesson's file, kept for `seconds` more from now; None if there is none or it expired."""

    @abstractmethod
    def keep_text(self, text_id: str, text: str, now: float, max_texts: int, seconds: float) -> bool:
        """keep_lesson for a class model's sentences, on a shelf of their own (max_texts of them)."""

    @abstractmethod
    def kept_text(self, text_id: str, now: float, seconds: float) -> str | None:
        """kept_lesson for a class model's sentences."""

    @abstractmethod
    def add_sentence(self, code: str, student: str, text: str, now: float,
                     per_student: int = MAX_SENTENCES_PER_STUDENT, most: int = MAX_SENTENCES) -> Sent:
        """Store the student's sentence (already cleaned) after the others, if the room is writing, the student is
        in it, has sent fewer than per_student and the room holds fewer than `most`; else nothing changes."""

    @abstractmethod
    def sentences(self, code: str) -> list[tuple[int, str, str]]:
        """The room's sentences in the order they were sent: (n, student, sentence), n growing, never reused."""

    @abstractmethod
    def remove_sentence(self, code: str, n: int) -> bool:
        """Delete sentence n; False if there was none."""

    @abstractmethod
    def clear_sentences(self, code: str) -> int:
        """Delete every sentence of the room; how many there were."""

    @abstractmethod
    def purge(self, now: float) -> int:
        """Delete rooms idle for longer than idle_seconds; return how many."""

    def close(self) -> None:  # noqa: B027 - optional for backends
        """Let go of connections."""
