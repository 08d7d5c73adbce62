"""Where a lesson comes from: the app's bundled lessons by name, or a file a teacher opened, kept by its id.

A lesson is named by a ref: a bundled lesson's name ('article'), or KEPT and the id of a file kept in the
room store ('l:k3v7a2q9xm'). A kept file is the same lesson on every server that shares the store, for
LESSON_KEEP_SECONDS after it was last opened; the store keeps at most LESSON_MAX_KEPT of them, and one network
may keep LESSON_KEEPS_PER_HOUR a hour (the same file again costs nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from flask import Flask, abort, current_app, g
from werkzeug.datastructures import MultiDict

from ...inference import InferenceError
from ...lessons.bundled import BUNDLED, bundled
from ...lessons.lesson import ID_CHARS, Lesson, dumps, parse
from ...lessons.lesson import lesson_id as lesson_id_of
from ..classroom import room_access as access
from ..i18n.translations import gettext as _
from ..url.parse import parse_state
from ..url.state import PLAYER_KEYS, State

KEPT = "l:"
DEFAULTS = {
    "LESSON_MAX_KEPT": 2000,  # at most 60 KB each: 120 MB at worst
    "LESSON_KEEP_SECONDS": 90 * 86400,  # a term
    "LESSON_KEEPS_PER_HOUR": 60,
}


def configure(app: Flask) -> None:
    for key, value in DEFAULTS.items():
        app.config.setdefault(key, value)


@dataclass(frozen=True)
class Found:
    """A lesson and its ref."""

    ref: str
    lesson: Lesson
    text: str = ""  # a kept lesson's file as kept: written by dumps, or as sent when a newer app wrote it

    @property
    def kept_id(self) -> str | None:
        return self.ref[len(KEPT):] if self.ref.startswith(KEPT) else None


def is_kept_id(text: str) -> bool:
    """Whether text could be a kept lesson's id: 'k3v7a2q9xm' yes, 'article' or '../x' no."""
    return len(text) == ID_CHARS and text.isascii() and text.isalnum() and text.islower()


def find(ref: str, lang: str) -> Found:
    """The lesson a ref names, a bundled one in `lang`; 404 if there is none (or it expired).

    A kept lesson is read from the store (and kept longer) once per request: the work budget, the view and its
    presenters all ask for it.
    """
    if ref in BUNDLED:
        return Found(ref, bundled(ref, lang))
    found = g.setdefault("kept_lessons", {})
    if ref not in found:
        lesson_id = ref[len(KEPT):] if ref.startswith(KEPT) else ""
        text = access.store().kept_lesson(lesson_id, access.now(), seconds()) if is_kept_id(lesson_id) else None
        if text is None:
            abort(404, description=_("there is no lesson at this address: it may have expired (a lesson is kept "
                                     "%(days)s days after it was last opened). Open its file again.", days=days()))
        found[ref] = Found(ref, parse(text), text)
    return found[ref]


def keep(lesson: Lesson, text: str) -> Found:
    """Keep the lesson's file in the store; its ref. 429 if this network kept too many, 503 if the store is full."""
    lesson_id = lesson_id_of(text)
    store = access.store()
    if store.kept_lesson(lesson_id, access.now(), seconds()) is None:
        per_hour = current_app.config["LESSON_KEEPS_PER_HOUR"]
        allowance = access.Allowance("lesson keeps", per_hour, per_hour / 3600)
        if not access.take(allowance):
            abort(429, description=_("too many lessons have been opened from this network in the last hour; "
                                     "wait a few minutes."))
        if not store.keep_lesson(lesson_id, text, access.now(), current_app.config["LESSON_MAX_KEPT"], seconds()):
            access.take(allowance, -1)  # nothing kept: nothing spent
            abort(503, description=_("the server keeps as many lessons as it may; try again later."))
    return Found(KEPT + lesson_id, lesson, text)


def open_file(data: bytes | str) -> Found:
    """Read a lesson file a teacher sent and keep it; a file that is no lesson is refused (400), nothing kept.

    It is kept as dumps writes it (the same lesson, the same text and link, however it was laid out), but a file
    a newer app wrote is kept as it came: a newer app opening its link finds all of it.
    """
    lesson = parse(data)
    if lesson.newer:
        return keep(lesson, data.decode("utf-8") if isinstance(data, bytes) else data)
    return keep(lesson, dumps(lesson))


def screen_state(lesson: Lesson, i: int, lang: str | None, teacher: bool = False) -> State:
    """Screen i's state (from 0) as the stepper reads it, in the player's language and view.

    InferenceError (with its message) if the state cannot be shown here: a model this server lacks, a setting
    out of range. A voted screen is in predict-then-reveal mode: the class guesses before the pick shows.
    """
    screen = lesson.screens[i]
    args = MultiDict([(k, v) for k, v in screen.state if k not in PLAYER_KEYS])
    state = parse_state(args, current_app.extensions["models"], current_app.config["DEFAULT_MODEL"])
    return replace(state, lang=lang, teacher=teacher, guide=False, predict=state.predict or screen.vote)


def screen_problem(lesson: Lesson, i: int) -> InferenceError | None:
    """Why screen i cannot be shown here, or None."""
    try:
        screen_state(lesson, i, None)
    except InferenceError as error:
        return error
    return None


def seconds() -> float:
    return float(current_app.config["LESSON_KEEP_SECONDS"])


def days() -> int:
    return round(seconds() / 86400)
