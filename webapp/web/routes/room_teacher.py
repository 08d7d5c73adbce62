"""The class room's teacher: start a room, show it the screen, count the class's votes, reveal.

POST /room                   start a room from the teacher's screen (sets the teacher's key cookie)
GET  /room/CODE/teach        the teacher's screen with the room panel (classroom/panel_view.py)
GET  /room/CODE/panel        the room panel alone; GET /room/CODE/live its counts
POST /room/CODE/state        the teacher's screen changed: store it (room.js sends it after each change)
POST /room/CODE/settings     class votes, leaderboard, the live tally on or off
GET  /room/CODE/roster       who is in the room and who has voted (the teacher's laptop only)
POST /room/CODE/remove       take a student out of the room, their votes not yet counted with them
POST /room/CODE/vote/restart start the open vote again, without its votes
POST /room/CODE/end          end the lesson: no more votes or changes; students explore on their own
POST /room/CODE/lesson       play a lesson (a bundled one, or one opened by its link), or stop playing it
POST /room/CODE/lesson/go    show the lesson's screen N (Next, Previous)
GET  /room/CODE/qr.svg       the join address as a QR code
GET  /room/CODE/results.json the room's rounds as data: those revealed, those kept for later, the one open

Every route but the QR code asks for the teacher's key, signed for the room (rs.teacher_room); the QR
code is anyone's, and a stranger asking for it pays for looking the code up (room_access.lookup). The
routes are room.py's blueprint's, as the students' are (room_students.py).
"""

from __future__ import annotations

from dataclasses import replace

from flask import abort, current_app, redirect, render_template, request, url_for

from ...inference.errors import N_
from ...lessons.lesson import MAX_SCREENS
from ...room import codes
from ...room.rounds import kept_rounds, restart_round
from ...room.store import Room, RoomsFull
from ...room.votes import bits, tally
from ..classroom import panel_view
from ..classroom import room_access as access
from ..classroom import room_support as rs
from ..classroom.room_changes import apply, lesson_going_on, show_lesson_screen, votes_turned
from ..i18n.translations import current_language
from ..i18n.translations import gettext as _
from ..lessons import lesson_access, lesson_in_room
from ..serving.htmx import is_htmx
from ..serving.policy import Work, costs
from ..stages.page import screen_context
from ..stages.screen import build_screen
from ..url import share
from ..url.state import FORCED, InvalidInput, State
from .room import bp, models

ACTIONS = frozenset({"step", "back", "reset", "choose", "show"})
MAX_ATTEMPTS = 8  # tries for a free room code


@bp.post("/room")
@costs(Work.SCREEN, state=rs.posted_screen("from"))  # refused as `/` refuses that screen, before the room starts
def start():
    """Start a room from the screen the teacher is on; only this browser gets the teacher's key.

    The page's form posts with htmx: its answer sends the browser to the teacher's page itself (HX-Redirect),
    and a refusal lands in the page's error area; without JavaScript, a 303 or the error page.

    Each start takes one from the network's starts (room_access.starts), given back if no room could start.
    """
    rs.check_origin()
    lesson = chosen_lesson() if request.form.get("lesson") else None
    if not access.take(access.starts()):
        abort(429, description=_("too many rooms have been started from this network in the last hour; "
                                 "wait a few minutes, or go on in a room already open."))
    posted = request.form.get("from", "/")
    state = rs.state_from_url(posted)
    now = rs.now()
    try:
        for _attempt in range(MAX_ATTEMPTS):
            code = codes.new_code()
            key = access.new_teacher_key(code)  # signed for the code: a new one for each try
            room = Room(
                code=code,
                key_hash=codes.key_hash(key),
                state=rs.encode_state(state),
                created=now,
                touched=now,
            )
            if rs.store().create(room, current_app.config["ROOM_MAX_ROOMS"]):
                break
        else:
            access.take(access.starts(), -1)
            abort(503, description=_("could not find a free room code; try again."))
    except RoomsFull:
        access.take(access.starts(), -1)
        abort(503, description=_("the server has as many open rooms as it allows; try again later."))
    rs.store().purge(now)
    if lesson is not None:  # "Play it in a class room" from a lesson's page: its first screen
        show_lesson_screen(room, lesson, 0)
    # The teacher's page opens on the join screen, in presenter mode if the screen it started from was in it.
    presenting = rs.read_url(posted)[0].present
    target = url_for(".teach", code=room.code, lang=state.lang, present="1" if presenting else None, join="1")
    response = current_app.make_response(("", 204, {"HX-Redirect": target})) if is_htmx() else redirect(target, 303)
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
    """The teacher's screen: the stepper in the teacher's view, as the room last stored it, and the room panel.

    present=1 is presenter mode; join=1 puts up the join screen (the code, the QR code and the address, large).
    """
    room = rs.teacher_room(code)
    state = replace(rs.state_of(room), present=request.args.get("present") == "1", teacher=True)
    screen = build_screen(models(), state)
    return render_template(
        "room/teach.html",
        **screen_context(screen),
        animate=False,
        room_panel=room_panel(room, presenting=state.present, joining=request.args.get("join") == "1"),
        sentences=rs.sentences_panel(room, state.present),
    )


