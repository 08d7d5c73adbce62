"""The sampler chain: every order sums to 1, each order keeps the right tokens, penalties match their formulas.

References are written out independently: plain Python sorting and sums, never apply_chain again.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import sampling
from webapp.inference.article import ArticleModel, ArticleScores
from webapp.inference.chain import DEFAULT_CHAIN, LLAMA_CPP_CHAIN, STAGES, apply_chain, cuts, penalise
from webapp.inference.derived.many import sample_many
from webapp.inference.derived.table import run_step_table
from webapp.inference.errors import InvalidSetting
from webapp.inference.settings import Settings


@dataclass(frozen=True)
class Knobs:
    """The settings the chain reads, without Settings' checks of the seed and the range order."""

    chain: tuple[str, ...] = DEFAULT_CHAIN
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None


logit_lists = st.lists(st.floats(-8, 8), min_size=2, max_size=30).map(lambda xs: np.array(xs))
chains = st.sampled_from(list(itertools.permutations(STAGES))) | st.lists(
    st.sampled_from(STAGES), unique=True, max_size=5).map(tuple)


def kept(probs: np.ndarray) -> set[int]:
    return {int(i) for i in np.flatnonzero(probs > 0)}


def reference_softmax(z, t: float = 1.0) -> list[float]:
    top = max(z)
    e = [math.exp((x - top) / t) for x in z]
    return [x / math.fsum(e) for x in e]


def reference_top_p(probs: list[float], logits, p: float) -> set[int]:
    """The shortest prefix of the ranking (largest first, ties by logit, then smaller id) whose mass reaches p."""
    ranking = sorted(range(len(probs)), key=lambda i: (-probs[i], -logits[i], i))
    out, total = set(), 0.0
    for i in ranking:
        out.add(i)
        total += probs[i]
        if total >= p * (1 - 1e-12):
            break
    return out


# --- every order -----------------------------------------------------------------------------------


@settings(deadline=None)  # a busy machine must not fail a property
@given(logit_lists, chains, st.floats(0.1, 3), st.integers(1, 30), st.floats(0.05, 1), st.floats(0, 1),
       st.floats(0.5, 3), st.floats(-2, 2), st.lists(st.integers(0, 1), max_size=5))
def test_every_order_gives_a_distribution_that_sums_to_one_over_the_kept_tokens(
        logits, chain, t, k, p, min_p, theta, alpha, generated):
    knobs = Knobs(chain=chain, temperature=t, top_k=k, top_p=p, min_p=min_p, repetition_penalty=theta,
                  presence_penalty=alpha, frequency_penalty=alpha)
    probs, stages = apply_chain(logits, knobs, window=[0, 1], generated=generated)
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9)
    assert np.all(probs >= 0) and len(kept(probs)) >= 1
    assert [s.name for s in stages] == list(chain)
    for before, after in itertools.pairwise(stages):  # each stage sees what the one before passed on
        assert after.probs_in is before.probs_out
    for stage in stages:  # a truncation only ever removes tokens
        if stage.name in ("top_k", "top_p", "min_p"):
            assert kept(stage.probs_out) <= kept(stage.probs_in)


@settings(deadline=None)  # a busy machine must not fail a property
@given(logit_lists, st.floats(0.1, 3), st.integers(1, 30))
def test_top_k_keeps_the_same_set_before_and_after_temperature(logits, t, k):
    before, _ = apply_chain(logits, Knobs(chain=("top_k", "temperature"), temperature=t, top_k=k))
    after, _ = apply_chain(logits, Knobs(chain=("temperature", "top_k"), temperature=t, top_k=k))
    assert kept(before) == kept(after)
    np.testing.assert_allclose(before, after, rtol=1e-9, atol=1e-12)  # and the same probabilities


