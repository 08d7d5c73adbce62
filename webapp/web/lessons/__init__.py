"""Lessons on the web: where a lesson comes from (lesson_access.py) and what its pages show (lesson_view.py)."""
