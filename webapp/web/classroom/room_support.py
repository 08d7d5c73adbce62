"""What the room's views share: the store, the checks on every change, and the room's screens.

Every change to a room is a POST that must come from this site (its Origin, or failing that its
Referer, names this host) and carry the teacher's key (an HttpOnly, SameSite=Strict cookie sent to
the room's path only, never in a URL or a page) or a student's id (an HttpOnly cookie named after the
room, so that joining the same room again keeps the same student): ids the server signed for the
room, checked in room_access.py, which also counts who asks for which room.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, urlsplit

from flask import Flask, abort, current_app, request, url_for
from werkzeug.datastructures import MultiDict

from ...inference import get_model
from ...inference.errors import N_
from ...room.rounds import kept_rounds
from ...room.store import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_MAX_ROOMS,
    DEFAULT_MAX_STUDENTS,
    Room,
)
from ...room.votes import Place, RoundResult, in_reveal_order, leaderboard, record, running
from ..i18n.translations import current_language, lang_param
from ..i18n.translations import gettext as _
from ..serving import hosts
from ..stages.screen import take_step
from ..url.links import public_base
from ..url.parse import parse_state
from ..url.state import FORCED, InvalidInput, State, state_model
from . import sentences_view
from .room_access import STUDENT_COOKIE as STUDENT_COOKIE
from .room_access import TEACHER_COOKIE as TEACHER_COOKIE
from .room_access import find_room, knows_room, now, store
from .room_access import student_id as student_id
from .room_access import teacher_room as teacher_room

ROOM_COOKIE = "tbt_room"  # not secret: lets the ordinary stepper offer "Follow the teacher"

DEFAULTS = {
    "ROOM_IDLE_SECONDS": DEFAULT_IDLE_SECONDS,
    "ROOM_MAX_ROOMS": DEFAULT_MAX_ROOMS,
    "ROOM_MAX_STUDENTS": DEFAULT_MAX_STUDENTS,
    "ROOM_MAX_ROUNDS": 1000,  # per room: a vote every 3.6 s for an hour
    "ROOM_MAX_VOTES": 50_000,  # per room, its rounds x its students: a lecture hall of 1,000 votes 50 times
    # per network (an IPv4 address, an IPv6 /56), each a token bucket: so many at once, then a steady rate
    "ROOM_JOINS_AT_ONCE": 400,  # a class of 300 behind one school NAT joins in the same minute
    "ROOM_JOINS_PER_SECOND": 2,  # and a lecture hall of 1,000 within five minutes
    "ROOM_STARTS_PER_HOUR": 20,  # a school's teachers behind one NAT, each restarting a room a few times
    "ROOM_FAILED_LOOKUPS_PER_MINUTE": 30,  # wrong codes: a class mistyping stays under it, guessing is hopeless
    "ROOM_CHANGES_PER_MINUTE": 600,  # per room, by the teacher (auto-play at its fastest is 120)
}


def configure(app: Flask) -> None:
    """Set the room's limits the app's config does not set."""
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)


def check_origin() -> None:
    """Refuse a POST that another site's page made (an Origin, or failing that a Referer, on an address this server
    does not answer as: serving/hosts.py), or that says nothing of where it came from."""
    source = request.headers.get("Origin") or request.headers.get("Referer")
    if not source or source == "null":
        abort(403, description=_("this change must come from a page of this site (the request has no Origin)."))
    if not hosts.from_this_site(source):
        abort(403, description=_("this change must come from a page of this site, not from another address."))


def limit(key: str, per_minute: int) -> None:
    if not store().hit(key, per_minute, 60, now()):
        abort(429, description=_("too many requests; wait a minute and try again."))


def students_allowed(room: Room) -> int:
    """How many students the room may hold: ROOM_MAX_STUDENTS, and its rounds x students within ROOM_MAX_VOTES."""
    config = current_app.config
    return min(config["ROOM_MAX_STUDENTS"], config["ROOM_MAX_VOTES"] // max(room.rounds_opened, 1))


def rounds_allowed(room: Room) -> int:
    """How many rounds the room may hold: ROOM_MAX_ROUNDS, and its rounds x students within ROOM_MAX_VOTES."""
    config = current_app.config
    return min(config["ROOM_MAX_ROUNDS"], config["ROOM_MAX_VOTES"] // max(store().n_students(room.code), 1))


def room_cookie_path(code: str) -> str:
    return f"/room/{code}"


def secure() -> bool:
    return request.scheme == "https"


# --- the room's screen -------------------------------------------------------------------------

def state_of(room: Room) -> State:
    """The teacher's screen as the stepper's State (checked again: models can change on a restart)."""
    models = current_app.extensions["models"]
    return parse_state(MultiDict(parse_qsl(room.state, keep_blank_values=True)), models,
                       current_app.config["DEFAULT_MODEL"])


def stored_state() -> State | None:
    """The state the room named in the URL stores, which its pages show (the work budget charges it);
    None for a request that does not know the room: its view answers without asking the store."""
    code = request.view_args["code"]
    return state_of(find_room(code)) if knows_room(code) else None


def read_url(url: str) -> tuple[State, bool]:
    """The state in a stepper URL's query, and whether the URL is a Step from it."""
    try:
        parts = urlsplit(url)
    except ValueError:  # 'http://[::1/?x': a bracket left open
        raise InvalidInput(N_("the screen's address cannot be read: %(value)s"), value=repr(url[:40])) from None
    state = parse_state(MultiDict(parse_qsl(parts.query, keep_blank_values=True)), current_app.extensions["models"],
                        current_app.config["DEFAULT_MODEL"])
    return state, parts.path == url_for("stepper.step")


