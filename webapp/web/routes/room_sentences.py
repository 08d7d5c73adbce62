"""The room's writing round: students send sentences, the teacher watches them arrive and builds the class's model.

POST /room/CODE/sentences/open     the teacher opens the round on a topic (again: more sentences on it)
POST /room/CODE/sentences/close    no more sentences
POST /room/CODE/sentences/remove   the teacher takes one sentence out
POST /room/CODE/sentences/clear    every sentence goes
GET  /room/CODE/sentences          the teacher's list (polled while the class writes)
GET  /room/CODE/sentences.csv      the sentences, with the students as numbers, never names
POST /room/CODE/build              count the sentences into the class's model and show it to the class
POST /room/CODE/sentence           a student's sentence

The sentences live in the room store with the room and expire with it; the model built from them is kept in the
store's texts (class_model/class_access.py) for as long as a room is, and is named in the class's screens like any
other model ('class:ID').
"""

from __future__ import annotations

from flask import abort, current_app, redirect, render_template, request, url_for

from ...inference.class_bigram import MAX_SENTENCES, MAX_SENTENCES_PER_STUDENT, clean_sentence
from ...inference.class_text import from_room
from ...inference.derived.class_export import sentences_csv
from ...inference.errors import N_, InvalidSentence
from ...room.store import Room, Sent
from ..class_model import class_access
from ..classroom import room_support as rs
from ..classroom import sentences_view
from ..classroom.room_changes import apply, lesson_going_on
from ..i18n.translations import gettext as _
from ..serving.htmx import is_htmx
from ..serving.policy import Work, costs
from ..url.state import ClassMix, InvalidInput, State
from .room import bp
from .room_students import signed_student, student_record
from .room_teacher import back_to_the_teacher

MAX_TOPIC_CHARS = 120
MIX_STEP = 0.05


def teacher_change(code: str) -> Room:
    rs.check_origin()
    room = lesson_going_on(rs.teacher_room(code))
    rs.limit(f"change:{code}", current_app.config["ROOM_CHANGES_PER_MINUTE"])
    return room


def answer(room: Room):
    """The teacher's list again (htmx), or the teacher's page at the list."""
    if is_htmx():
        room = rs.find_room(room.code)
        return render_template("room/_sentences.html",
                               sentences=rs.sentences_panel(room, request.form.get("present") == "1"))
    return back_to_the_teacher(room.code, "room-sentences")


@bp.post("/room/<code>/sentences/open")
@costs(Work.NONE)
def open_writing(code: str):
    """Open the writing round on a topic: students' phones show it with a box for their sentences."""
    room = teacher_change(code)
    topic = " ".join(request.form.get("topic", "").split())
    if len(topic) > MAX_TOPIC_CHARS:
        raise InvalidInput(N_("a topic has at most %(limit)s characters"), limit=MAX_TOPIC_CHARS)
    if rs.store().update(room, rs.now(), writing=True, topic=topic or room.topic) is None:
        abort(409, description=_("the room changed at the same moment; try again."))
    return answer(room)


@bp.post("/room/<code>/sentences/close")
@costs(Work.NONE)
def close_writing(code: str):
    room = teacher_change(code)
    if rs.store().update(room, rs.now(), writing=False) is None:
        abort(409, description=_("the room changed at the same moment; try again."))
    return answer(room)


@bp.post("/room/<code>/sentences/remove")
@costs(Work.NONE)
def remove_sentence(code: str):
    """Take one sentence out (its number, as the list gives it); a sentence already gone changes nothing."""
    room = teacher_change(code)
    n = request.form.get("n", "")
    if not (n.isascii() and n.isdigit()) or len(n) > 12:
        raise InvalidInput(N_("which sentence? n must be a sentence's number, not %(value)s"), value=repr(n[:20]))
    rs.store().remove_sentence(code, int(n))
    return answer(room)


