"""The step's rows as the logits table shows them: each row with its marks.

The table is drawn on every Step, so what marks a row (cut, picked, chosen by hand...) is worked out
here once, by the Screen's own rules, and the template only shows it. The softmax chart marks its
bars with the same `classes` (softmax.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from markupsafe import Markup

from ...inference import Row


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
