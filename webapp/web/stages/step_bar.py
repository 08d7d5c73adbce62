"""The step bar: on a phone, one Step on one screen.

A narrow screen stacks the panels, and the pick (the range bar, the text) lies screens below the Step
button. The step bar stays at the bottom of a narrow screen: the Step button, the pick in a few words
("r = 0.625 → 'as'") and the range bar enlarged around the picked range (range_bar.zoom), its ends
written under it, so that a range of 0.4 % reads as well as one of 40 %. Before the first Step it says
what Step does; while predict-then-reveal hides the pick, it says so and offers Reveal, and holds
nothing of the pick. Wide screens and presenter mode hide it (app.css): their Step and range bar are
on screen together.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ..i18n.filters import fixed
from ..i18n.translations import template_gettext as _
from . import range_bar
from .sampling import BAR_LABEL_LENGTH, pick_digits_of, quoted
from .screen import Screen


@dataclass(frozen=True, kw_only=True)
class StepBarView:
    """The step bar: what the step on screen picked, or why it says nothing of it."""

    hidden: bool  # predict, then reveal: the pick stays hidden until Reveal
    taken: bool  # a step has picked: r was drawn
    step: str = ""  # the step r was drawn for ('1'), '' before any: as the range bar's data-step
    pick: Markup = Markup()  # "r = 0.625 → 'as'"
    lo: str = ""  # the picked range's ends, as the pick sentence writes them
    hi: str = ""
    zoom: range_bar.Zoom | None = None


def present(screen: Screen) -> StepBarView:
    """The step bar of the screen."""
    if screen.hidden or not screen.taken:
        return StepBarView(hidden=screen.hidden, taken=screen.taken and not screen.hidden)
    step, digits = screen.result, pick_digits_of(screen)
    chosen = step.chosen
    return StepBarView(
        hidden=False,
        taken=True,
        step=str(step.step),
        pick=_("r = %(r)s → %(token)s", r=fixed(step.r, digits), token=quoted(screen.labels[chosen.id])),
        lo=fixed(chosen.lo, digits),
        hi=fixed(chosen.hi, digits),
        zoom=range_bar.zoom(step.rows, screen.short_labels(BAR_LABEL_LENGTH), chosen, step.r),
    )
