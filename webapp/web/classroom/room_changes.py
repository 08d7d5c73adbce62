"""The teacher's changes to a room's screen, as the routes make them: the screen stored with what it does to
the vote (room/teacher.py), class votes turned on or off, a lesson's screen shown.
"""

from __future__ import annotations

from dataclasses import replace

from flask import abort, current_app

from ...room.rounds import Picks, next_round, picks
from ...room.store import Room
from ...room.teacher import RoomGone, TeacherScreen, TooManyChanges, apply_change
from ...room.votes import round_result
from ..i18n.translations import gettext as _
from ..lessons import lesson_access
from ..lessons.lesson_access import Found
from ..stages.screen import build_screen, take_step
from ..url.state import State
from . import room_support as rs


def lesson_going_on(room: Room) -> Room:
    """The room, if its lesson has not ended: a change to an ended one is refused (409)."""
    if room.ended:
        abort(409, description=_("this lesson has ended; start a new class room to go on with a class."))
    return room


def votes_turned(state: State, on: bool, round_open: bool) -> State:
    """The teacher's screen as class votes turn on or off: on, each next pick is hidden until Reveal (a pick
    already shown stays shown, a hidden one stays hidden: a round kept on it opens again); off, picks are shown,
    but a pick the class is voting on stays hidden, its round kept with its votes (rounds.py) until Reveal."""
    if on:
        return replace(state, predict=True, revealed=state.revealed if state.predict else state.on_screen is not None)
    if round_open:
        return state
    return replace(state, predict=False, revealed=False)


def picks_on_screen(state: State, lesson_screen: str = "") -> Picks:
    """The model's picks the screen hides and shows, by step key (rounds.picks).

    In a lesson, the lesson's screen is the keys' scope: two voted screens on the same step (the article's three
    tokens with r = 0.1, then with r = 0.3) are two questions, each with a round of its own; within one screen,
    Back and Step keep its round as they always do.
    """
    return picks(state.prompt, state.model, state.ids, state.forced, state.pick_hidden, scope=lesson_screen)


def lesson_screen_of(room: Room) -> str:
    """'article#4' for screen 4 of the bundled lesson 'article'; '' when the room plays no lesson."""
    return f"{room.lesson}#{room.lesson_screen}" if room.lesson else ""


def apply(room: Room, state: State, action: str, **changes) -> Room:
    """Store the teacher's new screen and whatever it does to the vote (room/teacher.py)."""
    after = replace(room, **changes)
    on_screen = picks_on_screen(state, lesson_screen_of(after))
    change = next_round(after, on_screen, action)
    if change.new and change.n_rounds > rs.rounds_allowed(room):
        abort(409, description=_("this room has held as many votes as one room may (its rounds times its "
                                 "students); turn class votes off to go on, or start a new room."))
    screen = TeacherScreen(
        state=rs.encode_state(state), picks=on_screen, count=lambda *revealed: counter(state, *revealed)
    )
    try:
        return apply_change(rs.store(), room, screen, action, rs.now(), **changes)
    except RoomGone:
        return rs.find_room(room.code)  # says so, with the usual 404
    except TooManyChanges:
        abort(409, description=_("the room changed too often at once; try again."))


def counter(state: State, round_: int, step: int, version: int):
    """count(votes) -> the result of the round on step `step` of the screen (the step on screen, or one whose pick
    is in the text), revealed by the room's version `version`, as JSON for the store to save as it closes the round."""
    at_step = state if step == state.on_screen else replace(state, at=step)
    result = build_screen(current_app.extensions["models"], at_step).result  # computed before the store locks anything
    picked = state.ids[step]
    return lambda votes: round_result(round_, result, picked, votes, version).to_json()



def show_lesson_screen(room: Room, found: Found, i: int) -> Room:
    """Show screen i (from 0) of the lesson to the class: its state, class votes on if it is voted on, else off.

    A voted screen opens its round at once: its next pick is taken and hidden (as Step does with class votes on),
    and the phones show the ballot; the teacher reveals it.

    A screen this server cannot show (a model it lacks) leaves the class on the screen it had: the teacher's panel
    says why, and Next goes on.
    """
    if lesson_access.screen_problem(found.lesson, i) is not None:
        changed = rs.store().update(room, rs.now(), lesson=found.ref, lesson_screen=i)
        if changed is None:
            abort(409, description=_("the room changed at the same moment; try again."))
        return changed
    vote = found.lesson.screens[i].vote
    state = votes_turned(lesson_access.screen_state(found.lesson, i, rs.state_of(room).lang), vote, room.round_open)
    action = "show"
    if vote and not state.pick_hidden:  # the next pick made now and hidden: the class votes on it at once
        state = take_step(current_app.extensions["models"], state)[0]
        action = "step"
    return apply(room, state, action, votes_on=vote, lesson=found.ref, lesson_screen=i)
