"""Stage 3, softmax and temperature: the chart of the step's probabilities as its panel shows it.

The logits become probabilities p = e^(z/T) / Σ e^(z/T); the chart has a bar per table row at T
and, behind it, a faint one at T = 1. Under it: the chart's numbers (folded), the same logits at
other temperatures, and the softmax worked out for the top token (folded). Every figure is written
here, in the page's language; the template only places them.

Bar lengths are in percent of the chart's width, so that the labels keep their size on a phone:
the longest bar, at T or at T = 1, is BAR_SPAN % long. Only what differs from row to row is here
(the row's place, its bars' lengths, its marks); where a row's label, bars and value sit in it is
the same for every row, and is in app.css (present.css for presenter mode).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from ...inference import Row
from ...inference.derived import explain
from ...inference.derived.compare import at_temperatures
from ..i18n.filters import general, num, pct, readable, thousands
from ..i18n.labels import token_label
from ..i18n.translations import template_gettext as _
from .folds import FoldView, fold_view
from .screen import Screen
from .table_view import classes

BAR_SPAN = 50  # percent of the chart's width: the longest bar; the labels and the values have the rest
ROW_HEIGHT = 24  # px; the stylesheets place each row's label, bars and value for this height
PRESENTER_ROW_HEIGHT = 30  # larger labels on a projector
MARGIN = 4  # px above the first row and below the last
FLOOR = 0.001  # the scale's least top: a chart of tiny probabilities is not blown up to full length
SHORT_LABEL = 14  # characters of a token's label in the chart


@dataclass(frozen=True)
class Bar:
    """One row of the chart, and of its numbers' table: the token, its place, its two bars, its figures."""

    label: Markup  # the token as the screen writes it, escaped
    short_label: Markup  # the same, cut to SHORT_LABEL characters for the chart
    y: int  # px from the chart's top to the row's
    width: str  # the bar at T, in percent of the chart's width: '28.272'
    width_t1: str  # the faint bar at T = 1
    marks: str  # the row's classes: 'cut', 'picked', both or ''
    prob: str
    prob_t1: str


@dataclass(frozen=True)
class Column:
    """A temperature of the comparison: 'T = 0.5', the chosen one marked."""

    temperature: str
    current: bool


@dataclass(frozen=True)
class CompareRow:
    """One top token's probability at each of the comparison's temperatures."""

    label: str  # the token as the screen writes it (the template escapes it)
    cells: tuple[tuple[str, bool], ...]  # (p, whether its column is the chosen T)


@dataclass(frozen=True)
class Example:
    """The worked example's figures: p of the top token, from its logit, step by step."""

    for_token: Markup  # "For 'the':", with the model's own logit when the penalties moved it
    shifted: bool  # e^(z/T) would not fit a float: the largest logit is subtracted first
    logit: str
    temperature: str
    scaled: str  # z / T
    zmax: str  # the largest logit, when shifted; else ''
    exponent: str
    exp: str  # as a pupil reads it: '336,418', '3.364 × 10⁹', never '3.364e+05'
    total: str
    prob: str
    spread: Markup  # what T did: 'T = 0.5 is below 1, so the distribution is sharper: ...'


@dataclass(frozen=True)
class ChartPanel:
    """Stage 3's panel: the softmax at T, its chart, its numbers, other temperatures, the worked example."""

    hidden: bool  # predict, then reveal: the chart stays hidden until Reveal
    heading: Markup  # 'Softmax at T = 0.7', '... (greedy)' at T = 0
    greedy: bool  # T = 0: all the probability on the highest logit, nothing divided
    n_vocab: int
    n_vocab_text: str
    spread_note: Markup | None  # 'T < 1 sharpens the distribution.', 'T > 1 flattens it.'; None at T = 0 or 1
    height: int  # the chart's, px
    bars: tuple[Bar, ...]  # none while hidden
    temperature: str  # T as the numbers' heading writes it
    both: bool  # the numbers give p at T beside p at T = 1 (at T = 1 they would be the same column)
    numbers_caption: Markup
    numbers: FoldView
    compare: bool  # the screen sends the comparison (presenter mode leaves it off the projector)
    compare_columns: tuple[Column, ...]
    compare_rows: tuple[CompareRow, ...]
    worked: FoldView
    greedy_top: str  # the highest logit's token, for the worked example at T = 0
    example: Example | None  # None at T = 0 (greedy: nothing to divide) and while hidden


def present(screen: Screen) -> ChartPanel:
    """The softmax panel of the screen's step."""
    step, hidden = screen.result, screen.hidden
    t = step.settings.applied_temperature
    bars = () if hidden else _bars(screen)
    compare = screen.sends("compare") and not hidden
    columns, compare_rows = _comparison(screen) if compare else ((), ())
    return ChartPanel(
        hidden=hidden,
        heading=_heading(t),
        greedy=spread(t) == "greedy",
        n_vocab=screen.model.n_vocab,
        n_vocab_text=thousands(screen.model.n_vocab),
        spread_note=_spread_note(t),
        height=chart_height(len(bars), screen.state.present),
        bars=bars,
        temperature=general(t),
        both=spread(t) != "unchanged",
        numbers_caption=_numbers_caption(t),
        numbers=fold_view(screen, "chart-numbers", "chart-numbers", _("The chart's numbers")),
        compare=compare,
        compare_columns=columns,
        compare_rows=compare_rows,
        worked=fold_view(screen, "worked-softmax", "worked", _("Worked example")),
        greedy_top=token_label(step.rows[0].token),
        example=None if hidden else _example(screen),
    )


