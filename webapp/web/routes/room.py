"""The class room: start one, join it, follow the teacher's screen, vote on the next token, reveal.

POST /room                   start a room from the teacher's screen (sets the teacher's key cookie)
GET  /room/CODE/teach        the teacher's screen with the room panel
POST /room/CODE/state        the teacher's screen changed: store it (room.js sends it after each change)
POST /room/CODE/settings     class votes, leaderboard on or off
GET  /join, POST /join       a student joins with the code and an optional nickname
GET  /room/CODE              a student's screen: the teacher's, the vote, their record (works without JS)
GET  /room/CODE/screen       what students poll: 304 while the version is the same, else the panels
POST /room/CODE/vote         a student's guess: a token id, or a typed word

A page that shows the teacher's screen is charged by the work budget for the room's stored state,
and a POST for the stepper URL in its form (the @costs under each route); none is kept by the
answer cache: each reads the store and cookies.
"""

from __future__ import annotations

from dataclasses import replace

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

from ...inference.errors import N_
from ...room import codes
from ...room.guess import guess_token
from ...room.store import Room, RoomsFull, Vote
from ...room.teacher import RoomGone, TeacherScreen, TooManyChanges, apply_change
from ...room.votes import histogram, leaderboard, other_votes, round_result
from ..classroom import room_support as rs
from ..i18n.translations import gettext as _
from ..i18n.translations import lang_param
from ..serving.htmx import is_htmx
from ..serving.policy import Extra, Work, costs
from ..stages.page import screen_context
from ..stages.screen import build_screen
from ..url import share
from ..url.links import public_base, public_url, share_url, state_links
from ..url.state import InvalidInput, State

bp = Blueprint("room", __name__)

ACTIONS = frozenset({"step", "back", "reset", "choose", "show"})
N_BALLOT = 8  # top tokens offered on the ballot
MAX_ATTEMPTS = 8  # compare-and-set retries when two changes race


def models():
    return current_app.extensions["models"]


def join_url(code: str) -> str:
    """The address students open: by the LAN address when the teacher is on localhost, as the share link."""
    return public_base() + url_for(".join_form", code=code)


# --- the teacher ---------------------------------------------------------------------------------


@bp.post("/room")
@costs(Work.STEP, extras=Extra.NONE, state=rs.posted_step("from"))
def start():
    """Start a room from the screen the teacher is on; only this browser gets the teacher's key."""
    rs.check_origin()
    rs.limit(f"start:{rs.client_address()}", 30)
    state = rs.state_from_url(request.form.get("from", "/"))
    key, now = codes.new_secret(), rs.now()
    try:
        for _attempt in range(MAX_ATTEMPTS):
            room = Room(
                code=codes.new_code(),
                key_hash=codes.key_hash(key),
                state=rs.encode_state(state),
                created=now,
                touched=now,
            )
            if rs.store().create(room, current_app.config["ROOM_MAX_ROOMS"]):
                break
        else:
            abort(503, description=_("could not find a free room code; try again."))
    except RoomsFull:
        abort(503, description=_("the server has as many open rooms as it allows; try again later."))
    rs.store().purge(now)
    response = redirect(url_for(".teach", code=room.code, lang=state.lang), code=303)
    response.set_cookie(
        rs.TEACHER_COOKIE,
        key,
        max_age=int(current_app.config["ROOM_IDLE_SECONDS"]) + 3600,
        path=rs.room_cookie_path(room.code),
        httponly=True,
        samesite="Strict",
        secure=rs.secure(),
    )
    return response


@bp.get("/room/<code>/teach")
@costs(Work.SCREEN, state=rs.stored_state)
def teach(code: str):
    """The teacher's screen: the stepper, as the room last stored it, and the room panel."""
    room = rs.teacher_room(code)
    state = replace(rs.state_of(room), present=request.args.get("present") == "1")
    screen = build_screen(models(), state)
    return render_template(
        "room/teach.html",
        **screen_context(screen),
        animate=False,
        **panel_context(room),
    )


