"""The range bar's geometry: where each range of [0, 1) is drawn, and which ranges have room for a label.

The bar is an inline SVG whose x and widths are percent of its width, so that its text keeps its size
on any screen. A token's range gets its label (cut to 10 characters) when it is wider than 4.5 % of
the bar, in the narrow style below 14 %; the rest of the vocabulary ('4,979 others'), which may lie
in several pieces, labels its widest piece only, when that is wider than 9 %, narrow below 20 %.
Every figure is written here as the SVG wants it ('%.3f'); the template only places them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from markupsafe import Markup

from ...inference import Row

TICKS = (0, 0.25, 0.5, 0.75, 1)  # the scale under the bar


@dataclass(frozen=True)
class LabelRule:
    """When a range gets a label: wider than `least` percent of the bar; in the narrow style below `normal`."""

    least: float
    normal: float

    def labelled(self, width: float) -> bool:
        """Whether a range `width` percent wide has room for a label: TOKEN_LABEL, 4.4 -> False, 4.6 -> True."""
        return width > self.least

    def narrow(self, width: float) -> bool:
        """Whether a labelled range this wide takes the narrow style: TOKEN_LABEL, 4.6 -> True, 14 -> False."""
        return width < self.normal


TOKEN_LABEL = LabelRule(least=4.5, normal=14)  # a token, up to 10 characters
REST_LABEL = LabelRule(least=9, normal=20)  # '4,979 others'


@dataclass(frozen=True)
class BarRange:
    """One range drawn on the bar, in percent of its width; its label, if it has room for one."""

    x: str  # '21.133'
    width: str  # '12.011'
    label: Markup | None  # None: too narrow for one
    label_x: str  # the label's middle: '27.139'
    narrow: bool  # the label in the narrow style
    landing: bool  # r landed in it


def bar_range(lo: float, hi: float, label: Markup | None, rule: LabelRule, landing: bool = False) -> BarRange:
    """The range [lo, hi) drawn: (0.2113, 0.3314, 'a', TOKEN_LABEL) -> x '21.133', width '12.011', a narrow label."""
    width = (hi - lo) * 100
    labelled = label is not None and rule.labelled(width)
    return BarRange(
        x=f"{lo * 100:.3f}",
        width=f"{width:.3f}",
        label=label if labelled else None,
        label_x=f"{(lo + hi) * 50:.3f}" if labelled else "",
        narrow=labelled and rule.narrow(width),
        landing=landing,
    )


def kept_ranges(rows: Sequence[Row], labels: Sequence[Markup], picked: int | None) -> tuple[BarRange, ...]:
    """The kept rows' ranges, each labelled by its token where it has room; `picked`: the id r landed on."""
    return tuple(bar_range(row.lo, row.hi, labels[row.id], TOKEN_LABEL, row.id == picked) for row in rows if row.kept)


def widest(pieces: Sequence[tuple[float, float]]) -> int | None:
    """Which piece is the widest, the first of equals: [(0.7, 0.77), (0.77, 1.0)] -> 1; none -> None."""
    return max(range(len(pieces)), key=lambda i: pieces[i][1] - pieces[i][0]) if pieces else None


def rest_ranges(pieces: Sequence[tuple[float, float]], label: Markup) -> tuple[BarRange, ...]:
    """The rest's pieces of [0, 1), its label on the widest one only, where that one has room."""
    labelled = widest(pieces)
    return tuple(bar_range(lo, hi, label if i == labelled else None, REST_LABEL) for i, (lo, hi) in enumerate(pieces))


def tick_places() -> tuple[str, ...]:
    """The ticks' x, as the bar has always written them: '0', '25.0', '50.0', '75.0', '100'."""
    return tuple(str(tick * 100) for tick in TICKS)


def marker_x(r: float) -> str:
    """Where r is drawn on the bar: 0.7701409 -> '77.014'."""
    return f"{r * 100:.3f}"


