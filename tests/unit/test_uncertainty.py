"""Entropy, effective vocabulary and surprise, checked against plain-Python sums; the text's perplexity both ways."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import Settings, generate_table, run_step_table
from webapp.inference.article import ArticleModel
from webapp.inference.derived.uncertainty import entropy, text_surprise, uncertainty
from webapp.inference.sampling import softmax


@settings(deadline=None)  # a busy machine must not fail a property
@given(st.lists(st.floats(0, 1), min_size=1, max_size=40).filter(lambda xs: sum(xs) > 0))
def test_entropy_is_minus_the_sum_of_p_log2_p(xs):
    probs = np.array(xs) / sum(xs)
    expected = -math.fsum(p * math.log2(p) for p in probs if p > 0)
    assert entropy(probs) == pytest.approx(max(expected, 0.0), abs=1e-9)
    assert -1e-12 <= entropy(probs) <= math.log2(int((probs > 0).sum())) + 1e-9


def test_the_article_examples_uncertainty():
    result = run_step_table(ArticleModel(), "", (), Settings(), r=0.2)  # largest first: [0, 0.7) is 'C'
    u = uncertainty(result)
    assert u.entropy == pytest.approx(0.7 * math.log2(1 / 0.7) + 0.2 * math.log2(5) + 0.1 * math.log2(10))
    assert u.effective_vocab == pytest.approx(2**u.entropy)
    assert (u.top_token, u.picked_token) == ("C", "C")
    assert u.surprise == pytest.approx(-math.log2(0.7))


def test_text_surprise_adds_up_to_the_log_probability_of_the_text(bigram):
    s = Settings(temperature=0.8, top_k=20, seed=7)
    steps = generate_table(bigram, "Mr. Darcy said", 4, s)
    ids = [step.chosen.id for step in steps]
    ts = text_surprise(bigram, "Mr. Darcy said", ids, s)
    sampling = [-math.log2(step.chosen.prob_kept) for step in steps]
    model = [-math.log2(softmax(step.logits)[step.chosen.id]) for step in steps]
    assert [t.surprise for t in ts.tokens] == pytest.approx(sampling)
    assert [t.surprise_model for t in ts.tokens] == pytest.approx(model)
    assert ts.log2_prob == pytest.approx(-sum(sampling))
    assert ts.perplexity == pytest.approx(2 ** (sum(sampling) / 4))
    assert ts.perplexity_model == pytest.approx(2 ** (sum(model) / 4))


def test_a_token_the_chain_cut_is_infinitely_surprising_under_the_sampling_distribution(bigram):
    result = run_step_table(bigram, "Mr. Darcy said", (), Settings(top_k=1))
    cut = result.rows[1].id
    ts = text_surprise(bigram, "Mr. Darcy said", [cut], Settings(top_k=1))
    assert ts.tokens[0].surprise == math.inf and math.isfinite(ts.tokens[0].surprise_model)
    assert ts.perplexity == math.inf


def test_max_entropy_is_log2_of_the_kept_tokens_and_bounds_the_entropy(bigram):
    for s in (Settings(top_k=4), Settings(), Settings(temperature=0)):
        u = uncertainty(run_step_table(bigram, "Mr. Darcy", (), s))
        assert u.max_entropy == pytest.approx(math.log2(u.n_kept))
        assert u.entropy <= u.max_entropy + 1e-9


def test_a_certain_pick_has_a_surprise_of_plus_zero_bits():
    result = run_step_table(ArticleModel(), "", (), Settings(temperature=0.0), r=0.5)  # greedy: p = 1
    u = uncertainty(result)
    assert u.surprise == 0.0
    assert math.copysign(1.0, u.surprise) == 1.0  # not -0.0, which a page prints as "-0.000 bits"
