"""Token labels: how each token reads on screen, and every label of a model escaped once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment
from markupsafe import escape

from webapp.inference.article import ArticleModel, ArticleScores
from webapp.web.i18n.labels import shorten, token_label, token_labels


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


def test_article_models_do_not_push_a_large_model_s_labels_out(app):
    """Each request builds its own article model; a hundred of them must not evict the kept labels of a
    large vocabulary, which would then be made again, uncounted, on its next screen."""
    model = app.extensions["models"]["austen-transformer"]
    labels = token_labels(model, 10)
    for i in range(100):
        article = ArticleModel(ArticleScores(tokens=("a", "b", f"c{i}"), scores=(1.0, 2.0, 3.0)))
        assert token_labels(article, 10)[2] == f"c{i}"
    assert token_labels(model, 10) is labels, "still kept"