def room_panel(room: Room, presenting: bool | None = None, joining: bool = False) -> panel_view.RoomPanel:
    """The teacher's room panel, from what the store holds now; `presenting` and `joining` as panel_view.present
    takes them."""
    lesson = rs.lesson(room)
    state = rs.state_of(room)
    return panel_view.present(
        room,
        attendance=rs.attendance(room),
        lesson=lesson,
        board=rs.board(room, lesson),
        model=rs.model_of(state),
        presenting=presenting,
        joining=joining,
        on_screen=state,
        kept=rs.kept_note(room),
        played=lesson_in_room.room_lesson(room.lesson, room.lesson_screen, url_for(".lesson_go", code=room.code)),
        choice=lesson_in_room.lesson_choice(url_for(".play_lesson", code=room.code)),
    )


@bp.get("/room/<code>/panel")
@costs(Work.NONE)
def panel(code: str):
    """The teacher's room panel (the teacher's page refreshes its counts with it)."""
    room = rs.teacher_room(code)
    return render_template("room/_panel.html", oob=False, panel=room_panel(room))


@bp.get("/room/<code>/live")
@costs(Work.NONE)
def live(code: str):
    """How many students are in the room and, while a vote is open, how many have voted."""
    room = rs.teacher_room(code)
    return render_template("room/_live.html", live=panel_view.live(room, rs.attendance(room), rs.room_model(room)),
                           refresh=True)


@bp.get("/room/<code>/roster")
@costs(Work.NONE)
def roster(code: str):
    """Who is in the room and who has voted on the open step."""
    room = rs.teacher_room(code)
    return render_template("room/_roster.html", roster=panel_view.roster(room, rs.attendance(room)))


def back_to_the_teacher(code: str, fragment: str | None = None):
    """Where a change from the room panel leads: the teacher's page as it was (presenter mode, the join screen)."""
    target = url_for(".teach", code=code, present="1" if request.form.get("present") == "1" else None,
                     join="1" if request.form.get("join") == "1" else None, _anchor=fragment)
    return redirect(target, code=303)


@bp.post("/room/<code>/remove")
@costs(Work.NONE)
def remove(code: str):
    """Take a student out of the room: their votes on the steps not yet revealed leave the tally, their page
    says they were taken out, and they may join again (with another nickname, say)."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    handle = request.form.get("student", "")
    student = next((s for s in rs.store().students(code) if rs.student_handle(s) == handle), None)
    if student is not None and rs.store().remove(code, student):
        rs.store().update(room, rs.now())  # a new version: the students' screens are asked for again
    room = rs.find_room(code)
    if is_htmx():
        return render_template("room/_roster.html", roster=panel_view.roster(room, rs.attendance(room)))
    return back_to_the_teacher(code, "room-roster")


@bp.post("/room/<code>/vote/restart")
@costs(Work.NONE)
def restart_vote(code: str):
    """Start the open vote again: the same step, under a new number, with no votes (rounds.restart_round)."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    change = restart_round(room)
    if change is None:
        abort(409, description=_("no vote is open to start again."))
    if change.n_rounds > rs.rounds_allowed(room):
        abort(409, description=_("this room has held as many votes as one room may (its rounds times its "
                                 "students); turn class votes off to go on, or start a new room."))
    if rs.store().update(room, rs.now(), **change.fields()) is None:
        abort(409, description=_("the room changed at the same moment; try again."))
    rs.store().clear_votes(code, room.round)  # refused from now on: the round is no longer open
    return back_to_the_teacher(code)


@bp.post("/room/<code>/end")
@costs(Work.NONE)
def end(code: str):
    """End the lesson: votes close (an open one is kept, its pick still hidden), the screen stays as it is, and
    students are told the lesson has ended and can go on exploring on their own. Nothing can change it after."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    state = votes_turned(rs.state_of(room), False, room.round_open)
    apply(room, state, "show", votes_on=False, ended=True)
    return redirect(url_for(".teach", code=code), code=303)


@bp.post("/room/<code>/state")
@costs(Work.SCREEN, state=rs.posted_screen("url"))  # the screen students will be shown, as `/` charges it
def publish(code: str):
    """Store the teacher's new screen (the stepper URL it was pushed to) for the students to follow."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    state = rs.state_from_url(request.form.get("url", ""))
    action = request.form.get("action", "show")
    room = apply(room, state, action if action in ACTIONS else "show")
    # The page's own flags (room.js sends its address's present and join): the panel's links keep them.
    page = {"presenting": request.form.get("present") == "1", "joining": request.form.get("join") == "1"}
    return render_template("room/_panel.html", oob=True, panel=room_panel(room, **page))


