"""Jinja filters that round numbers for display (the numbers themselves come from the core)."""

from __future__ import annotations

import math
from functools import lru_cache

from flask import Flask
from markupsafe import Markup, escape

from ..inference import LanguageModel


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


WHITESPACE_SIGNS = str.maketrans({"\n": "↵", "\r": "␍", "\t": "⇥"})


def token_label(token: str) -> str:
    """How a token reads on screen: the paragraph token as a pilcrow; the spaces a subword token
    starts with as '␣' and line breaks as '↵', so that ' Paris' reads '␣Paris' and '\n' reads '↵'."""
    if token == "<p>":
        return "¶"
    body = token.lstrip(" ")
    return "␣" * (len(token) - len(body)) + body.translate(WHITESPACE_SIGNS)


def shorten(text: str, length: int) -> str:
    """Cut a long label to `length` characters ending in '…', as Jinja's truncate(length, true, '…')
    does: a text at most 5 longer than `length` is left whole."""
    return text if len(text) <= length + 5 else text[: length - 1] + "…"


@lru_cache(maxsize=64)
def token_labels(model: LanguageModel, length: int | None = None) -> tuple[Markup, ...]:
    """Every token's label, escaped once per model: `token_labels(model)[i]` is `token_label` of token
    i, and `token_labels(model, 10)[i]` the same shortened to 10 characters (see shorten).

    The panels show dozens of a model's tokens on every Step; a lookup costs less than
    relabelling and re-escaping each one each time.
    """
    labels = (token_label(model.tokenizer.token_text(i)) for i in range(model.n_vocab))
    return tuple(escape(label if length is None else shorten(label, length)) for label in labels)


def register(app: Flask) -> None:
    app.add_template_filter(pct)
    app.add_template_filter(num)
    app.add_template_filter(token_label)
    app.jinja_env.globals["thousands"] = lambda n: f"{n:,}"
