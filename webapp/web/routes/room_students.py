"""The class room's students: join, follow the teacher's screen, vote on the next token, see their record.

GET  /join, POST /join       a student joins with the code and an optional nickname
GET  /room/CODE              a student's screen: the teacher's, the vote, their record (works without JS)
GET  /room/CODE/screen       what students poll: 304 while the version is the same, else the panels
GET  /room/CODE/me           the student's own part: their vote on the open step and their record
POST /room/CODE/vote         a student's guess: a token id, or a typed word

A student is an id the server signed for the room, in an HttpOnly cookie named after it (room_access.py):
a browser without one gets the same answer whatever the code, without the store being asked. What their
templates show comes from classroom/student_view.py. The routes are room.py's blueprint's, as the
teacher's are (room_teacher.py).
"""

from __future__ import annotations

from dataclasses import replace

from flask import abort, current_app, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.exceptions import HTTPException, TooManyRequests

from ...inference.errors import N_, InferenceError
from ...room import codes
from ...room.guess import check_guess, guess_token
from ...room.store import Room, Vote
from ..classroom import room_access as access
from ..classroom import room_support as rs
from ..classroom import sentences_view, student_view
from ..i18n.labels import token_labels
from ..i18n.translations import gettext as _
from ..i18n.translations import lang_param
from ..lessons import lesson_in_room
from ..serving.error_pages import refuse_with_lead
from ..serving.htmx import is_htmx
from ..serving.policy import Work, costs
from ..stages.page import screen_context
from ..stages.screen import build_screen
from ..url.state import InvalidInput
from .room import bp, models


@bp.get("/join")
@costs(Work.NONE)
def join_form():
    """The join form: the room's code (filled in from the QR code) and an optional nickname."""
    code = codes.normalise_code(request.args.get("code", "")) or ""
    removed = request.args.get("removed") == "1"
    return render_template("room/join.html", form=student_view.join_form(code, removed=removed))


@bp.post("/join")
@costs(Work.NONE)
def join():
    """Join a room: a student id the server signed for it, in a cookie named after it; then the room's screen.

    A browser already in the room (with an id signed for it) joins again as the same student, freely;
    any other join takes one from its network's joins before the code is even looked up.
    """
    rs.check_origin()
    typed = request.form.get("code", "")[:40]
    code = codes.normalise_code(typed)
    nickname = codes.clean_nickname(request.form.get("nickname"))

    def refused(message: str, status: int):  # the form again, filled in as it was sent, with the reason
        sentence = message[:1].upper() + message[1:]  # said alone, not after "Could not show this screen:"
        return render_template("room/join.html", form=student_view.join_form(typed, nickname, sentence)), status

    student = access.signed_student(code) if code else None
    if student is None and not access.take(access.joins()):
        return refused(_("too many joins from this network at once; wait a few seconds and try again."), 429)
    try:
        room = access.lookup(code)  # a wrong code counts against the network's wrong codes
    except TooManyRequests as e:
        return refused(e.description, 429)
    if room is None:
        return refused(_("There is no open room with that code. Codes have 8 letters and digits (no 0, O, 1 or I)."),
                       404)
    if room.ended:
        return refused(_("this lesson has ended; the teacher can start a new class room."), 409)
    student = student or access.new_student_id(code)
    if not rs.store().join(code, student, nickname, rs.students_allowed(room)):
        return refused(_("this room is full; ask the teacher to start another."), 409)
    response = redirect(url_for(".follow", code=code), code=303)
    age = int(current_app.config["ROOM_IDLE_SECONDS"]) + 3600
    response.set_cookie(
        rs.STUDENT_COOKIE + code, student, max_age=age, httponly=True, samesite="Lax", secure=rs.secure()
    )
    response.set_cookie(rs.ROOM_COOKIE, code, max_age=age, samesite="Lax", secure=rs.secure())
    return response


def signed_student(code: str, refusal: str) -> str:
    """The browser's student id for the room; 403 with `refusal` before the store is asked if the server did not
    sign it for this room (made up, from another room, or from before ids were signed: join again)."""
    student = access.signed_student(code)
    if student is None:
        abort(403, description=refusal)
    return student


def student_record(room: Room, student: str) -> student_view.StudentRecord:
    """A student's own part of the screen: their vote on the open round, their record."""
    store = rs.store()
    mine = store.votes_of(room.code, student)
    return student_view.record(
        room,
        nickname=store.nickname(room.code, student),
        my_votes=mine,
        guesses=rs.lesson(room).record(mine),
        model=rs.room_model(room),
        sentences=sentences_view.my_sentences(store.sentences(room.code), student),
    )


def follow_context(room: Room) -> dict:
    """The teacher's screen in the student's language, with the line above it and the ballot: built once per
    version and language in each process, for every student's page and poll (rs.student_screen).

    While its step hides the pick, its links and forms carry the text before that step, with an r of the class's
    own for a Step of theirs (student_view.links_for_class): nothing a student receives names the pick.
    """

    def build() -> dict:
        state = replace(rs.state_of(room), lang=lang_param())  # the student's language, not the teacher's
        screen = student_view.screen_for_class(build_screen(models(), state))
        return {
            **screen_context(screen),
            "status": student_view.status(room, screen),
            "ballot": student_view.ballot(room, screen),
            "question": lesson_in_room.class_question(room.lesson, room.lesson_screen),
            "write": sentences_view.write_box(room),
        }

    return rs.student_screen(room, build)


