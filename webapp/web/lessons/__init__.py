"""Lessons on the web: where a lesson comes from (lesson_access.py), what its pages show (lesson_view.py), the
editor's server side (lesson_editor.py), and a lesson played in a class room (lesson_in_room.py)."""
