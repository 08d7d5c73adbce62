"""The screen's folded sections: sent as their summary, their body fetched when a student opens one.

A Step sends what the student sees. A fold (a worked example, the chart's numbers) arrives as its
`<details>` and `<summary>` with a plain link to /fold/<name>?<state>; opening it fetches the body
for that state (static/js/classroom.js), and without JavaScript the link opens a page with the same
content. Guided mode (guide=1) sends every fold open, body and all.

Each fold is one block of the template that shows it (FOLDS), so the panel and /fold/<name> render
the same markup: the block is rendered alone, with `fold_mode` telling the fold macro
(templates/explain/_worked.html) to give the body ("body", for htmx) or the fold open ("open", for
a page of its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from flask import current_app, url_for
from markupsafe import Markup
from werkzeug.exceptions import NotFound

from ...inference.errors import N_
from ..i18n.translations import gettext
from .inside_numbers import panel_form
from .screen import Screen


@dataclass(frozen=True)
class Fold:
    """Where a fold's markup lives: a template, the block in it, and the view it shows (as `panel`)."""

    template: str
    block: str
    view: str  # an attribute path of stages.page.Stages: 'logits', 'ranges.uncertainty'


def _fold(name: str, view: str, template: str) -> Fold:
    return Fold(template, "fold_" + name.replace("-", "_"), view)


FOLDS = {
    name: _fold(name, view, template)
    for name, view, template in [
        ("worked-encode", "tokens", "stages/_encode.html"),
        ("worked-logits", "logits", "stages/_forward.html"),
        ("worked-softmax", "chart", "stages/_softmax.html"),
        ("worked-sampling", "ranges", "stages/_sampling.html"),
        ("worked-uncertainty", "ranges.uncertainty", "stages/_uncertainty.html"),
        ("worked-decode", "text", "stages/_decode.html"),
        ("worked-inside-bigram", "inside", "stages/_inside.html"),
        ("worked-inside-attention", "inside", "stages/_inside.html"),
        ("worked-inside-lens", "inside", "stages/_inside.html"),
        ("chart-numbers", "chart", "stages/_softmax.html"),
    ]
}


def find(name: str) -> Fold:
    """The fold called name; any other name is a 404."""
    fold = FOLDS.get(name)
    if fold is None:
        raise NotFound(gettext("there is no folded section named %(name)s", name=repr(name[:40])))
    return fold


def render_fold(fold: Fold, mode: str, **context) -> Markup:
    """The fold's block alone: mode "body" (its content) or "open" (the whole fold, opened)."""
    app = current_app
    context["fold_mode"] = mode
    context["panel"] = attrgetter(fold.view)(context["stages"])
    app.update_template_context(context)
    template = app.jinja_env.get_template(fold.template)
    return Markup("".join(template.blocks[fold.block](template.new_context(context))))


def on_screen(name: str, screen) -> bool:
    """Whether the screen shows the fold: none that would give a hidden pick away, and the forward
    pass's own only while that panel is open, for the kind of model it has (the bigram: its counts)."""
    if name == "worked-encode":
        return True
    if screen.hidden:
        return False
    if name.startswith("worked-inside-"):
        return panel_form(screen) == ("bigram" if name == "worked-inside-bigram" else "layers")
    return True


def refusal(name: str) -> str:
    """The 400's message (a msgid with %(name)s) when a screen does not show the fold: why (see on_screen)."""
    if name.startswith("worked-inside-"):
        return N_("this screen does not show %(name)s: it is part of the forward pass's panel, open (inside=1) "
                  "for a model of its kind, pick revealed")
    return N_("this screen does not show %(name)s: its figures stay hidden until Reveal")


@dataclass(frozen=True)
class FoldView:
    """What the fold macro (templates/explain/_worked.html) draws around a body."""

    name: str  # the element's id and the /fold/<name> it fetches
    css_class: str  # 'worked', 'chart-numbers'
    summary: Markup
    sent: bool  # whether the screen sends it at all (presenter mode leaves some out)
    open: bool  # sent open, body and all (guided mode)
    href: str  # where its body is, for this state


def fold_view(screen: Screen, name: str, css_class: str, summary: Markup) -> FoldView:
    """The fold called name on this screen: 'worked-logits' -> FoldView(href='/fold/worked-logits?prompt=...')."""
    return FoldView(
        name=name,
        css_class=css_class,
        summary=summary,
        sent=screen.sends(css_class),
        open=screen.state.guide,
        href=f"{url_for('stepper.fold', name=name)}?{screen.links.query_string()}",
    )
