"""What a lesson's pages show: its screens listed, the bar above a screen being played, the worksheet.

The teacher's notes are in the overview and, in the teacher's view, in the bar: never on a student's page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import quote

from flask import url_for
from markupsafe import Markup

from ...lessons.bundled import every_bundled
from ...lessons.lesson import Lesson
from ..i18n.translations import current_language, error_message
from ..i18n.translations import gettext as _
from ..url.links import public_base
from ..url.paths import path_for
from . import lesson_access as access
from .lesson_access import Found


def lesson_url(found: Found, endpoint: str, **values) -> str:
    """The address of one of the lesson's pages: /lessons/article/3 for a bundled one, /l/k3v7a2q9xm/3 a kept one."""
    where = {"lesson_id": found.kept_id} if found.kept_id else {"name": found.ref}
    return url_for(f"lessons.{endpoint}", **where, **values)


@dataclass(frozen=True)
class ScreenItem:
    """One screen in the lesson's list."""

    number: int  # from 1
    title: str
    question: str
    vote: bool
    notes: str
    play_url: str  # the student's view
    preview_url: str  # the teacher's view, notes shown
    figure_url: str  # the worksheet's small picture of the screen's figures
    problem: str | None  # why this server cannot show it, in the page's language


@dataclass(frozen=True)
class Overview:
    """A lesson's page: what it is, its screens, and the ways to play, print, save and share it."""

    title: str
    about: str
    ref: str
    screens: tuple[ScreenItem, ...]
    newer: str | None  # a file from a newer version of the app: what that means
    file_url: str
    file_name: str
    worksheet_url: str
    play_url: str
    link: str  # the lesson's address for a colleague
    qr_url: str | None  # a kept lesson's QR code
    room_from: str  # the screen a room starts from: the lesson's first


def screens_of(found: Found, lang: str | None) -> tuple[ScreenItem, ...]:
    lesson = found.lesson
    items = []
    for i, screen in enumerate(lesson.screens):
        problem = access.screen_problem(lesson, i)
        items.append(ScreenItem(
            number=i + 1,
            title=screen.title or _("Screen %(n)s", n=i + 1),
            question=screen.question,
            vote=screen.vote,
            notes=screen.notes,
            play_url=lesson_url(found, "play", n=i + 1, lang=lang),
            preview_url=lesson_url(found, "play", n=i + 1, lang=lang, view="teacher"),
            figure_url=lesson_url(found, "figure", n=i + 1, lang=lang),
            problem=error_message(problem) if problem else None,
        ))
    return tuple(items)


def overview(found: Found, lang: str | None) -> Overview:
    lesson = found.lesson
    newer = None
    if lesson.newer:
        newer = _("This file was written by a newer version of this app (lesson format %(version)s). Each screen "
                  "shows what this version understands of it; a screen it cannot show says why.",
                  version=lesson.newer)
    screens = screens_of(found, lang)
    first = next((s for s in screens if not s.problem), None)
    return Overview(
        title=lesson.title,
        about=lesson.about,
        ref=found.ref,
        screens=screens,
        newer=newer,
        file_url=lesson_url(found, "file"),
        file_name=file_name(lesson),
        worksheet_url=lesson_url(found, "worksheet", lang=lang),
        play_url=first.play_url if first else lesson_url(found, "play", n=1, lang=lang),
        link=link(found),
        qr_url=lesson_url(found, "qr_code") if found.kept_id else None,
        room_from=stepper_url(found, first.number - 1) if first else path_for("stepper.show"),
    )


def stepper_url(found: Found, i: int) -> str:
    """Screen i's state on the stepper: what a room started from the lesson's page is charged for. Never in presenter
    mode: the teacher's page opens on the laptop, notes and all (presenter mode is a link away)."""
    return replace(access.screen_state(found.lesson, i, None), present=False).url(path_for("stepper.show"))


