"""The display filters round for the screen only; check them against hand-worked values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment
from markupsafe import escape

from webapp.web.filters import num, pct, shorten, token_label, token_labels


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


def test_token_label_shows_the_paragraph_token_as_a_pilcrow():
    assert token_label("<p>") == "¶"
    assert token_label("girl") == "girl"


@pytest.mark.parametrize(
    ("token", "shown"),
    [(" Paris", "␣Paris"), ("  ", "␣␣"), ("\n", "↵"), (" \n\n", "␣↵↵"), ("\t", "⇥"), ("Paris", "Paris"),
     ("a b", "a b"), ("<|im_end|>", "<|im_end|>")],
)
def test_token_label_shows_a_subword_token_s_leading_spaces_and_line_breaks(token, shown):
    assert token_label(token) == shown


@pytest.mark.parametrize("name", ["austen-bigram", "austen-transformer"])
def test_token_labels_are_each_token_s_label_escaped(app, name):
    model = app.extensions["models"][name]
    labels = token_labels(model)
    assert len(labels) == model.n_vocab
    for i in range(model.n_vocab):
        assert labels[i] == escape(token_label(model.tokenizer.token_text(i)))
    assert labels[1] == "¶"
    assert token_labels(model) is labels, "computed once per model"


@given(st.text(max_size=40), st.sampled_from([10, 14]))
def test_shorten_cuts_as_jinja_s_truncate(text, length):
    expected = Environment().from_string("{{ s | truncate(n, true, '…') }}").render(s=text, n=length)
    assert shorten(text, length) == expected


def test_short_token_labels_are_the_labels_shortened(app):
    model = app.extensions["models"]["austen-bigram"]
    short = token_labels(model, 10)
    assert [str(s) for s in short] == [str(escape(shorten(token_label(model.tokenizer.token_text(i)), 10)))
                                       for i in range(model.n_vocab)]
    assert max(len(s) for s in short) <= 15 + len("&amp;") * 15
