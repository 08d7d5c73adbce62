"""A student's part of the room: the line that says whom they follow, the ballot, their vote and record.

A student's screen is the teacher's (the stages' panels) with, above it, a line naming the room and
the step, the ballot while a vote is open (the model's top tokens in alphabetical order, so that the
list does not give the ranking away, and a field for a typed word), and their own part: the vote
they cast on the open step and their guesses on the revealed ones. The join form is here too.

While the step on the teacher's screen hides its pick, the panels show it hidden, as the teacher's
do, and every link and form of a student's screen carries the text before that step (links_for_class):
the pick is in nothing a student receives until Reveal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from flask import url_for
from markupsafe import Markup

from ...inference import LanguageModel
from ...room import codes
from ...room.guess import guessable
from ...room.store import Room
from ...room.votes import Guess
from ..i18n.labels import token_labels
from ..i18n.translations import lang_param
from ..i18n.translations import template_gettext as _
from ..stages.screen import Screen
from ..url.links import public_url
from ..url.state import State
from .sentences_view import MySentences

N_BALLOT = 8  # top tokens offered on the ballot
N_GUESSES = 8  # a student's latest guesses listed


def round_status(room: Room) -> str:
    """'3-open' while students vote on round 3, '3-closed' after: room.js then asks for the record; '3-ended' once
    the teacher has ended the lesson: room.js stops following.

    >>> round_status(Room(code="K7QM3XPA", key_hash="", state="", round=3, round_open=True))
    '3-open'
    """
    if room.ended:
        return f"{room.round}-ended"
    return f"{room.round}-{'open' if room.round_open else 'closed'}"


def links_for_class(state: State) -> State:
    """The state a student's links and forms carry: the teacher's; while the step on screen hides its pick, the text
    before that step, shown revealed as the class last saw it, with an r of the class's own for a Step of theirs
    (the seeded r would take the same pick again).

    ids=(4, 2, 9), predict, 9 hidden -> ids=(4, 2), predict, reveal, r=class_r; revealed, or no predict: the state.
    """
    if not state.predict or state.revealed or state.on_screen is None:
        return state
    before = state.truncated(state.on_screen)
    r = class_r(state.settings.seed, state.on_screen)
    return replace(before, revealed=bool(before.ids), next_r=r, near=None)  # `near` may point past the shorter text


def class_r(seed: int, step: int) -> float:
    """An r in [0, 1) of four digits for step i, the same on every server (a page and its poll agree), drawn apart
    from the seeded r of the step (default_rng([seed, i])), which picked the teacher's token.

    >>> class_r(7, 2) == class_r(7, 2) != class_r(7, 3)
    True
    """
    return random.Random(f"class room {seed} {step}").randrange(10_000) / 10_000


def screen_for_class(screen: Screen) -> Screen:
    """The teacher's screen as students get it: the same panels, the links of links_for_class."""
    return replace(screen, links=links_for_class(screen.state))


@dataclass(frozen=True)
class StudentPage:
    """The student's page around the panels: its title's code, and what room.js polls."""

    display_code: str
    screen_url: str  # the teacher's screen as panels: 304 while it has not changed
    me_url: str  # the student's own part, asked for after a reveal
    etag: str  # the room's version the page shows
    round_status: str


def page(room: Room) -> StudentPage:
    return StudentPage(
        display_code=codes.display_code(room.code),
        screen_url=url_for("room.follow_screen", code=room.code, lang=lang_param()),
        me_url=url_for("room.me", code=room.code),
        etag=f"{room.code}-{room.version}",
        round_status=round_status(room),
    )


@dataclass(frozen=True)
class RoomStatus:
    """The line above a student's panels: the room followed, the step on screen, the way out and back."""

    display_code: str
    step: int | None  # the step on screen, counted from 1; None before the first
    explore_url: str  # the teacher's screen on the ordinary stepper
    follow_url: str  # this page again, for a browser without JavaScript
    ended: bool  # the teacher ended the lesson: the line says so, and exploring is what is left


def status(room: Room, screen: Screen) -> RoomStatus:
    return RoomStatus(
        display_code=codes.display_code(room.code),
        step=screen.on_screen + 1 if screen.taken else None,
        explore_url=public_url(screen.links),
        follow_url=url_for("room.follow", code=room.code),
        ended=room.ended,
    )


@dataclass(frozen=True)
class BallotToken:
    id: int
    label: Markup
    chosen: bool = False  # the student's vote on this step


