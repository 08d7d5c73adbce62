"""The display filters round for the screen only; check them against hand-worked values."""

from __future__ import annotations

import pytest

from webapp.web.i18n.filters import num, pct, pick_digits, range_digits, readable, span


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (0.31049, "31.0 %"),
        (1.0, "100.0 %"),
        (0.0, "0 %"),
        (0.0004, "<0.1 %"),
        (1e-300, "<0.1 %"),
        (0.00051, "0.1 %"),
        (0.99996, "100.0 %"),
    ],
)
def test_pct(p, shown):
    assert pct(p) == shown


@pytest.mark.parametrize(
    ("x", "shown"),
    [
        (336418.3, "336,418"),
        (601.83, "601.8"),
        (1.0, "1"),
        (0.04076, "0.04076"),
        (3.3642e9, "3.364 × 10⁹"),
        (1.93e-22, "1.93 × 10⁻²²"),
        (2e6, "2 × 10⁶"),
        (-5e-7, "\N{MINUS SIGN}5 × 10⁻⁷"),
    ],
)
def test_readable_writes_no_e_notation(x, shown):
    assert readable(x) == shown


@pytest.mark.parametrize(
    ("x", "shown"),
    [
        (-2.18521, "\N{MINUS SIGN}2.185"),
        (0.0, "0.000"),
        (3.0, "3.000"),
        (None, "—"),
        (float("inf"), "∞"),
        (float("-inf"), "\N{MINUS SIGN}∞"),
        (-0.0001, "\N{MINUS SIGN}0.000"),
    ],
)
def test_num(x, shown):
    assert num(x) == shown


@pytest.mark.parametrize(
    ("spans", "digits"),
    [
        ([(0.0, 0.62), (0.62, 0.9996)], 3),
        ([(0.0, 0.62), (0.62, 0.9996), (0.9996, 1.0)], 4),  # 3 digits read [1.000, 1.000)
        ([(0.0, 0.5), (0.5, 0.5 + 1e-9)], 3),  # too narrow for 4 digits: shown by its width instead
    ],
)
def test_range_digits_keep_every_range_from_reading_empty(spans, digits):
    assert range_digits(spans) == digits


@pytest.mark.parametrize(
    ("lo", "hi", "digits", "shown"),
    [
        (0.62, 0.91, 3, "[0.620, 0.910)"),
        (0.9996, 1.0, 4, "[0.9996, 1.0000)"),
        (1.0, 1.0, 3, "[1.000, 1.000 + 2.3 × 10⁻³⁰)"),  # one float near 1: the width is its probability
        (None, None, 3, "—"),
    ],
)
def test_span_is_never_empty(lo, hi, digits, shown):
    assert span(lo, hi, digits, width=2.3e-30) == shown


def test_pick_digits_put_r_inside_its_range():
    assert pick_digits(0.734, 0.62, 0.91) == 3
    assert pick_digits(0.63697, 0.6369, 0.6370, least=4) == 5  # 'r = 0.6370 falls in [0.6369, 0.6370)' reads wrong
