"""The article's typed probabilities, exactly: the ranges end where the article says, and r at an end picks the
token whose range starts there, in both range orders, whatever the chain keeps (webapp/inference/exact.py).

The expected picks are the article's own table ("0.0 to 0.1: token 0; 0.1 to 0.3: token 1; 0.3 to 1.0:
token 2") or are worked out here with fractions.Fraction, apart from the app's code.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import Settings, run_step, run_step_table, sampling
from webapp.inference.article import ArticleModel, ArticleScores
from webapp.inference.chain import DEFAULT_CHAIN, LLAMA_CPP_CHAIN
from webapp.inference.derived.explain import pick_in_order
from webapp.inference.derived.many import sample_many

ARTICLE = ArticleModel()  # tokens A, B, C at 0.1, 0.2, 0.7
below, above = (lambda x: math.nextafter(x, 0)), (lambda x: math.nextafter(x, 1))

# (r, the token it picks): by id the ranges are [0, 0.1) A, [0.1, 0.3) B, [0.3, 1.0) C (the article's);
# by probability [0, 0.7) C, [0.7, 0.9) B, [0.9, 1.0) A.
BY_ID = [(0.0, 0), (below(0.1), 0), (0.1, 1), (above(0.1), 1), (below(0.3), 1), (0.3, 2), (above(0.3), 2),
         (below(1.0), 2)]
BY_PROBABILITY = [(0.0, 2), (0.1, 2), (0.3, 2), (below(0.7), 2), (0.7, 1), (above(0.7), 1), (below(0.9), 1),
                  (0.9, 0), (above(0.9), 0), (below(1.0), 0)]
CASES = [("vocabulary", r, token) for r, token in BY_ID] + [("probability", r, token) for r, token in BY_PROBABILITY]


@pytest.mark.parametrize(("order", "r", "token"), CASES)
def test_a_typed_r_at_and_beside_each_end_picks_the_articles_token(order, r, token):
    assert run_step(ARTICLE, "", (), Settings(range_order=order), r=r).chosen_id == token


@pytest.mark.parametrize("order", ["vocabulary", "probability"])
def test_the_ranges_and_probabilities_shown_are_the_typed_decimals(order):
    result = run_step_table(ARTICLE, "", (), Settings(range_order=order), r=0.5)
    by_id = sorted(result.rows, key=lambda row: row.id)
    ends = [(0.0, 0.1), (0.1, 0.3), (0.3, 1.0)] if order == "vocabulary" else [(0.9, 1.0), (0.7, 0.9), (0.0, 0.7)]
    assert [(row.lo, row.hi) for row in by_id] == ends  # the floats nearest 0.1, 0.3, ...: equal, not close
    assert [row.prob for row in by_id] == [row.prob_kept for row in by_id] == [0.1, 0.2, 0.7]


def test_a_seeded_r_is_compared_as_the_binary_number_it_is(monkeypatch):
    """The float 0.3 is 0.29999999999999998889...: below 3/10, so drawn it lands in [0.1, 0.3), typed in [0.3, 1.0).
    The float 0.1 is 0.1000000000000000055...: above 1/10, in [0.1, 0.3) either way."""
    assert Fraction(0.3) < Fraction(3, 10) < Fraction(0.1) + Fraction(2, 10) and Fraction(0.1) > Fraction(1, 10)
    vocabulary = Settings(range_order="vocabulary")
    for r, drawn, typed in ((0.3, 1, 2), (0.1, 1, 1)):
        monkeypatch.setattr(sampling, "random_r", lambda seed, step, r=r: r)
        step = run_step(ARTICLE, "", (), vocabulary)
        assert (step.r, step.r_source, step.chosen_id) == (r, "seed", drawn)
        assert run_step(ARTICLE, "", (), vocabulary, r=r).chosen_id == typed


def test_sample_many_compares_each_drawn_r_exactly(monkeypatch):
    rs = np.array([0.0, below(0.1), 0.1, 0.3, above(0.3), 0.7])  # drawn: 0.1 is above 1/10, 0.3 below 3/10
    monkeypatch.setattr(sampling, "random_rs", lambda seed, step, n: rs[:n])
    result = run_step_table(ARTICLE, "", (), Settings(range_order="vocabulary"))
    assert sample_many(result, len(rs)).counts.tolist() == [2, 2, 2]


@pytest.mark.parametrize(("r", "by_id", "by_probability"), [(0.1, 1, 2), (0.3, 2, 2), (0.7, 2, 1), (0.9, 2, 0)])
def test_the_other_orders_pick_is_exact_too(r, by_id, by_probability):
    for order in ("vocabulary", "probability"):
        result = run_step_table(ARTICLE, "", (), Settings(range_order=order), r=r)
        assert (pick_in_order(result, "vocabulary").id, pick_in_order(result, "probability").id) == (by_id,
                                                                                                       by_probability)


def test_truncations_keep_what_the_typed_decimals_say():
    """Min-p 0.5 keeps 0.4 beside 0.8 (0.4 >= 0.5 x 0.8), which floats after log and softmax cut; top-p 0.9
    keeps 0.7 + 0.2, exactly 0.9. What is kept is renormalised exactly: 0.2 / 0.9 = 2/9."""
    model = ArticleModel(ArticleScores(tokens=("A", "B", "C"), scores=(0.8, 0.4, 0.1)))
    assert run_step(model, "", (), Settings(min_p=0.5), r=0.5).laid.tolist() == [0, 1]
    result = run_step_table(ARTICLE, "", (), Settings(top_p=0.9, range_order="vocabulary"), r=0.5)
    kept = {row.id: (row.lo, row.hi) for row in result.rows if row.kept}
    assert kept == {1: (0.0, float(Fraction(2, 9))), 2: (float(Fraction(2, 9)), 1.0)}
    assert result.stages[-2].name == "top_p" and result.stages[-2].n_kept == 2


@pytest.mark.parametrize("chain", [DEFAULT_CHAIN, LLAMA_CPP_CHAIN])  # top-p before or after T = 1
@pytest.mark.parametrize(("r", "token"), [(below(0.625), 0), (0.625, 1)])
def test_the_ranges_after_a_cut_are_the_kept_fractions_renormalised(chain, r, token):
    """Top-p 0.8 keeps 0.5 + 0.3, renormalised to 5/8 and 3/8: by id [0, 0.625) A, [0.625, 1) B."""
    model = ArticleModel(ArticleScores(tokens=("A", "B", "C"), scores=(0.5, 0.3, 0.2)))
    step = run_step(model, "", (), Settings(top_p=0.8, chain=chain, range_order="vocabulary"), r=r)
    assert step.chosen_id == token
    assert step.probs_kept.tolist() == [0.625, 0.375, 0.0] and step.hi.tolist() == [0.625, 1.0]


@pytest.mark.parametrize("knobs", [{"temperature": 0.5}, {"repetition_penalty": 1.5}])
def test_an_irrational_power_or_a_moved_logit_goes_back_to_floats(knobs):
    assert run_step(ARTICLE, "", (0, 2), Settings(**knobs), r=0.5).pick_probs.dtype == np.float64


def test_typed_logits_and_other_models_stay_in_floats(bigram):
    logits = ArticleModel(ArticleScores(tokens=("A", "B"), scores=(1.0, 0.0), kind="logits"))
    assert run_step(logits, "", (), Settings()).pick_probs.dtype == np.float64
    assert run_step(bigram, "Mr. Darcy", (), Settings(top_p=0.9)).pick_probs.dtype == np.float64


# Typed probabilities of up to three decimals that add up to 1: the ends of their ranges are short decimals too.
cut_points = st.lists(st.integers(1, 999), min_size=1, max_size=7, unique=True).map(sorted)


def typed_probabilities(cuts: list[int], scale: int) -> tuple[float, ...]:
    """[300, 500] -> 0.3, 0.2, 0.5 (times scale: the model divides by their sum)."""
    edges = [0, *cuts, 1000]
    return tuple(float(f"{(b - a) * scale}e-3") for a, b in zip(edges, edges[1:], strict=False))


@settings(deadline=None)  # a busy machine must not fail a property
@given(cut_points, st.sampled_from([1, 10, 1000]), st.sampled_from(["vocabulary", "probability"]))
def test_r_at_any_end_picks_the_token_whose_range_starts_there(cuts, scale, order):
    typed = typed_probabilities(cuts, scale)
    model = ArticleModel(ArticleScores(tokens=tuple("ABCDEFGH"[: len(typed)]), scores=typed))
    exact = [Fraction(repr(p)) / sum(Fraction(repr(q)) for q in typed) for p in typed]
    laid = sorted(range(len(typed)), key=lambda i: (-exact[i], i) if order == "probability" else i)
    end = Fraction(0)
    for previous, token in zip(laid, laid[1:], strict=False):
        end += exact[previous]  # where token's range starts: a decimal of at most three places
        r = float(f"{int(end * 1000)}e-3")
        assert Fraction(repr(r)) == end
        step = run_step(model, "", (), Settings(range_order=order), r=r)
        assert step.chosen_id == token
        assert run_step(model, "", (), Settings(range_order=order), r=below(r)).chosen_id == previous
        assert step.lo[list(step.laid).index(token)] == r  # the figure shown is the decimal itself


def test_a_share_too_small_for_a_float_has_no_range():
    """5e-324 beside 1e300 is a share of 5e-624, which no float holds: it reads 0 %, so it gets no range and
    r = 0 picks the next token, as the figures shown say."""
    model = ArticleModel(ArticleScores(tokens=("A", "B", "C"), scores=(5e-324, 1e300, 1.0)))
    result = run_step_table(model, "", (), Settings(range_order="vocabulary"), r=0.0)
    assert result.chosen.id == 1 and result.laid.tolist() == [1, 2]
    assert result.row_of(0).prob_kept == 0 and not result.row_of(0).kept
