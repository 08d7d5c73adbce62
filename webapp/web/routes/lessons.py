"""Lessons: the bundled ones, a file a teacher opens, each screen played alone, the worksheet, the file itself.

GET  /lessons                      the bundled lessons, "Open a lesson file", "Write a lesson"
GET  /lessons/edit                 the editor: a lesson written in this browser (static/js/lesson_editor.js)
GET  /lessons/screen?STATE         a screen of it, opened from the editor (at its public address)
POST /lessons/read                 a lesson file's text, read as this app reads it (the editor opens files so)
POST /lessons/open                 a lesson file (uploaded, or the editor's text): kept, then its page (303)
GET  /lessons/NAME, /l/ID          a lesson's page: its screens, play, print, save, share
GET  .../N                         screen N played alone (view=teacher: with the teacher's notes)
GET  .../worksheet                 the worksheet to print; .../N/figure.svg its pictures
GET  .../file                      the lesson file; /l/ID/qr.svg a kept lesson's QR code

A bundled lesson is named by its name; a file a teacher opened by the id of its text (lesson_access.py).
"""

from __future__ import annotations

from dataclasses import replace

from flask import Blueprint, abort, current_app, redirect, render_template, request

from ...inference.errors import N_, InferenceError
from ...lessons.lesson import MAX_BYTES, dumps, parse
from ..classroom import room_support as rs
from ..i18n.translations import current_language, error_message, lang_param
from ..i18n.translations import gettext as _
from ..lessons import lesson_access as access
from ..lessons import lesson_editor as editing
from ..lessons import lesson_view as view
from ..serving.policy import Extra, Work, costs, from_query
from ..stages.page import Stages, screen_context
from ..stages.screen import build_screen
from ..url import share
from ..url.links import public_url
from ..url.state import InvalidInput, State

bp = Blueprint("lessons", __name__)


def models():
    return current_app.extensions["models"]


def lesson_found() -> access.Found:
    """The lesson the request's address names: /lessons/NAME/... or /l/ID/...; 404 if none."""
    args = request.view_args or {}
    ref = args["name"] if "name" in args else access.KEPT + args.get("lesson_id", "")
    return access.find(ref, current_language())


def screen_index(found: access.Found, n: int) -> int:
    """Screen n (from 1) as an index; 404 past the lesson's end."""
    if not 1 <= n <= len(found.lesson.screens):
        abort(404, description=_("this lesson has %(n)s screens.", n=len(found.lesson.screens)))
    return n - 1


def played(figure: bool = False) -> State | None:
    """The state of the screen the address names, as played (the work budget charges it); None if it cannot be
    shown here (the page says why). The worksheet's figure shows the step's numbers, never a hidden pick."""
    found = lesson_found()
    i = screen_index(found, request.view_args["n"])
    if access.screen_problem(found.lesson, i):
        return None
    state = alone(found, i, teacher=request.args.get("view") == "teacher")
    return replace(state, predict=False, inside=False, many=None, surprise=False) if figure else state


def alone(found: access.Found, i: int, teacher: bool) -> State:
    """Screen i played alone: a student's own screen keeps every explanation (presenter mode, the projector's
    large type without them, is the teacher's: kept in the teacher's view, view=teacher)."""
    state = access.screen_state(found.lesson, i, lang_param(), teacher)
    return state if teacher else replace(state, present=False)


