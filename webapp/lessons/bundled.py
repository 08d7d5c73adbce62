"""The lessons that ship with the app, ready to teach, each in every language of the page.

bundled/<lang>/<name>.json holds each, in the file format lesson.py reads; a language without its own copy
of a lesson gets the English one.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from .lesson import Lesson, parse

FOLDER = Path(__file__).resolve().parent / "bundled"
BUNDLED = ("article", "temperature", "tail", "tokens", "inside")  # the order they are taught in
FALLBACK = "en"


@cache
def bundled(name: str, lang: str = FALLBACK) -> Lesson | None:
    """The bundled lesson `name` in `lang` (else in English); None if there is no such lesson."""
    if name not in BUNDLED:
        return None
    path = FOLDER / lang / f"{name}.json"
    if not (lang.isascii() and lang.isalpha() and path.is_file()):
        path = FOLDER / FALLBACK / f"{name}.json"
    return parse(path.read_bytes())


def every_bundled(lang: str = FALLBACK) -> list[tuple[str, Lesson]]:
    """(name, lesson) of each bundled lesson, in teaching order."""
    return [(name, bundled(name, lang)) for name in BUNDLED]