@dataclass(frozen=True)
class Ballot:
    """The ballot: the tokens offered and the field for a word while a vote is open; else a note.

    The class's ballot is the same for every student (kept with the screen); each student's page marks their
    own vote on it (with_choice).
    """

    open: bool
    waiting: bool  # class votes are on but no vote is open: the teacher's next Step starts one
    votes_off: bool  # class votes are off: the note says where the guesses will come
    vote_url: str
    room_url: str  # the student's screen, where a refusal without JavaScript leads back to
    round: int
    tokens: tuple[BallotToken, ...]  # in alphabetical order


def ballot(room: Room, screen: Screen) -> Ballot:
    labels = screen.labels
    return Ballot(
        open=room.round_open,
        waiting=room.votes_on and not room.round_open and not room.ended,
        votes_off=not room.votes_on and not room.round_open and not room.ended,
        vote_url=url_for("room.vote", code=room.code),
        room_url=url_for("room.follow", code=room.code),
        round=room.round,
        tokens=tuple(BallotToken(id=i, label=labels[i]) for i in ballot_tokens(screen)) if room.round_open else (),
    )


def with_choice(ballot: Ballot, token: int | None) -> Ballot:
    """The ballot with the student's vote marked (none: as it is)."""
    if token is None:
        return ballot
    return replace(ballot, tokens=tuple(replace(t, chosen=t.id == token) for t in ballot.tokens))


def ballot_tokens(screen: Screen) -> list[int]:
    """The ballot's top tokens that a guess may be (no <unk>, no special token: room/guess.py), in alphabetical
    order so that the list does not give the ranking away.

    Ties in letters (case aside) go by id: 'The' (id 7) before 'the' (id 12).
    """
    top = screen.result.rows[: screen.result.n_top]  # not the rows added under them for the pick (Screen)
    ids = guessable(screen.model, (row.id for row in top))[:N_BALLOT]
    labels = screen.labels
    return sorted(ids, key=lambda i: (labels[i].lower(), i))


@dataclass(frozen=True)
class MyVote:
    """The line that says the student's vote on the open step."""

    token: Markup | None  # the token voted for; None if no vote (or none open)
    token_id: int | None  # its id: room.js marks its button on the ballot after a vote sent with htmx
    not_yet: bool  # a vote is open and the student has not voted


def my_vote(room: Room, token: int | None, model: LanguageModel) -> MyVote:
    return MyVote(
        token=None if token is None else token_labels(model)[token],
        token_id=token,
        not_yet=token is None and room.round_open,
    )


def refused_vote_lead(kept: Markup | None) -> Markup:
    """A refused vote's first words, in place of the stepper's "Not changed:": what became of the student's vote."""
    if kept is None:
        return _("Your vote was not counted:")
    return _("Your vote stays '%(token)s':", token=kept)


@dataclass(frozen=True)
class GuessLine:
    """One revealed step the student guessed at."""

    step: int  # counted from 1
    guess: Markup
    picked: Markup
    hit: bool


@dataclass(frozen=True)
class StudentRecord:
    """The student's own part: their vote on the open step, and their guesses so far."""

    nickname: str  # '' for none
    vote: MyVote
    n_guesses: int
    n_hits: int
    guesses: tuple[GuessLine, ...]  # the latest N_GUESSES, newest first
    sentences: MySentences | None = None  # the sentences they sent in the room's writing round


def record(
    room: Room, *, nickname: str | None, my_votes: dict[int, int], guesses: Sequence[Guess], model: LanguageModel,
    sentences: MySentences | None = None,
) -> StudentRecord:
    """A student's part, from their votes by round and their guesses on the revealed rounds (oldest first)."""
    labels = token_labels(model)
    latest = [
        GuessLine(step=g.step + 1, guess=labels[g.guess], picked=labels[g.picked], hit=g.hit)
        for g in reversed(guesses[-N_GUESSES:])
    ]
    return StudentRecord(
        nickname=nickname or "",
        vote=my_vote(room, my_votes.get(room.round) if room.round_open else None, model),
        n_guesses=len(guesses),
        n_hits=sum(g.hit for g in guesses),
        guesses=tuple(latest),
        sentences=sentences,
    )


@dataclass(frozen=True)
class JoinForm:
    """The join form: the code (from the QR code, or as typed), the nickname, and what went wrong."""

    code: str
    nickname: str
    message: str | None
    max_nickname: int
    removed: bool = False  # the teacher took this browser's student out of the room: the form says so


def join_form(code: str, nickname: str = "", message: str | None = None, removed: bool = False) -> JoinForm:
    return JoinForm(code=code, nickname=nickname, message=message, max_nickname=codes.MAX_NICKNAME, removed=removed)