def panel_context(room: Room) -> dict:
    """What the teacher's room panel shows."""
    store = rs.store()
    lesson = rs.lesson(room)
    last = lesson.last
    labels = rs.model_of(rs.state_of(room)).tokenizer
    board = None
    if room.leaderboard and lesson.results:
        board = leaderboard(store.all_votes(room.code), lesson.results, store.students(room.code))
    return {
        "room": room,
        "display_code": codes.display_code(room.code),
        "join_url": join_url(room.code),
        "n_students": store.n_students(room.code),
        "n_votes": len(store.votes(room.code, room.round)) if room.round_open else None,
        "last": last,
        "bars": histogram(last) if last else [],
        "other_votes": other_votes(last) if last else 0,
        "running": lesson.running,
        "board": board,
        "token_text": labels.token_text,
    }


@bp.get("/room/<code>/panel")
@costs(Work.NONE)
def panel(code: str):
    """The teacher's room panel (the teacher's page refreshes its counts with it)."""
    room = rs.teacher_room(code)
    return render_template("room/_panel.html", oob=False, **panel_context(room))


@bp.get("/room/<code>/live")
@costs(Work.NONE)
def live(code: str):
    """How many students are in the room and, while a vote is open, how many have voted."""
    room = rs.teacher_room(code)
    n_votes = len(rs.store().votes(room.code, room.round)) if room.round_open else None
    return render_template("room/_live.html", room=room, n_students=rs.store().n_students(code), n_votes=n_votes)


@bp.post("/room/<code>/state")
@costs(Work.STEP, extras=Extra.NONE, state=rs.posted_step("url"))  # a revealed round is counted from that step
def publish(code: str):
    """Store the teacher's new screen (the stepper URL it was pushed to) for the students to follow."""
    rs.check_origin()
    room = rs.teacher_room(code)
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    state = rs.state_from_url(request.form.get("url", ""))
    action = request.form.get("action", "show")
    room = apply(room, state, action if action in ACTIONS else "show")
    return render_template("room/_panel.html", oob=True, **panel_context(room))


@bp.post("/room/<code>/settings")
@costs(Work.SCREEN, extras=Extra.NONE, state=rs.stored_state)  # a revealed round is counted from its step
def settings(code: str):
    """Turn class votes or the leaderboard on or off."""
    rs.check_origin()
    room = rs.teacher_room(code)
    changes = {}
    for name in ("votes_on", "leaderboard"):
        value = request.form.get(name)
        if value is not None:
            if value not in ("0", "1"):
                raise InvalidInput(N_("%(name)s must be 1 or 0"), name=name)
            changes[name] = value == "1"
    state = rs.state_of(room)
    if "votes_on" in changes:  # class votes hide each next pick until Reveal; the one on screen stays shown
        on = changes["votes_on"]
        state = replace(state, predict=on, revealed=on and state.shown is not None)
    apply(room, state, "show", **changes)
    target = url_for(".teach", code=code, present="1" if request.form.get("present") == "1" else None)
    return redirect(target, code=303)


def apply(room: Room, state: State, action: str, **changes) -> Room:
    """Store the teacher's new screen and whatever it does to the vote (room/teacher.py)."""
    hidden, shown = rs.step_keys(state)
    screen = TeacherScreen(state=rs.encode_state(state), hidden_key=hidden, shown_key=shown,
                           count=lambda round_: counter(state, round_))
    try:
        return apply_change(rs.store(), room, screen, action, rs.now(), **changes)
    except RoomGone:
        return rs.find_room(room.code)  # says so, with the usual 404
    except TooManyChanges:
        abort(409, description=_("the room changed too often at once; try again."))


