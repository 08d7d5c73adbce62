"""The step's rows as two panels show them: the logits table's rows and the softmax chart's bars.

Both are drawn on every Step, so what marks a row (cut, picked, chosen by hand...) is worked out here
once, by the Screen's own rules, and the templates only show it.

The chart has a bar per table row at T and, behind it, a faint one at T = 1. Lengths are in percent
of the chart's width, so that the labels keep their size on a phone: the longest bar, at T or at
T = 1, is BAR_SPAN % long. Only what differs from row to row is here (the row's place, its bars'
lengths, its marks); where a row's label, bars and value sit in it is the same for every row, and is
in app.css (present.css for presenter mode).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from markupsafe import Markup

from ...inference import Row

BAR_SPAN = 50  # percent of the chart's width: the longest bar; the labels and the values have the rest
ROW_HEIGHT = 24  # px; the stylesheets place each row's label, bars and value for this height
PRESENTER_ROW_HEIGHT = 30  # larger labels on a projector
MARGIN = 4  # px above the first row and below the last
FLOOR = 0.001  # the scale's least top: a chart of tiny probabilities is not blown up to full length


class RowRules(Protocol):
    """What a screen says of each row (stages.screen.Screen has these): the rules the marks come from."""

    labels: Sequence[Markup]

    def picked(self, row: Row) -> bool: ...
    def chosen_instead(self, row: Row) -> bool: ...
    def beyond(self, row: Row) -> bool: ...
    def renormalised(self, row: Row) -> bool: ...
    def choosable(self, row: Row) -> bool: ...


@dataclass(frozen=True)
class TableRow:
    """One row of the logits table: its token's row, its label, and how the screen marks it."""

    row: Row
    label: Markup  # the token as the screen writes it, escaped
    marks: str  # the row's classes: 'cut' or 'zero', 'picked', 'forced', 'beyond', space-separated; or ''
    picked: bool
    chosen: bool  # chosen by hand instead of the pick
    renormalised: bool  # notes its probability after truncation
    choosable: bool  # offers "choose"


def classes(*named: tuple[str, bool]) -> str:
    """The names that are on, as a class attribute: ('cut', True), ('picked', False) -> 'cut'; none -> ''."""
    return " ".join(name for name, on in named if on)


def table_rows(rows_shown: Sequence[Row], screen: RowRules) -> tuple[TableRow, ...]:
    """The table's rows, marked by the screen's rules (Screen.picked, Screen.chosen_instead, ...)."""
    labels, rows = screen.labels, []
    for row in rows_shown:
        picked, chosen = screen.picked(row), screen.chosen_instead(row)
        marks = classes(
            ("cut", row.cut), ("zero", row.zero), ("picked", picked), ("forced", chosen), ("beyond", screen.beyond(row))
        )
        rows.append(
            TableRow(
                row=row,
                label=labels[row.id],
                marks=marks,
                picked=picked,
                chosen=chosen,
                renormalised=screen.renormalised(row),
                choosable=screen.choosable(row),
            )
        )
    return tuple(rows)


@dataclass(frozen=True)
class Bar:
    """One row of the chart: its token's row, its place, and the lengths of its two bars."""

    row: Row
    y: int  # px from the chart's top to the row's
    width: str  # the bar at T, in percent of the chart's width: '28.272'
    width_t1: str  # the faint bar at T = 1
    marks: str  # the row's classes: 'cut', 'picked', both or ''


@dataclass(frozen=True)
class Chart:
    bars: tuple[Bar, ...]
    height: int  # px


def percent(x: float) -> str:
    """A length in percent, to a thousandth, without trailing zeros: 28.27194 -> '28.272', 50.0 -> '50'."""
    return f"{x:.3f}".rstrip("0").rstrip(".")


def chart(rows: Sequence[Row], screen: RowRules, present: bool) -> Chart:
    """The chart of the table's rows, the picked one marked (Screen.picked); taller rows in presenter mode."""
    top = max(max(row.prob for row in rows), max(row.prob_t1 for row in rows), FLOOR)
    row_height = PRESENTER_ROW_HEIGHT if present else ROW_HEIGHT
    bars = tuple(
        Bar(
            row=row,
            y=MARGIN + i * row_height,
            width=percent(BAR_SPAN * row.prob / top),
            width_t1=percent(BAR_SPAN * row.prob_t1 / top),
            marks=classes(("cut", row.cut), ("picked", screen.picked(row))),
        )
        for i, row in enumerate(rows)
    )
    return Chart(bars=bars, height=len(rows) * row_height + 2 * MARGIN)