@bp.post("/room/<code>/settings")
@costs(Work.SCREEN, state=rs.stored_state)  # the stored screen, shown again: as `/` charges it
def settings(code: str):
    """Turn class votes, the leaderboard or the live tally on or off."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    changes = {}
    for name in ("votes_on", "leaderboard", "tally_shown"):
        value = request.form.get(name)
        if value is not None:
            if value not in ("0", "1"):
                raise InvalidInput(N_("%(name)s must be 1 or 0"), name=name)
            changes[name] = value == "1"
    state = rs.state_of(room)
    if "votes_on" in changes:
        state = votes_turned(state, changes["votes_on"], room.round_open)
    apply(room, state, "show", **changes)
    return back_to_the_teacher(code)


def chosen_lesson() -> lesson_access.Found:
    """The lesson the form names: `lesson`, a bundled lesson's name or a ref, else `link`, a lesson's link or id
    as a teacher pastes it ('https://school.example/l/k3v7a2q9xm'); 404 if there is none."""
    ref = request.form.get("lesson", "").strip()
    link = request.form.get("link", "").strip().rstrip("/")
    if not ref and link:
        ref = lesson_access.KEPT + link.rpartition("/")[2]
    if not ref:
        raise InvalidInput(N_("choose a lesson to play, or paste a lesson's link"))
    return lesson_access.find(ref, current_language())


def lesson_target() -> State | None:
    """The screen the form's `to` names in the room's lesson (the work budget charges it); None if none."""
    code = request.view_args["code"]
    if not access.knows_room(code):
        return None
    room = rs.find_room(code)
    played = lesson_in_room.playing(room.lesson, read_screen_number() - 1, current_language())
    if played is None or lesson_access.screen_problem(played[0].lesson, played[1]):
        return None
    state = lesson_access.screen_state(played[0].lesson, played[1], None)
    # a voted screen takes its next pick at once: charged as that step (its id not known yet, a stand-in)
    return state.branched(len(state.ids), 0, FORCED) if played[0].lesson.screens[played[1]].vote else state


def read_screen_number() -> int:
    """The form's `to`: a screen's number, from 1."""
    to = request.form.get("to", "")
    if not to.isdigit() or not 1 <= int(to) <= MAX_SCREENS:
        raise InvalidInput(N_("%(name)s must be a screen's number, from 1"), name="to")
    return int(to)


@bp.post("/room/<code>/lesson")
@costs(Work.SCREEN, state=rs.stored_state)  # its first screen is charged as the room's screens are, when shown
def play_lesson(code: str):
    """Play a lesson in the room from its first screen, or (stop=1) stop playing it: the screen stays as it is."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    if request.form.get("stop") == "1":
        rs.store().update(room, rs.now(), lesson="", lesson_screen=0)
    else:
        show_lesson_screen(room, chosen_lesson(), 0)
    return back_to_the_teacher(code)


@bp.post("/room/<code>/lesson/go")
@costs(Work.SCREEN, state=lesson_target)
def lesson_go(code: str):
    """Show screen `to` of the room's lesson: the class follows, with its question; a voted screen turns votes on."""
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    played = lesson_in_room.playing(room.lesson, read_screen_number() - 1, current_language())
    if played is None:
        abort(409, description=_("this room plays no lesson with that screen; choose a lesson first."))
    show_lesson_screen(room, *played)
    return back_to_the_teacher(code)


@bp.get("/room/<code>/qr.svg")
@costs(Work.NONE)
def qr_code(code: str):
    """A QR code of the join address (the code only: never the teacher's key)."""
    room = rs.find_room(code)
    return share.qr_code(rs.join_url(room.code), title="QR code to join the class room", error="m")


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
            "n_vocab": r.n_vocab,
            "class_bits": bits(r.class_p),
            "model_bits": bits(r.p1_picked),
        }
        for r in rs.lesson(room).results
    ]
    every_vote = store.all_votes(code)
    kept = []
    for r in kept_rounds(room):  # left before their reveal: their votes wait for their step to come back
        counts = tally(every_vote.get(r.number, {}))
        kept.append({"round": r.number, "step": r.step, "n_votes": sum(counts.values()),
                     "tally": {str(k): v for k, v in counts.items()}})
    open_votes = len(store.votes(code, room.round)) if room.round_open else None
    return {
        "round": room.round,
        "round_open": room.round_open,
        "version": room.version,
        "state": room.state,
        "n_students": store.n_students(code),
        "open_votes": open_votes,
        "rounds": rounds,
        "kept": kept,
    }
