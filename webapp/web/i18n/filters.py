"""Jinja filters: numbers rounded for display (the numbers themselves come from the core), token labels.

Numbers follow the page's locale: '31.0 %' in English is '31,0 %' in German, '[0.442, 0.460)' is
'[0,442; 0,460)'. Each is written as in English with an f-string, then its symbols are swapped
through a table taken from Babel's locale data once per locale (Babel's own format_decimal costs
about 13 µs a number, and a page shows hundreds). English keeps the app's own style: a true minus
sign and a space before '%'. The JSON twin, the exports and the URLs never pass through here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from functools import lru_cache

from babel import Locale
from flask import Flask
from jinja2 import pass_context

from .labels import token_label

TRUE_MINUS = "−"


@dataclass(frozen=True)
class NumberStyle:
    """How a locale writes numbers: a table from the English symbols ('.', ',', '-') to its own, '%' around."""

    table: dict[int, str]
    percent_prefix: str
    percent_suffix: str
    range_separator: str  # between a range's ends: '[0.442, 0.460)', '[0,442; 0,460)'

    def __call__(self, english: str) -> str:
        """'−1,234.5' -> '−1.234,5' in German."""
        return english.translate(self.table)

    def percent(self, english: str) -> str:
        """'31.0' -> '31,0 %' in German."""
        return f"{self.percent_prefix}{english.translate(self.table)}{self.percent_suffix}"


ENGLISH = NumberStyle(
    table=str.maketrans({"-": TRUE_MINUS}), percent_prefix="", percent_suffix=" %", range_separator=", "
)


@lru_cache(maxsize=16)
def number_style(language: str) -> NumberStyle:
    """The locale's symbols and percent pattern, from Babel: 'de' -> ',' for '.', '.' for ',', '#,##0\xa0%'."""
    if language == "en":
        return ENGLISH
    locale = Locale.parse(language)
    symbols = locale.number_symbols["latn"]
    minus, decimal = symbols["minusSign"], symbols["decimal"]
    table = str.maketrans({".": decimal, ",": symbols["group"], "-": TRUE_MINUS if minus == "-" else minus})
    prefix, _, suffix = locale.percent_formats[None].pattern.split(";")[0].partition("#,##0")
    sign = symbols["percentSign"]
    # A comma inside the numbers cannot also part a range's ends: the locale's list separator does.
    separator = f"{symbols['list']} " if decimal == "," else ", "
    return NumberStyle(
        table=table,
        percent_prefix=prefix.replace("%", sign),
        percent_suffix=suffix.replace("%", sign),
        range_separator=separator,
    )


_style: ContextVar[NumberStyle] = ContextVar("number_style", default=ENGLISH)


def use_locale(language: str) -> Token:
    """Write this request's numbers as the language does; forget_locale(token) when it ends."""
    return _style.set(number_style(language))


def forget_locale(token: Token) -> None:
    _style.reset(token)


def pct(p: float, digits: int = 1) -> str:
    """0.31049 -> '31.0 %'; tiny but non-zero -> '<0.1 %' so nothing reads as impossible; exactly 0 -> '0 %'."""
    if p is None:
        return ""
    style = _style.get()
    if style is not ENGLISH:
        return _local_pct(style, p, digits)
    if p == 0:
        return "0 %"
    if 0 < p < 0.5 * 10**-digits / 100:
        return f"<{10**-digits:.{digits}f} %"
    return f"{100 * p:.{digits}f} %"


def _local_pct(style: NumberStyle, p: float, digits: int) -> str:
    if p == 0:
        return style.percent("0")
    if 0 < p < 0.5 * 10**-digits / 100:
        return "<" + style.percent(f"{10**-digits:.{digits}f}")
    return style.percent(f"{100 * p:.{digits}f}")