@settings(deadline=None)  # a busy machine must not fail a property
@given(logit_lists, st.floats(0.1, 3), st.floats(0.05, 0.99))
def test_top_p_after_temperature_acts_on_softmax_of_z_over_t_and_before_it_on_t_equals_one(logits, t, p):
    after, _ = apply_chain(logits, Knobs(chain=("temperature", "top_p"), temperature=t, top_p=p))
    before, _ = apply_chain(logits, Knobs(chain=("top_p", "temperature"), temperature=t, top_p=p))
    assert kept(after) == reference_top_p(reference_softmax(logits, t), logits, p)
    assert kept(before) == reference_top_p(reference_softmax(logits, 1.0), logits, p)  # whatever T


def test_top_p_keeps_another_set_when_temperature_comes_first():
    logits = np.log([0.5, 0.3, 0.2])  # at T = 0.5 the probabilities are [0.658, 0.237, 0.105]
    first, _ = apply_chain(logits, Knobs(chain=("temperature", "top_p"), temperature=0.5, top_p=0.65))
    last, _ = apply_chain(logits, Knobs(chain=("top_p", "temperature"), temperature=0.5, top_p=0.65))
    assert kept(first) == {0}  # 0.658 >= 0.65
    assert kept(last) == {0, 1}  # at T = 1, 0.5 < 0.65: two tokens, then sharpened


def test_the_default_chain_truncates_as_the_fixed_order_did():
    """Temperature, then top-k, top-p and min-p, each renormalising: [0.5, 0.3, 0.2], top-k 2."""
    logits = np.log([0.5, 0.3, 0.2])
    probs, stages = apply_chain(logits, Knobs(top_k=2))
    np.testing.assert_allclose(probs, [0.625, 0.375, 0])
    assert cuts(stages, sampling.probabilities(logits, 1.0)) == [sampling.Cut("top-k", 2, 1, pytest.approx(0.2))]
    assert [s.on for s in stages] == [False, True, True, False, False]


def test_the_llama_cpp_preset_puts_temperature_last():
    assert LLAMA_CPP_CHAIN[-1] == "temperature" and DEFAULT_CHAIN.index("temperature") == 1


@settings(deadline=None)  # a busy machine must not fail a property
@given(logit_lists, st.integers(1, 30))
def test_a_stage_the_chain_leaves_out_is_not_applied(logits, k):
    probs, stages = apply_chain(logits, Knobs(chain=("temperature",), temperature=0.5, top_k=k,
                                              repetition_penalty=3.0), window=[0])
    np.testing.assert_allclose(probs, reference_softmax(logits, 0.5), rtol=1e-9, atol=1e-300)


def test_zero_temperature_anywhere_keeps_only_the_argmax_of_what_is_left():
    logits = np.array([1.0, 3.0, 2.0])
    for chain in (("temperature", "top_k"), ("top_k", "temperature")):
        probs, _ = apply_chain(logits, Knobs(chain=chain, temperature=0.0, top_k=2))
        assert probs.tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("chain", [("top_k", "top_k"), ("top_q",)])
def test_a_bad_chain_is_refused(chain):
    with pytest.raises(InvalidSetting):
        Settings(chain=chain)


# --- penalties -----------------------------------------------------------------------------------


def test_penalties_match_the_docstrings_hand_worked_example():
    z = penalise(np.array([2.0, -1.0, 0.5]), window=[0, 1], generated=[1, 1], repetition=2.0, presence=0.5,
                 frequency=0.1)
    np.testing.assert_allclose(z, [1.0, -2.7, 0.5])


@pytest.mark.parametrize(("logits", "window", "theta", "expected"), [
    ([3.0, -2.0, 0.0, 1.0], [0, 1, 2, 0], 1.5, [2.0, -3.0, 0.0, 1.0]),  # positive / theta, negative * theta
    ([3.0, -2.0], [], 1.5, [3.0, -2.0]),  # nothing read, nothing penalised
    ([4.0, -4.0], [0, 1], 0.5, [8.0, -2.0]),  # theta < 1 rewards repetition
])
def test_repetition_penalty_divides_positive_logits_and_multiplies_negative_ones(logits, window, theta, expected):
    np.testing.assert_allclose(penalise(np.array(logits), window, [], repetition=theta), expected)


