"""Lessons: the screens of a lesson, prepared by a teacher, kept as a file, and played alone or in a room.

lesson.py reads and writes the file (its format is static/lesson.schema.json); bundled.py holds the lessons
that ship with the app. Nothing here knows the web: a screen's state is the stepper's query string, checked
by the web layer when the screen is shown.
"""