def state_from_url(url: str) -> State:
    """The screen a stepper URL shows, for students: no presenter mode or guide, the student's view.

    '/?prompt=...&ids=4,2,9' is that state; '/step?...&ids=4,2&predict=1' is the address of a hidden
    pick (views.public_url), the screen after Step from it: the pick is taken again, the same one.
    """
    state, is_step = read_url(url)
    if is_step:
        state, _ = take_step(current_app.extensions["models"], state)
    return replace(state, present=False, guide=False, teacher=False)


def encode_state(state: State) -> str:
    return state.query_string()


@dataclass(frozen=True)
class Lesson:
    """A room's revealed rounds and what they add up to."""

    results: list[RoundResult]

    @property
    def last(self) -> RoundResult | None:
        return self.results[-1] if self.results else None

    @property
    def running(self):
        return running(self.results)

    def record(self, my_votes: dict[int, int]):
        return record(my_votes, self.results)


def lesson(room: Room) -> Lesson:
    """The room's revealed rounds, read once per version in each process (results change only with it)."""
    lessons = current_app.extensions.setdefault("room_lessons", LRU(256))
    kept = lessons.get((room.code, room.version))
    if kept is None:
        kept = Lesson(in_reveal_order([RoundResult.from_json(text) for text in store().results(room.code).values()]))
        lessons.put((room.code, room.version), kept)
    return kept


def join_url(code: str) -> str:
    """The address students open: by the LAN address when the teacher is on localhost, as the share link."""
    return public_base() + url_for("room.join_form", code=code)


@dataclass(frozen=True)
class Attendance:
    """Who is in the room and, while a vote is open, who has voted on it and for what."""

    students: dict[str, str]  # student id -> nickname
    votes: dict[str, int] | None  # student id -> token id on the open round; None: no vote open

    @property
    def n_students(self) -> int:
        return len(self.students)

    @property
    def n_votes(self) -> int | None:
        return None if self.votes is None else len(self.votes)


def attendance(room: Room) -> Attendance:
    votes = store().votes(room.code, room.round) if room.round_open else None
    return Attendance(students=store().students(room.code), votes=votes)


