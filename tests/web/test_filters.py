"""The display filters round for the screen only; check them against hand-worked values."""

from __future__ import annotations

import pytest
from markupsafe import escape

from webapp.web.filters import num, pct, token_label, token_labels


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