@bp.get("/lessons")
@costs(Work.NONE)
def index():
    """The bundled lessons, and the ways to open or write one."""
    return render_template("lessons/index.html", lessons=view.bundled_list(lang_param()), max_kb=MAX_BYTES // 1000)


@bp.get("/lessons/edit")
@costs(Work.STEP, extras=Extra.NONE, state=editing.charged_state)
def edit():
    """The editor: the lesson this browser is writing, screen by screen (the screen in `add` added to it)."""
    try:
        page = editing.editor(request.args, lang_param())
    except InferenceError as error:  # the page still opens, the lesson being written unchanged
        page = editing.empty_editor(lang_param())
        return render_template("lessons/edit.html", editor=page, problem=error_message(error)), 400
    return render_template("lessons/edit.html", editor=page, problem=None)


@bp.get("/lessons/screen")
@costs(Work.NONE)
def screen():
    """A screen of the lesson being written, opened from the editor: at its public address, a hidden pick unnamed."""
    return redirect(public_url(from_query()), code=303)


def sent_file() -> bytes | str:
    """The lesson file of the request: an upload (`file`) or the editor's text (`text`)."""
    upload = request.files.get("file")
    data = upload.read(MAX_BYTES + 1) if upload else request.form.get("text", "")
    if not data:
        raise InvalidInput(N_("choose a lesson file to open"))
    return data


@bp.post("/lessons/read")
@costs(Work.NONE)
def read():
    """The lesson file as this app reads it (JSON), or why it is not one (400): the editor opens a file so."""
    lesson = parse(sent_file())
    response = current_app.response_class(dumps(lesson), content_type="application/json; charset=utf-8")
    response.headers["Content-Disposition"] = view.attachment(lesson)  # the name the editor saves it under
    return response


@bp.post("/lessons/open")
@costs(Work.NONE)
def open_lesson():
    """Open a lesson file: kept on the server under a short link, then its page."""
    rs.check_origin()
    found = access.open_file(sent_file())
    return redirect(view.lesson_url(found, "overview", lang=lang_param()), code=303)


@bp.get("/lessons/<name>")
@bp.get("/l/<lesson_id>")
@costs(Work.NONE)
def overview(name: str | None = None, lesson_id: str | None = None):
    """A lesson's page: its screens, with the ways to play, print, save and share it."""
    return render_template("lessons/overview.html", lesson=view.overview(lesson_found(), lang_param()))


@bp.get("/lessons/<name>/<int:n>")
@bp.get("/l/<lesson_id>/<int:n>")
@costs(Work.SCREEN, state=played)
def play(n: int, name: str | None = None, lesson_id: str | None = None):
    """Screen n of the lesson, played alone: the stepper on the screen's state, under the lesson's bar."""
    found = lesson_found()
    i = screen_index(found, n)
    teacher = request.args.get("view") == "teacher"
    bar = view.bar(found, i, lang_param(), teacher)
    if bar.problem:
        return render_template("lessons/unplayable.html", bar=bar)
    screen = build_screen(models(), alone(found, i, teacher))
    return render_template("lessons/play.html", **screen_context(screen), lesson_bar=bar, animate=False)


@bp.get("/lessons/<name>/worksheet")
@bp.get("/l/<lesson_id>/worksheet")
@costs(Work.NONE)
def worksheet(name: str | None = None, lesson_id: str | None = None):
    """The worksheet: each screen's question, a small picture of its figures, and room for the student's guess."""
    return render_template("lessons/worksheet.html", lesson=view.overview(lesson_found(), lang_param()))


@bp.get("/lessons/<name>/<int:n>/figure.svg")
@bp.get("/l/<lesson_id>/<int:n>/figure.svg")
@costs(Work.SCREEN, state=lambda: played(figure=True))
def figure(n: int, name: str | None = None, lesson_id: str | None = None):
    """A small picture of screen n's figures for the worksheet: its most likely tokens and their probabilities."""
    state = played(figure=True)
    chart = Stages(build_screen(models(), state)).chart if state else None
    svg = render_template("lessons/figure.svg", figure=view.figure(chart))
    return current_app.response_class(svg, content_type="image/svg+xml")


@bp.get("/lessons/<name>/file")
@bp.get("/l/<lesson_id>/file")
@costs(Work.NONE)
def file(name: str | None = None, lesson_id: str | None = None):
    """The lesson file, to save and open again (or to change in a text editor)."""
    found = lesson_found()
    lesson = found.lesson
    response = current_app.response_class(found.text or dumps(lesson), content_type="application/json; charset=utf-8")
    response.headers["Content-Disposition"] = view.attachment(lesson)
    return response


@bp.get("/l/<lesson_id>/qr.svg")
@costs(Work.NONE)
def qr_code(lesson_id: str):
    """A QR code of the lesson's short link."""
    found = lesson_found()
    return share.qr_code(view.link(found), title="QR code of the lesson's link", error="m")