def student_handle(student: str) -> str:
    """What the teacher's page names a student by (to remove them): not their id, which would let the page
    act as them. 'Xq3…' -> 'a1b2c3d4e5f60718'."""
    return hashlib.sha256(student.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class KeptNote:
    """A vote the teacher left before its reveal: it waits, with its votes, for its step to come back."""

    round: int
    step: int  # counted from 1
    n_votes: int


def kept_note(room: Room) -> KeptNote | None:
    """The latest round kept while no round is open, for the panel to say it is not lost (rounds.py); None if it has
    no vote yet (a lesson's voted screen left before anyone voted: nothing to lose)."""
    if room.round_open or room.ended:
        return None
    kept = kept_rounds(room)
    if not kept:
        return None
    last = kept[-1]
    n_votes = len(store().votes(room.code, last.number))
    return KeptNote(last.number, last.step + 1, n_votes) if n_votes else None  # no vote, nothing to keep


def board(room: Room, lesson: Lesson) -> list[Place] | None:
    """The leaderboard over the revealed rounds, when the teacher shows it and a round has been revealed."""
    if not (room.leaderboard and lesson.results):
        return None
    return leaderboard(store().all_votes(room.code), lesson.results, store().students(room.code))


def sentences_panel(room: Room, presenting: bool) -> sentences_view.SentencesPanel:
    """The teacher's list of the class's sentences; nicknames read only when the leaderboard may show them."""
    return sentences_view.panel(room, store().sentences(room.code),
                                store().students(room.code) if room.leaderboard else {}, presenting)


def model_of(state: State):
    return state_model(current_app.extensions["models"], state)


def room_model(room: Room):
    """The model on the teacher's screen, without reading the whole state (a vote needs only this)."""
    name = dict(parse_qsl(room.state)).get("model", "").strip() or current_app.config["DEFAULT_MODEL"]
    return get_model(current_app.extensions["models"], name)


class LRU:
    """A small thread-safe least-recently-used map."""

    def __init__(self, size: int):
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def get(self, key):
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key, item) -> None:
        with self._lock:
            self._items[key] = item
            while len(self._items) > self.size:
                self._items.popitem(last=False)


# --- the students' screen, built once per version ---------------------------------------------

# Rooms x languages, the latest version of each: a kept screen of SmolLM2 (its step's arrays over the
# vocabulary, the inside panel's) holds about 5 MB, the transformer's under 1 MB.
KEPT_STUDENT_SCREENS = 16


def student_screen_key(room: Room) -> tuple:
    """Whose students' screen: the room's, in the page's language (and whether the URL chose it: its links then
    carry lang=). The version it shows is kept beside it."""
    return room.code, current_language(), lang_param()


def kept_student_screen(room: Room) -> dict | None:
    """The students' screen of the room's version in the request's language, if this process has built it."""
    kept = current_app.extensions.setdefault("student_screens", LRU(KEPT_STUDENT_SCREENS)).get(student_screen_key(room))
    return kept[1] if kept is not None and kept[0] == room.version else None


def student_screen(room: Room, build: Callable[[], dict]) -> dict:
    """The students' screen of the room's version (what `build` makes: the forward pass and the panels' views),
    built by the first student asking in this process and kept for the others, until the teacher's next change:
    a reload costs what a poll does."""
    kept = kept_student_screen(room)
    if kept is None:
        kept = build()
        current_app.extensions["student_screens"].put(student_screen_key(room), (room.version, kept))
    return kept


def unkept_screen_state() -> State | None:
    """The state the work budget charges a student's page of the room named in the URL: none when its
    screen is kept (nothing is computed) or the request is no student's of the room, else the room's stored state."""
    code = request.view_args["code"]
    if not knows_room(code):
        return None  # its view refuses it without asking the store, whether the room is open or not
    room = find_room(code)
    return None if kept_student_screen(room) is not None else state_of(room)


# --- what a room's POST is charged for --------------------------------------------------------

def screen_from_url(url: str) -> State:
    """The screen a stepper URL shows, found without running it (for the work budget): the state of '/?...';
    for '/step?...&ids=4,2', the screen after that Step, whose pick is not known yet: ids (4, 2, 0), the
    last a stand-in (the step on screen reads the ids before it, and the budget reads only how many)."""
    state, is_step = read_url(url)
    return state.branched(len(state.ids), 0, FORCED) if is_step else state


def posted_screen(field: str) -> Callable[[], State]:
    """What finds the screen the stepper URL posted in `field` shows: a room's POST is charged for the screen it
    stores, as `/` would be for it, so that a room never holds a screen its pages would refuse."""
    return lambda: screen_from_url(request.form.get(field, ""))
