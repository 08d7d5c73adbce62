"""A lesson played in a class room: its screen's question for the class, and the teacher's panel part for it.

The notes and "screen 4 of 12" are the teacher's: the panel (and never presenter mode) shows them; a student's
page gets the title and question alone, in the student's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from werkzeug.exceptions import HTTPException

from ..i18n.translations import current_language, error_message
from ..i18n.translations import gettext as _
from . import lesson_access as access
from .lesson_access import Found
from .lesson_view import BundledItem, bundled_list, lesson_url


@dataclass(frozen=True)
class ClassQuestion:
    """What the class is asked on the room's screen: on the projector and every phone, in each one's language."""

    title: str
    question: str


def playing(ref: str, i: int, lang: str) -> tuple[Found, int] | None:
    """The lesson a room plays and its screen; None if it plays none, or its lesson has expired meanwhile."""
    if not ref:
        return None
    try:
        found = access.find(ref, lang)
    except HTTPException:
        return None
    return (found, i) if 0 <= i < len(found.lesson.screens) else None


def class_question(ref: str, i: int) -> ClassQuestion | None:
    """Screen i's title and question, or None (no lesson; a screen this server cannot show: the class keeps the
    screen it had, and no question that is not about it)."""
    played = playing(ref, i, current_language())
    if played is None or access.screen_problem(played[0].lesson, i):
        return None
    screen = played[0].lesson.screens[i]
    return ClassQuestion(title=screen.title, question=screen.question)


@dataclass(frozen=True)
class RoomLesson:
    """The lesson part of the teacher's room panel: where the lesson is, its question and notes, the way on.

    The notes and "screen 4 of 12" are the teacher's: presenter mode (the projector) leaves them out."""

    title: str
    number: int  # from 1
    n_screens: int
    screen_title: str
    question: str
    vote: bool
    notes: str
    problem: str | None
    go_url: str  # POST to=N: show screen N (from 1)
    previous: int | None
    next: int | None
    overview_url: str


@dataclass(frozen=True)
class LessonChoice:
    """The form that starts a lesson in the room: a bundled lesson, or one a teacher opened, by its link."""

    url: str
    lessons: tuple[BundledItem, ...]


def room_lesson(ref: str, i: int, go_url: str) -> RoomLesson | None:
    played = playing(ref, i, current_language())
    if played is None:
        return None
    found = played[0]
    screen = found.lesson.screens[i]
    problem = access.screen_problem(found.lesson, i)
    n = len(found.lesson.screens)
    return RoomLesson(
        title=found.lesson.title,
        number=i + 1,
        n_screens=n,
        screen_title=screen.title or _("Screen %(n)s", n=i + 1),
        question=screen.question,
        vote=screen.vote,
        notes=screen.notes,
        problem=error_message(problem) if problem else None,
        go_url=go_url,
        previous=i if i > 0 else None,
        next=i + 2 if i + 1 < n else None,
        overview_url=lesson_url(found, "overview"),
    )


def lesson_choice(url: str) -> LessonChoice:
    return LessonChoice(url=url, lessons=tuple(bundled_list(None)))
