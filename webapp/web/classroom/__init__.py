"""The class room's web side: the checks on every change, what the room's templates show, students' polls.

    room_support.py   the store (opened once per process), who may change a room, rate limits, the room's state
    panel_view.py     the teacher's room panel: the code and join address, the counts, the class's settings
    results_view.py   the last revealed vote beside the model (its chart drawn), the lesson so far, the leaderboard
    student_view.py   a student's part: the line above their panels, the ballot, their vote and record, the join form
    student_polls.py  GET /room/CODE/screen answered before Flask where it can be: a 304, or a screen already rendered

The room's domain (store, backends, votes, rounds) is webapp/room, which knows no Flask: it counts,
the views here write the counts out and choose the sentences, and templates/room/ places them.
"""
