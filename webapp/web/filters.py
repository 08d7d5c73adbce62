"""Jinja filters: numbers rounded for display (the numbers themselves come from the core), token labels."""

from __future__ import annotations

import math

from flask import Flask

from .labels import token_label


def pct(p: float, digits: int = 1) -> str:
    """0.31049 -> '31.0 %'; tiny but non-zero -> '<0.1 %' so nothing reads as impossible."""
    if p is None:
        return ""
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


def register(app: Flask) -> None:
    app.add_template_filter(pct)
    app.add_template_filter(num)
    app.add_template_filter(token_label)
    app.jinja_env.globals["thousands"] = lambda n: f"{n:,}"
    app.jinja_env.globals.update(inf=math.inf, log2=math.log2)
