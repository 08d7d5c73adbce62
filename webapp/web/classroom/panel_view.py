"""The teacher's room panel: how students join, how many are in, the class's settings, the last vote's results.

The panel shows the room's code (as it is read aloud: 'K7QM-3XPA'), the address and QR code students
join by, how many students are in and how many have voted on the open step (a line the teacher's page
refreshes every second), the buttons that turn class votes and the leaderboard on or off, the link in
and out of presenter mode, and, once a vote has been revealed, its results (results_view.py).

The join screen is the same code, QR code and address made large for the back row, with what to do when
phones cannot open the address (the server on 127.0.0.1: url/share.py's reach). A room opens on it; the
teacher puts it away to start the lesson and brings it back for latecomers. Whether it is up travels in
the teacher's page's address (join=1), beside presenter mode (present=1): the links and the settings form
keep both, and so does the panel the page gets back after each change it sends (room.js sends them).
From /room/CODE/panel the panel comes without either, and without the presenter-mode link.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import url_for
from markupsafe import Markup

from ...inference import LanguageModel
from ...room import codes
from ...room.store import Room
from ...room.votes import Place, tally
from ..i18n.filters import thousands
from ..i18n.labels import token_labels
from ..lessons.lesson_in_room import LessonChoice, RoomLesson
from ..url.links import public_url
from ..url.share import reach
from ..url.state import State
from . import results_view
from .results_view import RoundResults
from .room_support import Attendance, KeptNote, Lesson, join_url, student_handle


@dataclass(frozen=True)
class TallyBar:
    """One token's column of the live tally: its label, its votes, its bar's height in % of the tallest."""

    token: int
    label: Markup
    votes: int
    height: str  # '%.1f'
    top: str  # 100 - height: where the bar starts in its column, drawn from 0 at the top


@dataclass(frozen=True)
class LiveCounts:
    """The line the teacher's page refreshes: students in the room, how many have voted on the open step, and,
    when the teacher shows it, the votes so far token by token (the live tally; names never)."""

    url: str  # where the page asks for the line again
    n_students: int
    students: str  # n_students as the locale writes it
    voting: bool  # a vote is open: the line counts its votes
    n_votes: int
    votes: str
    tally_shown: bool  # the teacher shows the tally (hidden by default: early votes would sway the rest)
    tally: tuple[TallyBar, ...]  # the most voted tokens, most votes first, while the tally is shown
    other_votes: int  # votes for tokens beyond those


@dataclass(frozen=True)
class RosterEntry:
    handle: str  # what the remove button names the student by (room_support.student_handle)
    nickname: str  # '' if the student gave none
    voted: bool  # on the open step


@dataclass(frozen=True)
class Roster:
    """Who is in the room and who has voted on the open step: on the teacher's laptop, never in presenter mode."""

    url: str  # where the page asks for it again
    remove_url: str
    entries: tuple[RosterEntry, ...]  # by nickname, those without one last
    voting: bool


@dataclass(frozen=True)
class RoomPanel:
    """The teacher's room panel, every address and figure written out."""

    display_code: str  # 'K7QM-3XPA'
    join_url: str  # 'http://192.168.1.20:8000/join?code=K7QM3XPA'
    join_address: str  # the same without its query, as the panel prints it
    qr_url: str
    settings_url: str
    publish_url: str  # where the teacher's page sends each new screen (room.js)
    live: LiveCounts
    votes_on: bool
    leaderboard: bool
    present: bool  # the teacher's page is in presenter mode: the settings form keeps it
    presenter_url: str | None  # the link into or out of presenter mode; None in the panel sent alone
    joining: bool  # the join screen is up: the settings form and the presenter-mode link keep it
    join_url_shown: str  # this page with the join screen up ('Show how to join')
    join_url_hidden: str  # this page without it ('Start the lesson')
    loopback: bool  # phones cannot open join_url (the server is on 127.0.0.1): the join screen says what to do
    command_words: tuple[str, ...]  # the command that serves the room's network, word by word
    lan_address: str | None  # what students type once it does: 'http://192.168.1.20:8000/join'; None without a network
    step_hint: bool  # class votes are on and no vote has begun yet: the panel says how one begins
    tally_shown: bool
    round_open: bool
    restart_url: str  # start the open vote again, without its votes
    end_url: str
    ended: bool  # the teacher ended the lesson: the panel says so, and offers nothing more to change
    stepper_url: str  # the room's screen on the ordinary stepper, where the teacher goes on without the class
    roster: Roster | None  # None in presenter mode (names stay off the projector) and once the lesson has ended
    kept: KeptNote | None  # the last vote left before its reveal, waiting for its step to come back
    results: RoundResults | None  # the last revealed round
    results_on_screen: bool  # ... and the screen shows its step revealed: presenter mode puts them in front
    lesson: RoomLesson | None = None  # the lesson the room plays, if one
    lesson_choice: LessonChoice | None = None  # the form that starts one, when none plays (never in presenter mode)


