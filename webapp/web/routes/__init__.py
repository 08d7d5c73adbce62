"""The blueprints: each route reads the request, calls the layers below, and answers in a few lines.

    stepper.py  the page and its actions: show a state, Step, Back, Reset, Choose, folds, exports, QR
    api.py      the JSON twin of a step (/api/step), of the forward pass's inside, and the models
    room.py     the class room: start, teach, join, follow, vote, reveal

A route never computes a figure (the core does) nor decides what a panel says (the stages'
presenters do); it chooses the page or the htmx fragments and the address the browser keeps.
"""
