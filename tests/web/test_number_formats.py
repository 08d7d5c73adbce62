"""Figures in each page language, checked against Babel's own formatter (webapp.web.i18n.filters swaps symbols)."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from babel.numbers import format_decimal
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.web.i18n import filters

LOCAL = ("es", "de", "fr", "zh")


@contextmanager
def in_locale(lang: str):
    token = filters.use_locale(lang)
    try:
        yield
    finally:
        filters.forget_locale(token)


def babel(x, pattern: str, lang: str) -> str:
    return format_decimal(x, format=pattern, locale=lang).replace("-", "−")


@pytest.mark.parametrize("lang", LOCAL)
@settings(deadline=None)  # the first call reads Babel's locale data from disk
@given(n=st.integers(min_value=-(10**12), max_value=10**12))
def test_thousands_groups_as_babel_does(lang, n):
    with in_locale(lang):
        assert filters.thousands(n) == babel(n, "#,##0", lang)


@pytest.mark.parametrize("lang", LOCAL)
@settings(deadline=None)  # the first call reads Babel's locale data from disk
@given(n=st.integers(min_value=-(10**6) + 1, max_value=10**6 - 1), digits=st.integers(min_value=1, max_value=4))
def test_fixed_and_num_write_the_locales_decimal_mark(lang, n, digits):
    x = n / 10**digits  # exactly `digits` decimals: no rounding for the two formatters to disagree on
    with in_locale(lang):
        assert filters.fixed(x, digits) == babel(x, "0." + "0" * digits, lang)
        assert filters.num(x, digits) == babel(x, "0." + "0" * digits, lang)


@pytest.mark.parametrize("lang", LOCAL)
@settings(deadline=None)  # the first call reads Babel's locale data from disk
@given(n=st.integers(min_value=1, max_value=1000))
def test_pct_writes_the_locales_percent_pattern(lang, n):
    expected = format_decimal(n / 10, format="0.0", locale=lang)  # Babel's pattern: '#,##0\xa0%' or '#,##0%'
    with in_locale(lang):
        assert filters.pct(n / 1000) == {"zh": f"{expected}%"}.get(lang, f"{expected}\xa0%")


def test_a_range_in_a_decimal_comma_locale_parts_its_ends_with_a_semicolon():
    with in_locale("de"):
        assert filters.span(0.442, 0.46) == "[0,442; 0,460)"
        assert filters.span(1.0, 1.0, 3, 2.3e-30) == "[1,000; 1,000 + 2,3 × 10⁻³⁰)"
        assert filters.pct(1e-9) == "<0,1\xa0%" and filters.pct(0) == "0\xa0%"
    with in_locale("zh"):
        assert filters.span(0.442, 0.46) == "[0.442, 0.460)", "a decimal point keeps the comma between the ends"


def test_english_is_the_apps_own_style_whatever_babel_says():
    assert (filters.pct(0.31049), filters.num(-2.18521)) == ("31.0 %", "−2.185")
    assert filters.span(0.442, 0.46) == "[0.442, 0.460)"
    assert (filters.thousands(4871), filters.fixed(-0.5, 2), filters.general(0.8)) == ("4,871", "-0.50", "0.8")


@pytest.mark.parametrize("lang", LOCAL)
def test_a_message_figure_is_grouped_or_general_and_text_is_left_alone(lang):
    with in_locale(lang):
        assert filters.message_number(2000) == babel(2000, "#,##0", lang)
        assert filters.message_number(7.5) == babel(7.5, "0.#", lang)
        assert filters.message_number("'7.5'") == "'7.5'" and filters.message_number(True) is True
