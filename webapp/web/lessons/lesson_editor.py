"""The lesson editor's page: the screen the stepper sends to be added, the lesson file to copy, the bundled lessons.

The lesson being written lives in the browser (static/js/lesson_editor.js keeps it in localStorage) until it is
saved as a file or published; the server reads only what the editor's address asks for:

- `add`: a screen's state (url/links.lesson_query), with `step=1` when its hidden pick is to be taken again.
  It is read as the stepper reads a state, then as a lesson file reads a screen, so that what the script
  adds is a screen the lesson can keep, exactly as its file will hold it;
- `from`: a lesson file of this site (a lesson page's "Edit a copy"), which the script fetches.

Left out on purpose: the lesson itself. Nothing the teacher writes is sent until they save or publish it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, urlsplit

from flask import current_app, request
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import HTTPException

from ...inference.article import ARTICLE
from ...inference.errors import N_
from ...lessons.lesson import FORMAT, LIMITS, MAX_BYTES, MAX_SCREENS, VERSION, Lesson, Screen, dumps, parse
from ..i18n.translations import current_language, lang_param
from ..stages.screen import take_step
from ..url.links import public_url
from ..url.parse import parse_state
from ..url.state import InvalidInput, State
from . import lesson_view as view

TITLE_WORDS = 5


@dataclass(frozen=True)
class Added:
    """A screen the stepper sent, as the lesson will keep it."""

    state: tuple[tuple[str, str], ...]  # query keys to values, in the state's own order
    state_json: str  # the same, as JSON pairs for the script: '[["prompt", "The girl"], ["model", "austen-bigram"]]'
    title: str  # the prompt's last words; "" for an empty prompt (the script numbers the screen)
    url: str  # the screen itself, to go back to, at its public address: '/?prompt=The+girl&model=austen-bigram'


@dataclass(frozen=True)
class Editor:
    """What the editor's page is handed: the screen to add, the file to copy, and what the script needs."""

    added: Added | None
    copy_from: str | None  # a lesson file of this site, to offer as a copy: '/l/k3v7a2q9xm/file'
    max_bytes: int  # the largest lesson file
    max_kb: int
    max_screens: int
    file_format: str  # what a lesson file says it is, and its version, as the script writes them
    version: int
    default_model: str  # a state without `model` shows this one
    lang: str  # the page's language: a new lesson's
    lessons: list[view.BundledItem]


def editor(args: MultiDict, lang: str | None) -> Editor:
    """The editor's page for the request's address; InferenceError if `add` or `from` cannot be read."""
    return Editor(
        added=added(args),
        copy_from=copy_from(args.get("from")),
        max_bytes=MAX_BYTES,
        max_kb=MAX_BYTES // 1000,
        max_screens=MAX_SCREENS,
        file_format=FORMAT,
        version=VERSION,
        default_model=current_app.config["DEFAULT_MODEL"],
        lang=current_language(),
        lessons=view.bundled_list(lang),
    )


def empty_editor(lang: str | None) -> Editor:
    """The editor with nothing to add or copy: the page a refused address shows, beside why."""
    return editor(MultiDict(), lang)


def sent_state(args: MultiDict) -> State | None:
    """The state in `add`, as the stepper reads it; None if there is none."""
    text = args.get("add")
    if text is None:
        return None
    query = MultiDict(parse_qsl(text, keep_blank_values=True))
    return parse_state(query, current_app.extensions["models"], current_app.config["DEFAULT_MODEL"])


def charged_state() -> State | None:
    """The state whose step the request takes (for the work budget): `add` with step=1; else none."""
    return sent_state(request.args) if request.args.get("step") == "1" else None


def added(args: MultiDict) -> Added | None:
    """The screen `add` names, its hidden pick taken again if `step=1` says so; None without `add`."""
    state = sent_state(args)
    if state is None:
        return None
    if args.get("step") == "1":
        state, _step = take_step(current_app.extensions["models"], state)
    state = replace(state, lang=None, teacher=False, guide=None)
    # the article's model reads no text: its screen is its tokens and scores, the prompt no part of it
    pairs = [(k, v) for k, v in state.query().items() if not (k == "prompt" and state.model == ARTICLE)]
    kept = as_kept(Screen(state=tuple(pairs)))
    return Added(state=kept.state, state_json=json.dumps(kept.state, ensure_ascii=False),
                 title=prompt_title(dict(kept.state).get("prompt", "")), url=public_url(state, lang=lang_param()))


def as_kept(screen: Screen) -> Screen:
    """The screen as a lesson file holds it (the file's own rules); LessonRefused if a file could not hold it."""
    return parse(dumps(Lesson(title="?", screens=(screen,)))).screens[0]


def prompt_title(prompt: str, words: int = TITLE_WORDS) -> str:
    """A screen's first title: its prompt's last words.

    >>> prompt_title("It is a truth universally acknowledged, that a single man")
    '… that a single man'
    >>> prompt_title("The girl saw a")
    'The girl saw a'
    >>> prompt_title("  ")
    ''
    """
    split = prompt.split()
    title = " ".join(split[-words + 1:] if len(split) > words else split)
    if len(title) > LIMITS["title"] // 2:
        title = title[-(LIMITS["title"] // 2):].lstrip()
    return ("… " + title) if title and title != " ".join(split) else title


def copy_from(text: str | None) -> str | None:
    """The address of a lesson file of this site, to fetch: '/l/k3v7a2q9xm/file' is one, '//evil/x' or
    'https://elsewhere/l/k3v7a2q9xm/file' or '/lessons' not (InvalidInput). None: there is none."""
    if text is None:
        return None
    parts = urlsplit(text)
    endpoint = None
    if not (parts.scheme or parts.netloc or parts.query) and parts.path.startswith("/"):
        try:
            endpoint, _values = current_app.url_map.bind("localhost").match(parts.path, method="GET")
        except HTTPException:
            endpoint = None
    if endpoint != "lessons.file":
        raise InvalidInput(N_("%(address)s is not the address of a lesson file on this site"),
                           address=repr(text[:80]))
    return parts.path