def present(
    room: Room,
    *,
    attendance: Attendance,
    lesson: Lesson,
    board: list[Place] | None,
    model: LanguageModel,
    presenting: bool | None = None,
    joining: bool = False,
    on_screen: State | None = None,
    kept: KeptNote | None = None,
    played: RoomLesson | None = None,
    choice: LessonChoice | None = None,
) -> RoomPanel:
    """The room panel; `presenting` is whether the teacher's page is in presenter mode, None for the panel alone;
    `joining` whether its join screen is up; `on_screen` the teacher's screen as the room stores it."""
    last = lesson.last
    url = join_url(room.code)
    who = reach()
    return RoomPanel(
        display_code=codes.display_code(room.code),
        join_url=url,
        join_address=url.split("?")[0],
        qr_url=url_for("room.qr_code", code=room.code),
        settings_url=url_for("room.settings", code=room.code),
        publish_url=url_for("room.publish", code=room.code),
        live=live(room, attendance, model),
        votes_on=room.votes_on,
        leaderboard=room.leaderboard,
        present=bool(presenting),
        presenter_url=None if presenting is None else presenter_url(room, presenting, joining),
        joining=joining,
        join_url_shown=teach_url(room, bool(presenting), joining=True),
        join_url_hidden=teach_url(room, bool(presenting), joining=False),
        loopback=who.loopback,
        command_words=tuple(who.command.split()),
        lan_address=who.address.rstrip("/") + urlsplit(url).path if who.address else None,
        step_hint=shows_step_hint(room, lesson) and kept is None,  # the kept vote's line says more
        tally_shown=room.tally_shown,
        round_open=room.round_open,
        restart_url=url_for("room.restart_vote", code=room.code),
        end_url=url_for("room.end", code=room.code),
        ended=room.ended,
        stepper_url=public_url(on_screen) if on_screen is not None else url_for("stepper.show"),
        roster=None if presenting or room.ended else roster(room, attendance),
        kept=kept,
        results=results_view.present(last, running=lesson.running, board=board, model=model) if last else None,
        results_on_screen=shows_results_on_screen(room, lesson, on_screen),
        lesson=played,
        lesson_choice=None if played or presenting or room.ended else choice,
    )


MAX_TALLY = 6  # columns of the live tally: the rest are counted as "other tokens"


def live(room: Room, attendance: Attendance, model: LanguageModel) -> LiveCounts:
    """The line of counts: 12 students, and 7 of them voted while a vote is open, with the tally if shown."""
    n_votes = attendance.n_votes
    counts = tally(attendance.votes or {})
    shown = room.tally_shown and n_votes is not None
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:MAX_TALLY] if shown else []
    labels = token_labels(model, results_view.LABEL_LENGTH) if top else ()
    most = max((votes for _token, votes in top), default=1)
    return LiveCounts(
        url=url_for("room.live", code=room.code),
        n_students=attendance.n_students,
        students=thousands(attendance.n_students),
        voting=n_votes is not None,
        n_votes=n_votes or 0,
        votes=thousands(n_votes or 0),
        tally_shown=room.tally_shown,
        tally=tuple(tally_bar(token, labels[token], votes, most) for token, votes in top),
        other_votes=(n_votes or 0) - sum(votes for _token, votes in top) if shown else 0,
    )


def tally_bar(token: int, label: Markup, votes: int, most: int) -> TallyBar:
    height = 100 * votes / most
    return TallyBar(token, label, votes, f"{height:.1f}", f"{100 - height:.1f}")


def roster(room: Room, attendance: Attendance) -> Roster:
    voted = attendance.votes or {}
    entries = sorted(
        (RosterEntry(student_handle(student), nickname, student in voted)
         for student, nickname in attendance.students.items()),
        key=lambda e: (not e.nickname, e.nickname.casefold(), e.handle),
    )
    return Roster(url=url_for("room.roster", code=room.code), remove_url=url_for("room.remove", code=room.code),
                  entries=tuple(entries), voting=attendance.votes is not None)


def teach_url(room: Room, presenting: bool, joining: bool) -> str:
    """The teacher's page: '/room/K7QM3XPA/teach?present=1&join=1' in presenter mode with the join screen up."""
    return url_for("room.teach", code=room.code, present="1" if presenting else None, join="1" if joining else None)


def presenter_url(room: Room, presenting: bool, joining: bool = False) -> str:
    """The teacher's page in the other mode: out of presenter mode when in it, into it when not; the join screen
    stays as it is."""
    return teach_url(room, not presenting, joining)


def shows_step_hint(room: Room, lesson: Lesson) -> bool:
    """Whether the panel says how a vote begins: class votes on, no vote open, none revealed yet."""
    return room.votes_on and not room.round_open and lesson.last is None


def shows_results_on_screen(room: Room, lesson: Lesson, screen: State | None) -> bool:
    """Whether the screen shows the step of the last revealed vote, revealed, with no vote open (after Reveal)."""
    last = lesson.last
    if last is None or screen is None or room.round_open:
        return False
    return screen.on_screen == last.step and not screen.pick_hidden