# The step bar's enlarged view of the bar around the pick (step_bar.py): the picked range fills ZOOM_SHARE of
# its width where the bar allows, so that a range of 0.4 % reads as well as one of 40 %; its neighbours show
# their edges. A range whose enlarged width is over ZOOM_LABEL percent gets its label.
ZOOM_SHARE = 0.4
ZOOM_LABEL = 14.0


@dataclass(frozen=True)
class ZoomedRange:
    """A range in the enlarged view, in percent of the view's width, cut at the view's edges."""

    x: str
    width: str
    colour: str  # 'c0' to 'c5': its colour on the bar (by position, cycling every 6); 'rest': grey
    label: Markup | None
    label_x: str


@dataclass(frozen=True)
class Zoom:
    """The enlarged view: the part [lo, hi) of [0, 1) it shows, the ranges in it, the picked one, r."""

    ranges: tuple[ZoomedRange, ...]  # the kept ranges in view but the picked one; grey behind them is the rest
    picked: ZoomedRange
    marker_x: str


def zoom_window(lo: float, hi: float, share: float = ZOOM_SHARE) -> tuple[float, float]:
    """The part of [0, 1) that shows the range [lo, hi) as `share` of its width, the range in its middle where
    the bar allows.

    >>> [round(end, 4) for end in zoom_window(0.382, 0.386)]
    [0.379, 0.389]
    >>> zoom_window(0.99, 1.0)
    (0.975, 1.0)
    >>> zoom_window(0.2, 0.8)
    (0.0, 1.0)
    """
    width = min(1.0, max(hi - lo, 1e-12) / share)
    start = min(max((lo + hi - width) / 2, 0.0), 1.0 - width)
    return start, start + width


def zoomed(lo: float, hi: float, window: tuple[float, float], colour: str, label: Markup | None) -> ZoomedRange | None:
    """The range [lo, hi) in the view `window`, cut at its edges; None when none of it is in view.

    (0.38, 0.39) in (0.379, 0.389): x 10 %, width 90 %.
    """
    start, end = window
    left, right = max(lo, start), min(hi, end)
    if right <= left:
        return None
    x, width = (left - start) / (end - start) * 100, (right - left) / (end - start) * 100
    labelled = label is not None and width > ZOOM_LABEL
    return ZoomedRange(
        x=f"{x:.3f}",
        width=f"{width:.3f}",
        colour=colour,
        label=label if labelled else None,
        label_x=f"{x + width / 2:.3f}" if labelled else "",
    )


def zoom(rows: Sequence[Row], labels: Sequence[Markup], picked: Row, r: float) -> Zoom:
    """The enlarged view around the picked row's range: the kept rows' ranges in view, each in its colour on the
    bar, the picked one labelled (the rest of the vocabulary is the grey behind them), and r's marker."""
    window = zoom_window(picked.lo, picked.hi)
    kept = [row for row in rows if row.kept]
    colours = {row.id: f"c{i % 6}" for i, row in enumerate(kept)}
    around = (zoomed(row.lo, row.hi, window, colours[row.id], labels[row.id]) for row in kept if row.id != picked.id)
    shown = zoomed(picked.lo, picked.hi, window, colours.get(picked.id, "rest"), labels[picked.id])
    start, end = window
    marker = (r - start) / (end - start) * 100
    return Zoom(
        ranges=tuple(piece for piece in around if piece is not None),
        picked=replace(shown, label=labels[picked.id], label_x=f"{beside(shown, marker):.3f}"),
        marker_x=f"{marker:.3f}",
    )


def beside(piece: ZoomedRange, marker: float) -> float:
    """Where a range's label goes so as to keep clear of the marker in it: the middle of its wider side.

    A range at x 30 %, 40 % wide: the marker at 40 % -> 55.0, at 65 % -> 47.5.
    """
    x, width = float(piece.x), float(piece.width)
    left, right = marker - x, x + width - marker
    return (marker + x + width) / 2 if right >= left else (x + marker) / 2