def counter(state: State, round_: int):
    """count(votes) -> the revealed round's result as JSON, for the store to save as it closes the round."""
    step = build_screen(models(), state).result  # computed before the store locks anything
    picked = state.ids[state.shown]
    return lambda votes: round_result(round_, step, picked, votes).to_json()


@bp.get("/room/<code>/qr.svg")
@costs(Work.NONE)
def qr_code(code: str):
    """A QR code of the join address (the code only: never the teacher's key)."""
    room = rs.find_room(code)
    return share.qr_code(join_url(room.code), title="QR code to join the class room", error="m")


@bp.get("/room/<code>/results.json")
@costs(Work.NONE)
def results_json(code: str):
    """The room's rounds as data, for the teacher: votes counted, the tally, the pick."""
    room = rs.teacher_room(code)
    store = rs.store()
    rounds = [
        {
            "round": r.round,
            "step": r.step,
            "n_votes": r.n_votes,
            "picked": r.picked,
            "top": r.top,
            "tally": {str(k): v for k, v in r.tally.items()},
        }
        for r in rs.lesson(room).results
    ]
    open_votes = len(store.votes(code, room.round)) if room.round_open else None
    return {
        "round": room.round,
        "round_open": room.round_open,
        "version": room.version,
        "state": room.state,
        "n_students": store.n_students(code),
        "open_votes": open_votes,
        "rounds": rounds,
    }


# --- students ------------------------------------------------------------------------------------


@bp.get("/join")
@costs(Work.NONE)
def join_form():
    """The join form: the room's code (filled in from the QR code) and an optional nickname."""
    code = codes.normalise_code(request.args.get("code", "")) or ""
    return render_template("room/join.html", code=code, nickname="", message=None)


@bp.post("/join")
@costs(Work.NONE)
def join():
    """Join a room: a student id in a cookie scoped to the room, then the room's screen."""
    rs.check_origin()
    address = rs.client_address()
    rs.limit(f"join:{address}", current_app.config["ROOM_JOINS_PER_MINUTE"])
    typed = request.form.get("code", "")[:40]
    code = codes.normalise_code(typed)
    room = rs.store().get(code, rs.now()) if code else None
    nickname = codes.clean_nickname(request.form.get("nickname"))
    if room is None:
        rs.limit(f"join-failed:{address}", current_app.config["ROOM_FAILED_JOINS_PER_MINUTE"])
        message = _("There is no open room with that code. Codes have 8 letters and digits (no 0, O, 1 or I).")
        return render_template("room/join.html", code=typed, nickname=nickname, message=message), 404
    student = request.cookies.get(rs.STUDENT_COOKIE + code)
    if not codes.is_secret_shaped(student):
        student = codes.new_secret()
    if not rs.store().join(code, student, nickname, current_app.config["ROOM_MAX_STUDENTS"]):
        abort(409, description=_("this room is full; ask the teacher to start another."))
    response = redirect(url_for(".follow", code=code), code=303)
    age = int(current_app.config["ROOM_IDLE_SECONDS"]) + 3600
    response.set_cookie(
        rs.STUDENT_COOKIE + code, student, max_age=age, httponly=True, samesite="Lax", secure=rs.secure()
    )
    response.set_cookie(rs.ROOM_COOKIE, code, max_age=age, samesite="Lax", secure=rs.secure())
    return response


def student_context(room: Room, student: str) -> dict:
    """A student's own part of the screen: their vote on the open round, their record."""
    store = rs.store()
    mine = store.votes_of(room.code, student)
    lesson = rs.lesson(room)
    model = rs.room_model(room)
    return {
        "room": room,
        "my_vote": mine.get(room.round) if room.round_open else None,
        "guesses": lesson.record(mine),
        "token_text": model.tokenizer.token_text,
        "nickname": store.nickname(room.code, student),
    }


def ballot_tokens(screen) -> list[int]:
    """The ballot's top tokens, in alphabetical order so that the list does not give the ranking away."""
    ids = [row.id for row in screen.result.rows[:N_BALLOT]]
    return sorted(ids, key=lambda i: (screen.labels[i].lower(), i))


