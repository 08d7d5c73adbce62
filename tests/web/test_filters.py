"""The display filters round for the screen only; check them against hand-worked values."""

from __future__ import annotations

import pytest

from webapp.web.filters import num, pct


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (0.31049, "31.0 %"),
        (1.0, "100.0 %"),
        (0.0, "0.0 %"),
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