def num(x: float | None, digits: int = 3) -> str:
    """-2.18521 -> '−2.185' (a true minus sign), inf -> '∞', None -> '—'."""
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:.{digits}e}" if abs(x) >= 1e6 else f"{x:.{digits}f}"  # 3.1e+302, not three hundred digits
    style = _style.get()
    return text.replace("-", TRUE_MINUS) if style is ENGLISH else style(text)


def fixed(x: float, digits: int = 3) -> str:
    """'%.3f' in the page's locale: (0.31049, 3) -> '0.310', '0,310' in German."""
    style = _style.get()
    text = f"{x:.{digits}f}"
    return text if style is ENGLISH else style(text)


def general(x: float, digits: int | None = None) -> str:
    """'%g' (or '%.4g' with digits=4) in the page's locale: 0.8 -> '0.8', '0,8' in German; 1.0 -> '1'."""
    style = _style.get()
    text = f"{x:g}" if digits is None else f"{x:.{digits}g}"
    return text if style is ENGLISH else style(text)


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
PLAIN_RANGE = (1e-3, 1e6)  # numbers in it are written out; beyond it, as a power of ten


def readable(x: float, digits: int = 4) -> str:
    """A number as a pupil reads it, never '3.364e+05': whole with its thousands from 1,000 to a million,
    else `digits` significant figures, as a power of ten beyond PLAIN_RANGE.

    336418.3 -> '336,418'; 601.83 -> '601.8'; 1.0 -> '1'; 3.3642e9 -> '3.364 × 10⁹'; 1.93e-22 -> '1.93 × 10⁻²²'.
    """
    if not math.isfinite(x) or x == 0:
        return num(x) if math.isinf(x) else general(x)
    size = abs(x)
    if PLAIN_RANGE[0] <= size < PLAIN_RANGE[1]:
        text = f"{x:,.0f}" if size >= 1000 else f"{x:.{digits}g}"
    else:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        text = f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"
    style = _style.get()
    return text.replace("-", TRUE_MINUS) if style is ENGLISH else style(text)


def thousands(n: int) -> str:
    """4871 -> '4,871'; '4.871' in German, '4 871' in French."""
    style = _style.get()
    return f"{n:,}" if style is ENGLISH else style(f"{n:,}")


def message_number(value):
    """A figure in a message as the locale writes it: ints grouped (2,000), floats as %g (0.5); text as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return thousands(value) if isinstance(value, int) else general(value)


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
    (or are one float, near 1): (1.0, 1.0, 3, 2.3e-30) -> '[1.000, 1.000 + 2.3 × 10⁻³⁰)', written as readable()
    writes it: never '2.3e−30', an e that is not the number e.
    """
    if lo is None:
        return "—"
    low, high = f"{lo:.{digits}f}", f"{hi:.{digits}f}"
    style = _style.get()
    if style is not ENGLISH:
        return _local_span(style, low, high, hi - lo if width is None else width)
    if low != high:
        return f"[{low}, {high})"
    return f"[{low}, {low} + {readable(hi - lo if width is None else width, 2)})"


def _local_span(style: NumberStyle, low: str, high: str, width: float) -> str:
    """'[0,442; 0,460)': the ends in the locale's digits, split by '; ' where the decimal mark is a comma."""
    if low != high:
        return f"[{style(low)}{style.range_separator}{style(high)})"
    return f"[{style(low)}{style.range_separator}{style(low)} + {readable(width, 2)})"


def per_request(write: Callable[..., str]) -> Callable[..., str]:
    """The filter `write`, never run while a template compiles: Jinja folds a filter of constants
    (`1 | fixed(3)`) into the compiled template, which would keep the first request's locale."""

    @pass_context
    def filter_(_context, *args, **kwargs):
        return write(*args, **kwargs)

    filter_.__name__ = write.__name__
    return filter_


def register(app: Flask) -> None:
    for write in (pct, num, fixed, general):
        app.add_template_filter(per_request(write), write.__name__)
    app.add_template_filter(token_label)
    app.jinja_env.globals.update(inf=math.inf, span=span, thousands=thousands)