def follow_context(room: Room) -> dict:
    state = replace(rs.state_of(room), lang=lang_param())  # the student's language, not the teacher's
    screen = build_screen(models(), state)
    return {
        **screen_context(screen),
        "room": room,
        "link": state_links(state),
        "ballot": ballot_tokens(screen),
        "explore_url": public_url(state),
        "display_code": codes.display_code(room.code),
        "share_url": share_url(state),
    }


@bp.get("/room/<code>")
@costs(Work.SCREEN, state=rs.stored_state)
def follow(code: str):
    """A student's screen: the teacher's, the vote when it is open, their own record."""
    room = rs.find_room(code)
    student = rs.student_id(room)
    if student is None:
        return redirect(url_for(".join_form", code=code), code=303)
    context = {**follow_context(room), **student_context(room, student), "round_status": round_status(room)}
    return render_template("room/follow.html", animate=False, **context)


@bp.get("/room/<code>/screen")
@costs(Work.SCREEN, state=rs.stored_state)
def follow_screen(code: str):
    """The teacher's screen as students' panels (room_polls.py answers 304s and repeats before this)."""
    room = rs.find_room(code)
    html = render_template(
        "room/_follow_fragments.html", oob=True, animate=room.action == "step", **follow_context(room)
    )
    response = current_app.make_response(html)
    response.set_etag(f"{code}-{room.version}")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Room-Round"] = round_status(room)
    return response


def round_status(room: Room) -> str:
    """'3-open' while students vote on round 3, '3-closed' after: room.js then asks for the record."""
    return f"{room.round}-{'open' if room.round_open else 'closed'}"


@bp.get("/room/<code>/me")
@costs(Work.NONE)
def me(code: str):
    """The student's own part: their vote on the open round and their record."""
    room = rs.find_room(code)
    student = rs.student_id(room)
    if student is None:
        abort(403, description=_("join the room first."))
    return render_template("room/_me.html", oob=False, **student_context(room, student))


@bp.post("/room/<code>/vote")
@costs(Work.NONE)
def vote(code: str):
    """A student's guess at the next token; a second one on the same step replaces the first."""
    rs.check_origin()
    room = rs.find_room(code)
    student = request.cookies.get(rs.STUDENT_COOKIE + code)  # the store checks that the student is in the room
    if not codes.is_secret_shaped(student):
        abort(403, description=_("join the room first: only students in the room can vote."))
    round_text = request.form.get("round", "")
    if not (round_text.isascii() and round_text.isdigit()):
        raise InvalidInput(N_("the vote must say which step it is for"))
    token = read_guess(room)
    outcome = rs.store().vote(code, int(round_text), student, token)  # only while that round is open
    if outcome is Vote.CLOSED:
        abort(409, description=_("voting on that step has closed: the teacher has revealed it or moved on."))
    if outcome is Vote.NOT_JOINED:
        abort(403, description=_("join the room first: only students in the room can vote."))
    if outcome is Vote.TOO_MANY:
        abort(429, description=_("you have changed your vote on this step too often; it stays as it is."))
    if is_htmx():  # the line that says the vote; the rest of the student's part has not changed
        return render_template(
            "room/_my_vote.html", room=room, my_vote=token, token_text=rs.room_model(room).tokenizer.token_text
        )
    return redirect(url_for(".follow", code=code), code=303)


def read_guess(room: Room) -> int:
    """The token voted for: a token id from the ballot, or the one token a typed word is."""
    model = rs.room_model(room)
    token = request.form.get("token", "").strip()
    if token:
        if not (token.isascii() and token.isdigit()) or len(token) > 9:
            raise InvalidInput(N_("token must be a token id, not %(value)s"), value=repr(token[:20]))
        model.tokenizer.check_ids([int(token)])
        return int(token)
    return guess_token(model, request.form.get("text", ""))
