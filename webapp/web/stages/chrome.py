"""What the page shows around the loop's stages: its frame, the guided first run, the live region, the languages.

- the frame: presenter mode's page, and the heading of a fold's page of its own (/fold/<name>);
- the guide: the first run's hints, the student's or the teacher's by the view, which guide.js shows
  on a first visit, or always (guide=1), or never (guide=0, a shared link);
- the announcement: the live region that tells a screen reader what the step picked, nothing before
  the first pick or while predict-then-reveal hides it;
- the languages: this screen in each of the page's languages. A page without a screen (the vocabulary,
  an error, the class room) gets its own address in each (languages_here).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import g, request
from markupsafe import Markup

from ..i18n.filters import fixed, pct
from ..i18n.translations import LanguageLink, here_in, switcher_links
from ..i18n.translations import template_gettext as _
from ..serving.policy import Cache, answered_policy
from ..url.links import language_links
from ..url.paths import path_for
from .screen import Screen


@dataclass(frozen=True)
class PageView:
    """The page around the panels: presenter mode, and a fold's page's heading and its way back."""

    present: bool  # presenter mode: large type, the loop on one screen
    step: int  # the step on display: its generation index, 0 for the first
    prompt: str  # the text's prompt: '' for an empty one, and for the article's model, which reads none
    back: str  # the screen the fold belongs to


@dataclass(frozen=True)
class GuideView:
    """Whether guide.js shows the first run's hints regardless of a first visit (force) or not at all (skip), and
    which: the student's (the loop's five stages, top-k and top-p, the seed) or the teacher's (presenter mode, the
    QR code, the class room)."""

    force: bool  # guide=1
    skip: bool  # guide=0: a shared link's students get no hints
    teacher: bool  # view=teacher: the teacher's hints
    reads_prompt: bool  # False for the article's model: no hint asks for a prompt


@dataclass(frozen=True)
class AnnounceView:
    """What the live region says: the step's pick, or nothing."""

    sentence: Markup | None  # "r = 0.412, picked 'the', 23 %"; None before a pick or while it is hidden


@dataclass(frozen=True)
class LanguagesPanel:
    """The language switcher: this page in each language, the page's own marked."""

    links: tuple[LanguageLink, ...]


def present_page(screen: Screen) -> PageView:
    """The frame of the screen's page."""
    state = screen.state
    return PageView(
        present=state.present,
        step=screen.result.step,
        prompt=state.text_prompt,
        back=screen.links.url(path_for("stepper.show")),
    )


def present_guide(screen: Screen) -> GuideView:
    """The guide's flags: guide=1 forces it, guide=0 skips it, no guide leaves it to guide.js (a first visit);
    the view and the model choose its hints."""
    state = screen.state
    return GuideView(
        force=state.guide is True, skip=state.guide is False, teacher=state.teacher, reads_prompt=state.reads_prompt
    )


def present_announce(screen: Screen) -> AnnounceView:
    """The live region's sentence for the screen's step."""
    return AnnounceView(sentence=announcement(screen) if announces(screen) else None)


def announces(screen: Screen) -> bool:
    """Whether the live region names a pick: a step has picked, and predict-then-reveal does not hide it."""
    return screen.taken and not screen.hidden


def announcement(screen: Screen) -> Markup:
    """The pick in a sentence: "r = 0.412, picked 'the', 23 %", and the token the teacher chose instead."""
    step, labels = screen.result, screen.labels
    figures = {"r": fixed(step.r, 3), "token": labels[step.chosen.id], "p": pct(step.chosen.prob_kept)}
    if screen.forced:
        return _(
            "r = %(r)s, picked '%(token)s', %(p)s; the teacher chose '%(chosen)s' instead",
            chosen=labels[screen.text_row.id],
            **figures,
        )
    return _("r = %(r)s, picked '%(token)s', %(p)s", **figures)


def present_languages(screen: Screen) -> LanguagesPanel:
    """The switcher of a screen: the screen (as the address bar has it) in each language."""
    return LanguagesPanel(links=tuple(language_links(screen.state)))


def languages_here() -> LanguagesPanel:
    """The switcher of a page that shows no screen of its own: the request's address in each language."""
    kept = cached_query()
    return LanguagesPanel(links=tuple(switcher_links(lambda code: here_in(code, kept))))


def cached_query() -> list[tuple[str, str]] | None:
    """The query parameters a page may copy into its links: for an answer the cache may share, only what the
    cache's key holds (the checked state, the route's declared reads), so that a parameter no view reads
    cannot ride in a kept answer to everyone who asks; None (all of them) for any other answer."""
    policy = answered_policy()
    if policy is None or policy.cache is not Cache.SHARED:
        return None
    state = g.get("checked_state")
    if policy.state is not None and state is None:
        return None  # the state did not check out: an error page, which the cache never keeps
    pairs = list(state.query().items()) if policy.state is not None else []
    try:
        return pairs + [(name, request.args[name]) for name in policy.reads if name in request.args]
    except UnicodeDecodeError:  # the error page of an address that is not UTF-8
        return pairs
