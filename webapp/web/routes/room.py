"""The class room's blueprint: start one, join it, follow the teacher's screen, vote on the next token, reveal.

Its routes are in two modules, each adding its own to `bp` (their endpoints are all `room.<name>`):

room_teacher.py
    POST /room                   start a room from the teacher's screen (sets the teacher's key cookie)
    GET  /room/CODE/teach        the teacher's screen with the room panel
    GET  /room/CODE/panel        the room panel alone; /room/CODE/live its counts, refreshed every second
    POST /room/CODE/state        the teacher's screen changed: store it (room.js sends it after each change)
    POST /room/CODE/settings     class votes, leaderboard on or off
    GET  /room/CODE/qr.svg       the join address as a QR code; /room/CODE/results.json the rounds as data

room_students.py
    GET  /join, POST /join       a student joins with the code and an optional nickname
    GET  /room/CODE              a student's screen: the teacher's, the vote, their record (works without JS)
    GET  /room/CODE/screen       what students poll: 304 while the version is the same, else the panels
    GET  /room/CODE/me           the student's own part: their vote and their record
    POST /room/CODE/vote         a student's guess: a token id, or a typed word

A page that shows the teacher's screen is charged by the work budget for the room's stored state,
and a POST for the stepper URL in its form (the @costs under each route); none is kept by the
answer cache: each reads the store and cookies. What the room's templates show comes from the
presenters in webapp/web/classroom/ (panel_view, results_view, student_view).
"""

from __future__ import annotations

from flask import Blueprint, current_app

bp = Blueprint("room", __name__)


def models():
    return current_app.extensions["models"]