@pytest.mark.parametrize(("generated", "presence", "frequency", "expected"), [
    ([2, 2, 2], 0.5, None, [1.0, 1.0, 0.5]),  # presence: once, however often
    ([2, 2, 2], None, 0.25, [1.0, 1.0, 0.25]),  # frequency: 3 x 0.25
    ([0, 2, 2], 0.5, 0.25, [0.25, 1.0, -0.0]),  # 1 - 0.25 - 0.5; 1 - 2 x 0.25 - 0.5
    ([1], -1.0, None, [1.0, 2.0, 1.0]),  # a negative presence penalty encourages
])
def test_presence_and_frequency_penalties_subtract_per_generated_token(generated, presence, frequency, expected):
    z = penalise(np.ones(3), window=[], generated=generated, presence=presence, frequency=frequency)
    np.testing.assert_allclose(z, expected)


def test_penalties_count_only_the_window_the_model_read(bigram):
    """austen-bigram reads one token: the repetition penalty touches only the last one."""
    s = Settings(repetition_penalty=2.0)
    result = run_step_table(bigram, "Mr. Darcy said", [5, 263], s)
    penalties = result.stages[0]
    assert penalties.n_changed == 1
    changed = np.flatnonzero(penalties.logits_out != result.logits)
    assert changed.tolist() == [263]


def test_penalties_after_a_cut_count_only_the_tokens_still_in_play():
    """Top-k 2 keeps ids 0 and 1; the presence penalty then changes ids 1 and 3, but id 3 is already cut: the card
    says one score changed, the one the class can see."""
    logits = np.array([3.0, 2.0, 1.0, 0.0])
    s = Knobs(chain=("top_k", "penalties"), top_k=2, presence_penalty=0.5)
    _, stages = apply_chain(logits, s, generated=[1, 3])
    penalties = stages[1]
    assert np.flatnonzero(penalties.logits_out != logits).tolist() == [1, 3]
    assert penalties.n_changed == 1
    _, first = apply_chain(logits, Knobs(chain=("penalties", "top_k"), top_k=2, presence_penalty=0.5), generated=[1, 3])
    assert first[0].n_changed == 2  # before any cut, both count


def test_penalties_after_temperature_subtract_alpha_from_z_over_t():
    logits = np.array([2.0, 1.0])
    probs, _ = apply_chain(logits, Knobs(chain=("temperature", "penalties"), temperature=0.5,
                                         presence_penalty=1.0), generated=[0])
    np.testing.assert_allclose(probs, reference_softmax([4.0 - 1.0, 2.0]))


# --- ranges in vocabulary order, the article, sample many ---------------------------------------


@settings(deadline=None)  # a busy machine must not fail a property
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30).filter(lambda xs: sum(xs) > 0))
def test_vocabulary_order_ranges_tile_zero_to_one_in_id_order(xs):
    probs = np.array(xs) / sum(xs)
    laid = sampling.layout(probs, sampling.order(probs, probs), "vocabulary")
    assert laid.tolist() == [i for i, p in enumerate(probs) if p > 0]
    lo, hi = sampling.ranges(probs, laid)
    assert lo[0] == 0.0 and hi[-1] == 1.0 and np.array_equal(lo[1:], hi[:-1])
    np.testing.assert_allclose(hi - lo, probs[laid], atol=1e-9)


def test_the_article_example_gives_the_articles_ranges():
    result = run_step_table(ArticleModel(), "", (), Settings(range_order="vocabulary"))
    by_id = sorted(result.rows, key=lambda row: row.id)
    assert [row.token for row in by_id] == ["A", "B", "C"]
    spans = [(row.lo, row.hi) for row in by_id]
    np.testing.assert_allclose(spans, [(0.0, 0.1), (0.1, 0.3), (0.3, 1.0)], atol=1e-12)
    assert [f"{lo:.1f} to {hi:.1f}" for lo, hi in spans] == ["0.0 to 0.1", "0.1 to 0.3", "0.3 to 1.0"]