@bp.post("/room/<code>/sentences/clear")
@costs(Work.NONE)
def clear_sentences(code: str):
    room = teacher_change(code)
    rs.store().clear_sentences(code)
    return answer(room)


@bp.get("/room/<code>/sentences")
@costs(Work.NONE)
def sentences_part(code: str):
    """The teacher's list of sentences, as the teacher's page polls it while the class writes."""
    room = rs.teacher_room(code)
    presenting = request.args.get("present") == "1"
    return render_template("room/_sentences.html", sentences=rs.sentences_panel(room, presenting))


@bp.get("/room/<code>/sentences.csv")
@costs(Work.NONE)
def sentences_csv_file(code: str):
    """Every sentence, with its author as a number (the first student to write is 1): never a nickname."""
    room = rs.teacher_room(code)
    text = authored_text(room)
    body = sentences_csv(text) if text is not None else "\ufeffn,author,sentence\r\n"
    response = current_app.response_class(body, mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="room-{code}-sentences.csv"'
    response.headers["Cache-Control"] = "no-store"
    return response


def authored_text(room: Room):
    authored = [(student, text) for _, student, text in rs.store().sentences(room.code)]
    return from_room(authored, room.topic) if authored else None


@bp.post("/room/<code>/build")
@costs(Work.NONE)
def build_model(code: str):
    """Count the class's sentences into its model, keep it with the room, and show it to the class: the text starts
    empty at the boundary <s>, and the class's weight in a mix with Austen's bigram is the form's `mix`."""
    room = teacher_change(code)
    text = authored_text(room)
    if text is None:
        raise InvalidInput(N_("there are no sentences yet: the model is counted from the class's sentences"))
    w = read_mix(request.form.get("mix", "1"))
    name = class_access.keep(text, seconds_kept=class_access.room_seconds())
    screen = rs.state_of(room)
    state = State(prompt="", model=name, ids=(), settings=screen.settings, mix=ClassMix(w=w))
    apply(room, state, "show", writing=False)
    return redirect(url_for(".teach", code=code, present="1" if request.form.get("present") == "1" else None),
                    code=303)


def read_mix(text: str) -> float:
    try:
        w = float(text)
    except ValueError:
        raise InvalidInput(N_("the class's weight must be from 0 to 1, not %(value)s"), value=repr(text[:20])) from None
    if not 0 <= w <= 1:
        raise InvalidInput(N_("the class's weight must be from 0 to 1, not %(value)s"), value=repr(text[:20]))
    return round(w / MIX_STEP) * MIX_STEP if w not in (0, 1) else w


@bp.post("/room/<code>/sentence")
@costs(Work.NONE)
def send_sentence(code: str):
    """A student's sentence: cleaned (control characters dropped), checked against the limits, then stored if the
    round is still open; a refusal says why and stores nothing."""
    rs.check_origin()
    student = signed_student(code, _("join the room first: only students in the room can send sentences."))
    rs.find_room(code)  # 404 for a room that has gone
    sentence = clean_sentence(request.form.get("text", "")[:4 * 200])
    sent = rs.store().add_sentence(code, student, sentence, rs.now())
    if sent is Sent.CLOSED:
        abort(409, description=_("the class is not writing sentences now: the teacher has closed the round."))
    if sent is Sent.NOT_JOINED:
        abort(403, description=_("join the room first: only students in the room can send sentences."))
    if sent is Sent.STUDENT_FULL:
        raise InvalidSentence(N_("each student can send at most %(limit)s sentences"), limit=MAX_SENTENCES_PER_STUDENT)
    if sent is Sent.ROOM_FULL:
        raise InvalidSentence(N_("the round holds at most %(limit)s sentences"), limit=MAX_SENTENCES)
    if is_htmx():  # the student's own part, with the sentence in it, and an empty box for the next
        room = rs.find_room(code)
        return render_template("room/_sentence_sent.html", record=student_record(room, student),
                               write=sentences_view.write_box(room))
    return redirect(url_for(".follow", code=code, _anchor="room-write"), code=303)