def spread(t: float) -> str:
    """What T does to the distribution: 0 -> 'greedy', 0.5 -> 'sharper', 1 -> 'unchanged', 1.5 -> 'flatter'."""
    if t == 0:
        return "greedy"
    return "sharper" if t < 1 else "flatter" if t > 1 else "unchanged"


def _heading(t: float) -> Markup:
    if spread(t) == "greedy":
        # Translators: T is the temperature: keep the letter T, as in the formulas.
        return _("Softmax at T = %(t)s (greedy)", t=general(t))
    # Translators: T is the temperature: keep the letter T, as in the formulas.
    return _("Softmax at T = %(t)s", t=general(t))


def _spread_note(t: float) -> Markup | None:
    """The note's word on T, after the formula: none at T = 1 (and at T = 0, which has a note of its own)."""
    how = spread(t)
    if how == "sharper":
        return _("T &lt; 1 sharpens the distribution.")
    if how == "flatter":
        return _("T &gt; 1 flattens it.")
    return None


def _numbers_caption(t: float) -> Markup:
    if spread(t) == "unchanged":
        return _("Probabilities at T = 1")
    return _("Probabilities at T = %(t)s and at T = 1", t=general(t))


def percent(x: float) -> str:
    """A length in percent, to a thousandth, without trailing zeros: 28.27194 -> '28.272', 50.0 -> '50'."""
    return f"{x:.3f}".rstrip("0").rstrip(".")


def chart_height(n_bars: int, presenting: bool) -> int:
    """The chart's height in px: 20 rows of 24 px and a margin above and below -> 488; taller rows in presenter mode."""
    return n_bars * (PRESENTER_ROW_HEIGHT if presenting else ROW_HEIGHT) + 2 * MARGIN


def bar_scale(rows: Sequence[Row]) -> float:
    """The probability drawn BAR_SPAN % long: the largest at T or at T = 1, but never under FLOOR."""
    return max(max(row.prob for row in rows), max(row.prob_t1 for row in rows), FLOOR)


def _bars(screen: Screen) -> tuple[Bar, ...]:
    """The chart's rows, one per table row, the picked one marked (Screen.picked)."""
    rows = screen.result.rows
    labels, short = screen.labels, screen.short_labels(SHORT_LABEL)
    top = bar_scale(rows)
    row_height = PRESENTER_ROW_HEIGHT if screen.state.present else ROW_HEIGHT
    return tuple(
        Bar(
            label=labels[row.id],
            short_label=short[row.id],
            y=MARGIN + i * row_height,
            width=percent(BAR_SPAN * row.prob / top),
            width_t1=percent(BAR_SPAN * row.prob_t1 / top),
            marks=classes(("cut", row.cut), ("picked", screen.picked(row))),
            prob=pct(row.prob),
            prob_t1=pct(row.prob_t1),
        )
        for i, row in enumerate(rows)
    )


def _comparison(screen: Screen) -> tuple[tuple[Column, ...], tuple[CompareRow, ...]]:
    """The top tokens at 0.5, 1 and 1.5 and at the step's own T (before truncation), its column marked."""
    c = at_temperatures(screen.result)
    chosen = screen.result.settings.temperature
    current = tuple(t == chosen for t in c.temperatures)
    columns = tuple(Column(temperature=general(t), current=now) for t, now in zip(c.temperatures, current, strict=True))
    rows = tuple(
        CompareRow(label=token_label(token), cells=tuple(zip(map(pct, probs), current, strict=True)))
        for token, probs in zip(c.tokens, c.probs, strict=True)
    )
    return columns, rows


def _example(screen: Screen) -> Example | None:
    """The softmax of the top token written out (explain.softmax_example); None at T = 0."""
    e = explain.softmax_example(screen.result)
    if e is None:
        return None
    shifted = e.zmax is not None
    return Example(
        for_token=_for_token(e),
        shifted=shifted,
        logit=num(e.logit),
        temperature=general(e.temperature),
        scaled=num(e.scaled),
        zmax=num(e.zmax) if shifted else "",
        exponent=num(e.exponent),
        exp=readable(e.exp),
        total=readable(e.total),
        prob=pct(e.prob),
        spread=_example_spread(e),
    )


def _for_token(e: explain.SoftmaxExample) -> Markup:
    """Which token the example works out, with the model's own logit when the penalties changed it."""
    if e.model_logit is None:
        return _("For '%(token)s':", token=token_label(e.token))
    return _(
        "For '%(token)s' (z = %(z)s after the penalties; the model gave %(model_z)s):",
        token=token_label(e.token),
        z=num(e.logit),
        model_z=num(e.model_logit),
    )


def _example_spread(e: explain.SoftmaxExample) -> Markup:
    """What T did to the top token's probability, against T = 1."""
    how = spread(e.temperature)
    figures = {"t": general(e.temperature), "p": pct(e.prob), "p_t1": pct(e.prob_t1)}
    if how == "sharper":
        return _(
            "T = %(t)s is below 1, so the distribution is sharper: "
            "the top token has %(p)s instead of %(p_t1)s at T = 1.",
            **figures,
        )
    if how == "flatter":
        return _(
            "T = %(t)s is above 1, so the distribution is flatter: "
            "the top token has %(p)s instead of %(p_t1)s at T = 1.",
            **figures,
        )
    return _("At T = 1 the logits are used as they are.")