@bp.get("/room/<code>")
@costs(Work.SCREEN, state=rs.unkept_screen_state)  # a screen kept for the class costs nothing
def follow(code: str):
    """A student's screen: the teacher's, the vote when it is open, their own record."""
    if access.signed_student(code) is None:  # whether or not the room is open: the join form says
        return redirect(url_for(".join_form", code=code), code=303)
    room = rs.find_room(code)
    student = rs.student_id(room)
    if student is None:  # signed for the room, yet not in it: the teacher took them out
        response = redirect(url_for(".join_form", code=code, removed="1"), code=303)
        response.delete_cookie(rs.ROOM_COOKIE)  # no "Follow the teacher" link back to a room they are not in
        return response
    context, record = follow_context(room), student_record(room, student)
    return render_template(
        "room/follow.html",
        animate=False,
        **context | {"ballot": student_view.with_choice(context["ballot"], record.vote.token_id)},
        student_page=student_view.page(room),
        record=record,
    )


@bp.get("/room/<code>/screen")
@costs(Work.SCREEN, state=rs.unkept_screen_state)
def follow_screen(code: str):
    """The teacher's screen as students' panels (classroom/student_polls.py answers 304s and repeats before this)."""
    student = signed_student(code, _("join the room first."))
    room = rs.find_room(code)
    if rs.store().nickname(code, student) is None:  # a new version reaches here: a removal always makes one
        abort(403, description=_("the teacher took you out of the room."))
    html = render_template(
        "room/_follow_fragments.html", oob=True, animate=room.action == "step", **follow_context(room)
    )
    response = current_app.make_response(html)
    response.set_etag(f"{code}-{room.version}")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Room-Round"] = student_view.round_status(room)
    return response


@bp.get("/room/<code>/me")
@costs(Work.NONE)
def me(code: str):
    """The student's own part: their vote on the open round and their record."""
    signed_student(code, _("join the room first."))
    room = rs.find_room(code)
    student = rs.student_id(room)
    if student is None:
        abort(403, description=_("join the room first."))
    return render_template("room/_me.html", oob=False, record=student_record(room, student))


MAX_ROUND_DIGITS = 9  # a round number: a class takes far fewer steps; the store's integers hold 18 digits


@bp.post("/room/<code>/vote")
@costs(Work.NONE)
def vote(code: str):
    """A student's guess at the next token; a second one on the same step replaces the first.

    A refusal says what became of the student's vote: none counted, or the one before still standing (not the
    stepper's "Not changed:"); with htmx, the line that says the vote comes back and the refusal shown before goes.
    """
    rs.check_origin()
    refuse_with_lead(student_view.refused_vote_lead(None))
    student = signed_student(code, _("join the room first: only students in the room can vote."))
    room = rs.find_room(code)  # and the store checks that the student is in the room
    try:
        token = cast_vote(room, student)
    except (InferenceError, HTTPException):
        refuse_with_lead(vote_kept(room, student))
        raise
    if is_htmx():  # the line that says the vote; the rest of the student's part has not changed
        return render_template("room/_my_vote.html", vote=student_view.my_vote(room, token, rs.room_model(room)),
                               clears_error=True)
    return redirect(url_for(".follow", code=code), code=303)


def cast_vote(room: Room, student: str) -> int:
    """Count the student's guess on the open round; the token voted for, or the refusal."""
    round_text = request.form.get("round", "")
    if not (round_text.isascii() and round_text.isdigit()) or len(round_text) > MAX_ROUND_DIGITS:
        raise InvalidInput(N_("the vote must say which step it is for"))
    token = read_guess(room)
    outcome = rs.store().vote(room.code, int(round_text), student, token)  # only while that round is open
    if outcome is Vote.CLOSED:
        abort(409, description=_("voting on that step has closed: the teacher has revealed it or moved on."))
    if outcome is Vote.NOT_JOINED:
        abort(403, description=_("join the room first: only students in the room can vote."))
    if outcome is Vote.TOO_MANY:
        abort(429, description=_("you have changed your vote on this step too often; it stays as it is."))
    return token


def vote_kept(room: Room, student: str) -> Markup:
    """A refusal's first words: the student's vote on the open round stands as it was, or none was counted."""
    kept = rs.store().votes_of(room.code, student).get(room.round) if room.round_open else None
    return student_view.refused_vote_lead(None if kept is None else token_labels(rs.room_model(room))[kept])


def read_guess(room: Room) -> int:
    """The token voted for: a token id from the ballot, or the one token a typed word is (never <unk> or a special
    token: room/guess.py)."""
    model = rs.room_model(room)
    token = request.form.get("token", "").strip()
    if token:
        if not (token.isascii() and token.isdigit()) or len(token) > 9:
            raise InvalidInput(N_("token must be a token id, not %(value)s"), value=repr(token[:20]))
        model.tokenizer.check_ids([int(token)])
        return check_guess(model, int(token))
    return guess_token(model, request.form.get("text", ""))
