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

from flask import current_app
from markupsafe import Markup
from werkzeug.exceptions import NotFound

from ...inference.errors import N_
from ..i18n.translations import gettext


@dataclass(frozen=True)
class Fold:
    """Where a fold's markup lives: a template and the block in it."""

    template: str
    block: str


def _fold(template: str, name: str) -> Fold:
    return Fold(template, "fold_" + name.replace("-", "_"))


FOLDS = {
    name: _fold(template, name)
    for name, template in [
        ("worked-encode", "explain/_encode.html"),
        ("worked-logits", "explain/_logits.html"),
        ("worked-softmax", "explain/_softmax.html"),
        ("worked-sampling", "explain/_sampling.html"),
        ("worked-uncertainty", "explain/_uncertainty.html"),
        ("worked-decode", "explain/_decode.html"),
        ("worked-inside-bigram", "panels/_inside.html"),
        ("worked-inside-attention", "panels/_inside.html"),
        ("worked-inside-lens", "panels/_inside.html"),
        ("chart-numbers", "panels/_chart.html"),
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
        panel = screen.inside
        return panel is not None and panel.layered == (name != "worked-inside-bigram")
    return True


def refusal(name: str) -> str:
    """The 400's message (a msgid with %(name)s) when a screen does not show the fold: why (see on_screen)."""
    if name.startswith("worked-inside-"):
        return N_("this screen does not show %(name)s: it is part of the forward pass's panel, open (inside=1) "
                  "for a model of its kind, pick revealed")
    return N_("this screen does not show %(name)s: its figures stay hidden until Reveal")
