"""Jinja filters: numbers rounded for display (the numbers themselves come from the core), token labels."""

from __future__ import annotations

import math
from collections.abc import Iterable

from flask import Flask

from .labels import token_label


def pct(p: float, digits: int = 1) -> str:
    """0.31049 -> '31.0 %'; tiny but non-zero -> '<0.1 %' so nothing reads as impossible; exactly 0 -> '0 %'."""
    if p is None:
        return ""
    if p == 0:
        return "0 %"
    if 0 < p < 0.5 * 10**-digits / 100:
        return f"<{10**-digits:.{digits}f} %"
    return f"{100 * p:.{digits}f} %"


def num(x: float | None, digits: int = 3) -> str:
    """-2.18521 -> '−2.185' (a true minus sign), inf -> '∞', None -> '—'."""
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if abs(x) >= 1e6:  # e.g. z / T at a tiny T: 3.1e+302, not three hundred digits
        return f"{x:.{digits}e}".replace("-", "−")
    return f"{x:.{digits}f}".replace("-", "−")


LEAST_DIGITS = 3
MOST_DIGITS = 4  # a range narrower than 0.0001 shows its width instead: the columns stay short


def range_digits(spans: Iterable[tuple[float, float]], least: int = LEAST_DIGITS, most: int = MOST_DIGITS) -> int:
    """The fewest digits, from least to most, that show each [lo, hi) with lo below hi.

    [(0.0, 0.62), (0.62, 0.9996)] -> 3; with (0.9996, 1.0) too -> 4, as 3 digits read [1.000, 1.000).
    A pair (r, hi) asks that r reads below the end of the range it fell in. Ranges narrower than
    `most` digits can show get their width instead (see span).
    """
    spans = [(lo, hi) for lo, hi in spans if hi - lo >= 10**-most]  # narrower ones show their width
    for digits in range(least, most + 1):
        if all(f"{lo:.{digits}f}" != f"{hi:.{digits}f}" for lo, hi in spans):
            return digits
    return most


PICK_MOST_DIGITS = 8


def pick_digits(r: float, lo: float, hi: float, least: int = LEAST_DIGITS, most: int = PICK_MOST_DIGITS) -> int:
    """The fewest digits, from least, that show r inside its range: 'r = 0.6370 falls in [0.6369, 0.6370)'
    reads wrong, so (0.63697, 0.63690, 0.63700, 4) -> 5: 'r = 0.63697 falls in [0.63690, 0.63700)'."""
    for digits in range(least, most + 1):
        low, high, at = (f"{x:.{digits}f}" for x in (lo, hi, r))
        if low <= at < high:  # same-length decimals compare as numbers
            return digits
    return most


def span(lo: float | None, hi: float | None, digits: int = LEAST_DIGITS, width: float | None = None) -> str:
    """A range as '[0.620, 0.910)'; one too narrow for `digits` as its start plus its width; no range: '—'.

    `width` is the range's probability, for a range so narrow that lo and hi round alike
    (or are one float, near 1): (1.0, 1.0, 3, 2.3e-30) -> '[1.000, 1.000 + 2.3e−30)'.
    """
    if lo is None:
        return "—"
    low, high = f"{lo:.{digits}f}", f"{hi:.{digits}f}"
    if low != high:
        return f"[{low}, {high})"
    return f"[{low}, {low} + {(hi - lo if width is None else width):.1e})".replace("e-", "e−")


def register(app: Flask) -> None:
    app.add_template_filter(pct)
    app.add_template_filter(num)
    app.add_template_filter(token_label)
    app.jinja_env.globals["thousands"] = lambda n: f"{n:,}"
    app.jinja_env.globals.update(inf=math.inf, span=span)
