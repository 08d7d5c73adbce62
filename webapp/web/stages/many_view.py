"""Sample many: the step's final distribution sampled 100, 1,000 or 10,000 times, as the sampling panel shows it.

Draw j of step i is r_j = numpy.random.default_rng([seed, i, j]).random() (webapp/inference/derived/many.py).
The chart puts each table token's share of the picks (a dark bar) on its probability (a light one),
both scaled so that the largest of them is MANY_SPAN % of the chart's width; a hidden table gives the
same figures to a screen reader.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...inference.derived.many import Bin, ManySample, sample_many
from ..i18n.filters import pct, thousands
from ..i18n.translations import template_ngettext as ngettext
from .screen import Screen

SIZES = (100, 1000, 10000)  # the buttons' numbers of draws
MANY_SPAN = 40  # percent of the chart's width: the longest bar
ROW_HEIGHT = 22  # px per token, its bar 20 high
FLOOR = 0.001  # the scale's least top
LABEL_LENGTH = 12  # characters of a token's label in the chart


@dataclass(frozen=True, kw_only=True)
class SizeButton:
    """A button that samples n times: 'Sample 1,000 times', pressed when the screen shows n draws."""

    n: int
    label: Markup
    pressed: bool


@dataclass(frozen=True, kw_only=True)
class ManyRow:
    """One token's picks beside its probability: the chart's row and the hidden table's."""

    id: int
    short_label: Markup  # the chart's, cut to LABEL_LENGTH characters
    label: Markup  # the table's
    y: int  # the top of its probability's bar, px
    text_y: int
    share_y: int
    prob_width: str  # percent of the chart's width
    share_width: str
    count: int
    count_text: str
    share: str
    prob: str


@dataclass(frozen=True, kw_only=True)
class ManyView:
    """The buttons, and the draws if the screen asked for them."""

    buttons: tuple[SizeButton, ...]
    drawn: bool  # the screen shows draws (many=N): the chart, its table and a Hide button
    n: int = 0
    n_text: str = ""
    seed: int = 0
    step: int = 0
    chart_height: int = 0
    rows: tuple[ManyRow, ...] = ()
    rest_note: Markup | None = None  # the picks of the kept tokens below the table


def present(screen: Screen) -> ManyView:
    """The sample-many section of the screen's step: its buttons, and state.many draws when asked."""
    many = sample_many(screen.result, screen.state.many) if screen.state.many else None
    buttons = tuple(
        SizeButton(
            n=n,
            label=ngettext("Sample %(num)s time", "Sample %(num)s times", n, num=thousands(n)),
            pressed=bool(many) and many.n == n,
        )
        for n in SIZES
    )
    if many is None:
        return ManyView(buttons=buttons, drawn=False)
    step = screen.result
    return ManyView(
        buttons=buttons,
        drawn=True,
        n=many.n,
        n_text=thousands(many.n),
        seed=step.settings.seed,
        step=step.step,
        chart_height=len(many.bins) * ROW_HEIGHT + 4,
        rows=_rows(screen, many),
        rest_note=_rest_note(many, step.rest.kept_count),
    )


def scale(many: ManySample) -> float:
    """The chart's top: the largest probability or share of any bar, at least FLOOR."""
    return max(max(b.prob for b in many.bins), max(b.share for b in many.bins), FLOOR)


def _rows(screen: Screen, many: ManySample) -> tuple[ManyRow, ...]:
    top, short, labels = scale(many), screen.short_labels(LABEL_LENGTH), screen.labels
    return tuple(_row(b, i * ROW_HEIGHT + 2, top, short, labels) for i, b in enumerate(many.bins))


def _row(b: Bin, y: int, top: float, short, labels) -> ManyRow:
    return ManyRow(
        id=b.id,
        short_label=short[b.id],
        label=labels[b.id],
        y=y,
        text_y=y + 15,
        share_y=y + 5,
        prob_width=f"{MANY_SPAN * b.prob / top:.3f}",
        share_width=f"{MANY_SPAN * b.share / top:.3f}",
        count=b.count,
        count_text=thousands(b.count),
        share=pct(b.share),
        prob=pct(b.prob),
    )


def _rest_note(many: ManySample, kept_count: int) -> Markup | None:
    """How often r fell below the table: 'The 4,979 kept tokens below the table: 12 picks (12.0 % vs 11.4 %).'"""
    if not (many.rest_count or kept_count):
        return None
    return ngettext(
        "The %(num)s kept token below the table: %(picks)s (%(share)s vs %(p)s).",
        "The %(num)s kept tokens below the table: %(picks)s (%(share)s vs %(p)s).",
        kept_count,
        num=thousands(kept_count),
        share=pct(many.rest_count / many.n),
        p=pct(many.rest_prob),
        picks=ngettext("%(num)s pick", "%(num)s picks", many.rest_count, num=thousands(many.rest_count)),
    )
