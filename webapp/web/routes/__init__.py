"""The blueprints: each route reads the request, calls the layers below, and answers in a few lines.

    stepper.py        the page and its actions: show a state, Step, Back, Reset, Choose, folds, exports, QR
    api.py            the JSON twin of a step (/api/step), of the forward pass's inside, and the models
    room.py           the class room's blueprint, its routes in the three modules below
    room_teacher.py   start a room, teach, the room panel and its counts, the class's settings, reveal
    room_students.py  join, follow the teacher's screen, vote, the student's record
    room_sentences.py the writing round: students' sentences, the teacher's list, the class's model built
    lessons.py        lessons: the bundled ones, a teacher's files, playing one alone or in a room
    class_models.py   a model built from a pasted text or a class's sentences: its page, files and perplexities

A route never computes a figure (the core does) nor decides what a panel says (the stages' and the
class room's presenters do); it chooses the page or the htmx fragments and the address the browser keeps.
"""
