"""A lesson file: an ordered list of screens, each a stepper state with a title, a question and notes.

The file is JSON a person can read and diff, one key per line:

    {
      "format": "token-by-token lesson",
      "version": 1,
      "title": "Temperature",
      "lang": "en",
      "about": "For a class of 14-year-olds; 20 minutes.",
      "screens": [
        {
          "title": "One step at T = 1",
          "state": {"model": "austen-bigram", "prompt": "It is a truth", "temperature": "1.0"},
          "question": "Which word comes next?",
          "vote": true,
          "notes": "Let them guess before anyone speaks."
        }
      ]
    }

`state` is the stepper's URL state, key by key (the web layer checks it when the screen is shown, so a screen
naming a model this server lacks says so alone, and the rest of the lesson still plays). `question` is for the
class; `notes` are the teacher's and never leave the teacher's own screens.

A file is refused whole (LessonRefused, with a message for the teacher) when it is not a lesson at all: too
large, nested deeper than a lesson is, not JSON, or missing its screens. A file from a newer version of the
app is read as far as this version understands it, and says so (Lesson.newer).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field

from ..inference.errors import N_, InferenceError

FORMAT = "token-by-token lesson"
VERSION = 1
MAX_BYTES = 60_000  # 15 screens with long notes take about 15 KB; a request is at most 64 KB
MAX_DEPTH = 4  # lesson -> screens -> screen -> state
MAX_SCREENS = 40
MAX_STATE_KEYS = 40
LIMITS = {"title": 120, "about": 1000, "question": 600, "notes": 3000, "state value": 4000}
ID_CHARS = 10  # 50 bits of the text's hash: a short link that names one lesson


class LessonRefused(InferenceError):
    """The file is not a lesson this app can read; the message says why."""


@dataclass(frozen=True)
class Screen:
    """One screen: the stepper's state (query keys to values), what the class is asked, the teacher's notes."""

    title: str = ""
    state: tuple[tuple[str, str], ...] = ()
    question: str = ""
    vote: bool = False
    notes: str = ""


@dataclass(frozen=True)
class Lesson:
    title: str
    screens: tuple[Screen, ...]
    lang: str = ""
    about: str = ""
    newer: int | None = None  # the file's version, when a newer app wrote it
    ignored: tuple[str, ...] = field(default=(), compare=False)  # keys this version does not know, by path

    @property
    def id(self) -> str:
        """The lesson's short name: the same lesson has the same one on every server."""
        return lesson_id(dumps(self))


def lesson_id(text: str) -> str:
    """'{...}' -> 'k3v7a2q9xm': ID_CHARS of the text's SHA-256 in base32, lower case."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii")[:ID_CHARS].lower()


def depth(text: str) -> int:
    """How deep the brackets of a JSON text go, strings skipped: '{"a": [1, "]"]}' -> 2."""
    deepest = level = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def parse(data: bytes | str) -> Lesson:
    """Read a lesson file; LessonRefused if it is not one."""
    if len(data) > MAX_BYTES:
        raise LessonRefused(N_("this file is %(size)s KB; a lesson file is at most %(max)s KB"),
                            size=len(data) // 1000, max=MAX_BYTES // 1000)
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise LessonRefused(N_("this file is not text (a lesson file is JSON in UTF-8)")) from None
    if depth(text) > MAX_DEPTH:
        raise LessonRefused(N_("this file is nested deeper than a lesson is: it is not a lesson file"))
    try:
        raw = json.loads(text)
    except ValueError as error:
        line = getattr(error, "lineno", 1)
        raise LessonRefused(N_("this file is not JSON (line %(line)s): it is not a lesson file"), line=line) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise LessonRefused(N_("this file is not a lesson file: it does not say \"format\": \"%(format)s\""),
                            format=FORMAT)
    return _lesson(raw)


def _lesson(raw: dict) -> Lesson:
    version = raw.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LessonRefused(N_("the lesson's \"version\" must be a whole number from 1"))
    screens = raw.get("screens")
    if not isinstance(screens, list) or not 1 <= len(screens) <= MAX_SCREENS:
        raise LessonRefused(N_("a lesson has 1 to %(max)s screens, in a list called \"screens\""), max=MAX_SCREENS)
    known = {"format", "version", "title", "lang", "about", "screens"}
    ignored = [key for key in raw if key not in known]
    read = []
    for i, screen in enumerate(screens, start=1):
        if not isinstance(screen, dict):
            raise LessonRefused(N_("screen %(n)s is not a screen (an object with a title, a state, a question)"), n=i)
        read.append(_screen(screen, i))
        ignored += [f"screens[{i}].{key}" for key in screen if key not in SCREEN_KEYS]
    return Lesson(
        title=_text(raw, "title", "title") or "?",
        screens=tuple(read),
        lang=_text(raw, "lang", "title"),
        about=_text(raw, "about", "about"),
        newer=version if version > VERSION else None,
        ignored=tuple(ignored),
    )


SCREEN_KEYS = ("title", "state", "question", "vote", "notes")


def _screen(raw: dict, n: int) -> Screen:
    state = raw.get("state", {})
    if not isinstance(state, dict) or len(state) > MAX_STATE_KEYS:
        raise LessonRefused(N_("screen %(n)s's state must be an object of at most %(max)s keys"), n=n,
                            max=MAX_STATE_KEYS)
    pairs = []
    for key, value in state.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise LessonRefused(N_("screen %(n)s: the state's %(key)s must be text or a number"), n=n,
                                key=repr(key[:40]))
        pairs.append((clean(key)[:40], _limited(clean(str(value), strip=False), "state value", clean(key)[:40])))
    vote = raw.get("vote", False)
    if not isinstance(vote, bool):
        raise LessonRefused(N_("screen %(n)s: \"vote\" must be true or false"), n=n)
    return Screen(title=_text(raw, "title", "title"), state=tuple(pairs), question=_text(raw, "question", "question"),
                  vote=vote, notes=_text(raw, "notes", "notes"))


def _text(raw: dict, key: str, limit: str) -> str:
    value = raw.get(key, "")
    if not isinstance(value, str):
        raise LessonRefused(N_("the lesson's %(key)s must be text"), key=repr(key))
    return _limited(clean(value), limit, key)


def _limited(text: str, limit: str, key: str) -> str:
    if len(text) > LIMITS[limit]:
        raise LessonRefused(N_("\"%(key)s\" may be at most %(max)s characters, not %(n)s"), key=key,
                            max=LIMITS[limit], n=len(text))
    return text


def clean(text: str, strip: bool = True) -> str:
    """Drop control characters but line breaks and tabs, and halves of a character that JSON can hold
    ('\\ud800') but no file can: 'a\\x00b\\nc\\ud800' -> 'ab\\nc'. A state's value keeps its spaces (strip=False):
    a prompt ending in a space is another prompt."""
    kept = "".join(c for c in text if c in "\n\t" or (" " <= c != "\x7f" and not "\ud800" <= c <= "\udfff"))
    return kept.strip() if strip else kept


def dumps(lesson: Lesson) -> str:
    """The lesson as its file: the same lesson always gives the same text, one key per line."""
    raw = {
        "format": FORMAT,
        "version": VERSION,
        "title": lesson.title,
        "lang": lesson.lang,
        "about": lesson.about,
        "screens": [
            {"title": s.title, "state": dict(s.state), "question": s.question, "vote": s.vote, "notes": s.notes}
            for s in lesson.screens
        ],
    }
    return json.dumps(raw, ensure_ascii=False, indent=2) + "\n"