def test_the_same_r_picks_another_token_in_the_other_range_order():
    model = ArticleModel()
    r = 0.05  # by id: [0, 0.1) is token 0; by probability: [0, 0.7) is token 2
    by_id = run_step_table(model, "", (), Settings(range_order="vocabulary"), r=r)
    by_prob = run_step_table(model, "", (), Settings(), r=r)
    assert (by_id.chosen.id, by_prob.chosen.id) == (0, 2)


def test_article_scores_typed_as_logits_are_used_as_they_are():
    scores = ArticleScores(tokens=("yes", "no"), scores=(1.0, 0.0), kind="logits")
    result = run_step_table(ArticleModel(scores), "", (), Settings())
    assert result.rows[0].token == "yes" and result.rows[0].prob == pytest.approx(math.e / (math.e + 1))


@pytest.mark.parametrize("scores", [
    {"tokens": ("A",), "scores": (1.0,)},
    {"tokens": ("A", "A"), "scores": (0.5, 0.5)},
    {"tokens": ("A", "B"), "scores": (0.5,)},
    {"tokens": ("A", "B"), "scores": (0.5, math.inf)},
    {"tokens": ("A", "B"), "scores": (-0.5, 1.0)},
    {"tokens": ("A B", "C"), "scores": (0.5, 0.5)},
])
def test_bad_article_scores_are_refused(scores):
    with pytest.raises(InvalidSetting):
        ArticleScores(**scores)


def test_sample_many_is_within_statistical_bounds_of_the_probabilities(bigram):
    result = run_step_table(bigram, "Mr. Darcy said", (), Settings(top_k=8, seed=3))
    many = sample_many(result, 10_000)
    assert many.counts.sum() == 10_000
    for b in many.bins:  # a fixed seed: deterministic; 5 sigma leaves room for 8 bins at once
        assert abs(b.share - b.prob) <= 5 * b.sigma + 1e-12


def test_sample_many_follows_its_contract():
    result = run_step_table(ArticleModel(), "", (), Settings(range_order="vocabulary", seed=11))
    rs = [np.random.default_rng([11, 0, j]).random() for j in range(1, 101)]
    expected = [sum(lo <= r < hi for r in rs) for lo, hi in ((0, 0.1), (0.1, 0.3), (0.3, 1.0))]
    assert sample_many(result, 100).counts.tolist() == expected


LOGITS = np.array([2.0, 1.3, 0.7, 0.1, -0.4, -1.1, -2.0])  # [n_vocab = 7]


def changed_stages(**knobs) -> list[str]:
    _, stages = apply_chain(LOGITS, Knobs(**knobs), window=[0, 1], generated=[1])
    return [stage.name for stage in stages if not stage.unchanged]


@pytest.mark.parametrize(
    ("knobs", "changed"),
    [
        ({}, []),  # every stage off, T = 1
        ({"top_k": 10}, []),  # more than the 7 tokens there are
        ({"top_p": 1.0}, []),
        ({"min_p": 0.0}, []),
        ({"repetition_penalty": 1.0}, []),
        ({"top_k": 3, "chain": LLAMA_CPP_CHAIN}, ["top_k"]),  # T = 1 after a cut: softmax again, equal within rounding
        ({"top_k": 3}, ["top_k"]),
        ({"temperature": 0.5}, ["temperature"]),
        ({"temperature": 1.000001}, ["temperature"]),  # a change far below what the screen rounds to is a change
        ({"temperature": 0}, ["temperature"]),
        ({"repetition_penalty": 1.3, "min_p": 0.2}, ["penalties", "min_p"]),
    ],
)
def test_a_stage_is_unchanged_when_it_passes_on_the_distribution_it_saw(knobs, changed):
    assert changed_stages(**knobs) == changed