def file_name(lesson: Lesson) -> str:
    """'The article's example!' -> 'the-article-s-example.lesson.json'."""
    words = "".join(c.lower() if c.isalnum() else " " for c in lesson.title).split()
    return "-".join(words)[:60].strip("-") + ".lesson.json" if words else "lesson.json"


def attachment(lesson: Lesson) -> str:
    """The Content-Disposition of the lesson's file: its name in any script (RFC 6266), ASCII for old browsers.

    >>> print(attachment(Lesson(title="Temperature", screens=())))
    attachment; filename="temperature.lesson.json"; filename*=UTF-8''temperature.lesson.json
    >>> print(attachment(Lesson(title="温度", screens=())))
    attachment; filename="lesson.json"; filename*=UTF-8''%E6%B8%A9%E5%BA%A6.lesson.json
    """
    name = file_name(lesson)
    plain = name if name.isascii() else "lesson.json"
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"


@dataclass(frozen=True)
class Bar:
    """The bar above a screen played alone: where it is in the lesson, its question, the way on."""

    lesson_title: str
    overview_url: str
    number: int
    n_screens: int
    title: str
    question: str
    vote: bool
    notes: str | None  # the teacher's view only
    previous_url: str | None
    next_url: str | None
    problem: str | None


def bar(found: Found, i: int, lang: str | None, teacher: bool) -> Bar:
    """The bar of screen i (from 0)."""
    lesson = found.lesson
    screen = lesson.screens[i]
    view = "teacher" if teacher else None
    problem = access.screen_problem(lesson, i)
    return Bar(
        lesson_title=lesson.title,
        overview_url=lesson_url(found, "overview", lang=lang),
        number=i + 1,
        n_screens=len(lesson.screens),
        title=screen.title or _("Screen %(n)s", n=i + 1),
        question=screen.question,
        vote=screen.vote,
        notes=screen.notes if teacher else None,
        previous_url=lesson_url(found, "play", n=i, lang=lang, view=view) if i > 0 else None,
        next_url=lesson_url(found, "play", n=i + 2, lang=lang, view=view) if i + 1 < len(lesson.screens) else None,
        problem=error_message(problem) if problem else None,
    )


@dataclass(frozen=True)
class BundledItem:
    name: str
    title: str
    about: str
    n_screens: int
    url: str


def bundled_list(lang: str | None) -> list[BundledItem]:
    """The bundled lessons, in teaching order, in the page's language; `lang` is what their links carry."""
    return [BundledItem(name=name, title=lesson.title, about=lesson.about, n_screens=len(lesson.screens),
                        url=url_for("lessons.overview", name=name, lang=lang))
            for name, lesson in every_bundled(current_language())]


FIGURE_ROWS = 6
FIGURE_ROW_PX = 22
FIGURE_BAR_PX = 150  # the longest bar: the chart's widths are shares of its longest, as on the page


@dataclass(frozen=True)
class FigureRow:
    label: Markup  # escaped
    y: int
    width: float  # px
    prob: str


@dataclass(frozen=True)
class Figure:
    """The worksheet's small picture of a screen: its most likely tokens as bars, or why it cannot be drawn."""

    heading: str
    rows: tuple[FigureRow, ...]
    height: int
    problem: str | None = None


def figure(chart) -> Figure:
    """The chart's first rows as a figure small enough to print six to a page; `chart` None: the screen cannot
    be shown here."""
    if chart is None:
        return Figure(heading="", rows=(), height=FIGURE_ROW_PX, problem=_("This screen cannot be shown here."))
    rows = tuple(
        FigureRow(label=bar.short_label, y=(k + 1) * FIGURE_ROW_PX, width=float(bar.width) * FIGURE_BAR_PX / 100,
                  prob=bar.prob)
        for k, bar in enumerate(chart.bars[:FIGURE_ROWS])
    )
    return Figure(heading=str(chart.heading), rows=rows, height=(len(rows) + 1) * FIGURE_ROW_PX + 6)


def link(found: Found) -> str:
    """The lesson's address for a colleague, by the address students reach this server at."""
    return public_base() + lesson_url(found, "overview")
