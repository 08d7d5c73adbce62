"""The class room's web side: the checks on every change, the room's screens, students' polls.

    room_support.py   the store (opened once per process), who may change a room, rate limits, the room's state
    student_polls.py  GET /room/CODE/screen answered before Flask where it can be: a 304, or a screen already rendered

The room's domain (store, backends, votes, rounds) is webapp/room, which knows no Flask.
"""
