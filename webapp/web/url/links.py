"""A screen's links: its public address, the link students get, links to this state with changes.

The address bar, the share link and the QR code are what the class can read, so they are made here,
in one place, with the rule that keeps a hidden pick out of them (public_url).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from flask import current_app, request, url_for

from ..i18n.translations import LanguageLink, current_language, switcher_links
from .paths import path_for
from .share import LOOPBACK
from .state import PLAYER_KEYS, QUERY_SAFE, SHARE_SAFE, State


def public_base() -> str:
    """The address students open this server by: the LAN address when the teacher is on localhost.

    'http://127.0.0.1:8000/' with LAN_URL 'http://192.168.1.20:8000' -> 'http://192.168.1.20:8000'
    """
    base = request.host_url
    if urlsplit(base).hostname in LOOPBACK and current_app.config.get("LAN_URL"):
        base = current_app.config["LAN_URL"]
    return base.rstrip("/")


def public_url(state: State, safe: str = QUERY_SAFE, **changes) -> str:
    """The screen's address as the class can read it: the address bar, the share link, the QR code.

    Predict, then reveal keeps the answer out of it: while a pick is hidden, the address is the Step
    from the state before the pick (`/step?...&ids=12,5&predict=1`, not `/?...&ids=12,5,7042`), which
    takes the same pick again when opened (the seeded r, or the typed r it carries). The pick itself
    travels only in the controls form's hidden `ids` field, which Reveal sends. `changes` set query
    parameters as State.url's do: lang="de" is the same screen in German.
    """
    if state.pick_hidden:
        return state.unpicked().url(path_for("stepper.step"), safe, **changes)
    return state.url(path_for("stepper.show"), safe, **changes)


def share_url(state: State) -> str:
    """The screen's link for students: by the LAN address when the teacher is on localhost.

    It carries guide=0: students who arrive by it are not shown the teacher's guided first run; never
    the teacher's view: they get the student's, the seed and the classroom controls under More; and the
    page's language, English too: it opens in the sender's language on any phone.
    """
    return public_base() + public_url(replace(state, guide=False, teacher=False, lang=current_language()), SHARE_SAFE)


def lesson_query(state: State) -> tuple[str, bool]:
    """The screen's state as a lesson keeps it, and whether the editor must take the hidden pick again.

    The state's own query string without what a lesson's player decides (PLAYER_KEYS); presenter mode stays (a
    screen may be meant for the projector). A hidden pick is left out as public_url leaves it out: the query is
    the state before the pick, and True says that Step from it (the same seeded or typed r) makes the screen.
    """
    leave_out = dict.fromkeys(PLAYER_KEYS)
    if state.pick_hidden:
        return state.unpicked().query_string(**leave_out), True
    return state.query_string(**leave_out), False


def lesson_add_url(state: State) -> str:
    """The lesson editor's address that adds this screen to the lesson being written in the browser.

    '/lessons/edit?add=prompt%3DThe%2Bgirl%26model%3Dausten-bigram...'; '&step=1' when a hidden pick is to be
    taken again (lesson_query), so that the address, like the screen's own, never names the pick.
    """
    query, step = lesson_query(state)
    return url_for("lessons.edit", add=query, step="1" if step else None, lang=state.lang)


def state_links(state: State):
    """Links to this state with changes: link("stepper.show", at=3) is this state's URL with at=3 (None drops a key)."""

    def link(endpoint: str, **changes) -> str:
        return state.url(path_for(endpoint), **changes)

    return link


def language_links(state: State) -> list[LanguageLink]:
    """The switcher's links: this screen (as the address bar has it) in each language."""
    return switcher_links(lambda code: public_url(state, lang=code))  # lang is the query's last key
