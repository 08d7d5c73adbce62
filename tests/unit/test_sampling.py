"""Properties of the sampling functions, each checked against an independent reference.

The references are plain Python (decimal arithmetic, sorted(), math.fsum), never the
function under test called a second time.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from webapp.inference import sampling
from webapp.inference.errors import InvalidSetting

MAX = np.finfo(np.float64).max
JUST_BELOW_ONE = float(np.nextafter(1.0, 0.0))
SPECIAL_LOGITS = [1e300, -1e300, 1e-300, -1e-300, 0.0, 1.0, -math.inf, MAX, -MAX, 5e-324]
SPECIAL_TEMPERATURES = [0.0, 5e-324, 1e-300, 1e-10, 0.5, 1.0, 2.0, 1e300, MAX]

finite = st.floats(allow_nan=False, allow_infinity=False)
moderate = st.floats(-100, 100)
tie_prone = st.sampled_from([-3.0, -1.0, 0.0, 0.5, 2.0])  # few values, so ties are common


def vectors(elements=moderate, max_size=40) -> st.SearchStrategy[np.ndarray]:
    return st.lists(elements, min_size=1, max_size=max_size).map(frozen)


def frozen(xs) -> np.ndarray:
    """A read-only float64 copy: any function that writes to its input raises."""
    a = np.array(xs, dtype=np.float64)
    a.flags.writeable = False
    return a


def normalised(xs: list[float]) -> np.ndarray:
    a = np.array(xs, dtype=np.float64)
    return frozen(a / a.sum())


# Probability vectors with zeros and very small entries, which stress the rounding of cumulative sums.
prob_elements = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1e-17, 1e-20, 1e-300]))
prob_vectors = st.lists(prob_elements, min_size=1, max_size=40).filter(lambda xs: sum(xs) > 0).map(normalised)
r_values = st.one_of(st.floats(0, 1, exclude_max=True), st.sampled_from([0.0, 0.5, JUST_BELOW_ONE]))


def reference_softmax(logits, temperature: float = 1.0) -> list[float]:
    """softmax(logits / T) in 50-digit decimal arithmetic, independent of NumPy."""
    with localcontext() as ctx:
        ctx.prec = 50
        z = [Decimal(float(x)) for x in logits]
        top = max(z)
        e = [((x - top) / Decimal(temperature)).exp() for x in z]
        total = sum(e)
        return [float(x / total) for x in e]


def reference_ranking(probs) -> list[int]:
    """Ids by probability, largest first, ties by smaller id."""
    return sorted(range(len(probs)), key=lambda i: (-probs[i], i))


def argmax_smallest_id(xs) -> int:
    return min(range(len(xs)), key=lambda i: (-xs[i], i))


def kept_ids(mask: np.ndarray) -> set[int]:
    return {int(i) for i in np.flatnonzero(mask)}


# --- softmax and temperature -------------------------------------------------------------------


@given(vectors(finite))
def test_softmax_sums_to_one_for_any_finite_logits(logits):
    probs = sampling.softmax(logits)
    assert np.all(np.isfinite(probs)) and np.all(probs >= 0)
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9)


@given(vectors())
def test_softmax_matches_a_decimal_reference(logits):
    np.testing.assert_allclose(sampling.softmax(logits), reference_softmax(logits), rtol=1e-12, atol=1e-300)


@given(st.lists(vectors(st.one_of(moderate, st.just(-math.inf)), max_size=12), min_size=1, max_size=4))
def test_softmax_without_its_guards_gives_the_same_numbers_where_every_row_has_a_finite_maximum(rows):
    n = max(len(r) for r in rows)
    z = np.full((len(rows), n), -math.inf, dtype=np.float32)  # [n_rows, n]: rows of attention scores
    for i, r in enumerate(rows):
        z[i, : len(r)] = r
    assume(np.isfinite(z.max(axis=-1)).all())
    assert np.array_equal(sampling.softmax(z, guard=False), sampling.softmax(z))
    assert sampling.softmax(z, guard=False).dtype == np.float32


@given(vectors(), st.floats(-1e4, 1e4))
def test_softmax_is_shift_invariant(logits, shift):
    shifted = frozen(logits + shift)
    np.testing.assert_allclose(sampling.softmax(shifted), sampling.softmax(logits), rtol=0, atol=1e-9)


@given(vectors(), st.floats(0.05, 20))
def test_probabilities_are_the_softmax_of_logits_over_temperature(logits, temperature):
    probs = sampling.probabilities(logits, temperature)
    np.testing.assert_allclose(probs, reference_softmax(logits, temperature), rtol=1e-11, atol=1e-300)


@given(vectors(st.one_of(tie_prone, moderate)))
def test_zero_temperature_is_exactly_one_hot_on_the_argmax_ties_to_the_smaller_id(logits):
    expected = np.zeros(len(logits))
    expected[argmax_smallest_id(logits)] = 1.0
    assert np.array_equal(sampling.probabilities(logits, 0), expected)
    assert sampling.scale(logits, 0) is None  # nothing is divided by zero


@given(st.lists(st.integers(-(10**6), 10**6), min_size=2, max_size=30, unique=True))
def test_small_temperature_approaches_the_argmax(ints):
    logits = frozen([i / 1000 for i in ints])  # distinct, at least 0.001 apart
    top = argmax_smallest_id(logits)
    gap = logits[top] - max(x for i, x in enumerate(logits) if i != top)
    previous = 0.0
    for temperature in [10.0, 1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-300]:
        p_top = sampling.probabilities(logits, temperature)[top]
        # each other token has at most exp(-gap / T) times the argmax's probability
        assert p_top >= 1 / (1 + (len(logits) - 1) * math.exp(-gap / temperature)) - 1e-12
        assert p_top >= previous - 1e-12  # cooling never takes mass away from the argmax
        previous = p_top
    assert previous == 1.0


@given(vectors(finite, max_size=20), st.sampled_from([1e-300, 5e-324]))
@example(frozen([MAX, -1e292]), 1e-300)  # the gap overflows float64: the assume must not warn
@example(frozen([-1e308, 1e308]), 5e-324)
def test_tiniest_temperatures_put_all_mass_on_the_argmax_even_for_huge_logits(logits, temperature):
    top = argmax_smallest_id(logits)
    others = [float(x) for i, x in enumerate(logits) if i != top]
    # Distinct by more than T * 745. In Python floats a gap past float64's maximum is inf, not a warning.
    assume(not others or float(logits[top]) - max(others) > 1e-280)
    expected = np.zeros(len(logits))
    expected[top] = 1.0
    assert np.array_equal(sampling.probabilities(logits, temperature), expected)


@pytest.mark.parametrize(
    ("logits", "temperature"),
    [
        ([5.0, 4.0], 1e-308),  # 5 / 1e-308 and 4 / 1e-308 both overflow to inf
        ([1e300, 5e299], 1e-300),
        ([-1e300, -2e300], 1e-300),
        ([1e10 - 1, 1e10], 1e-300),
    ],
)
def test_tiny_temperature_does_not_split_the_mass_when_scaled_logits_overflow(logits, temperature):
    probs = sampling.probabilities(frozen(logits), temperature)
    expected = np.zeros(2)
    expected[argmax_smallest_id(logits)] = 1.0
    assert np.array_equal(probs, expected)


@given(vectors(), st.floats(1e6, 1e300))
def test_large_temperature_approaches_uniform(logits, temperature):
    n = len(logits)
    spread = float(logits.max() - logits.min())
    probs = sampling.probabilities(logits, temperature)
    # p_i / (1/n) lies between exp(-spread / T) and exp(spread / T)
    assert np.all(np.abs(probs * n - 1) <= math.expm1(spread / temperature) + 1e-12)


@pytest.mark.parametrize("temperature", [-1.0, -1e-300, math.nan, math.inf, -math.inf])
def test_invalid_temperatures_raise_invalid_setting(temperature):
    with pytest.raises(InvalidSetting):
        sampling.probabilities(frozen([1.0, 2.0]), temperature)


# --- truncation ----------------------------------------------------------------------------------


@given(vectors(tie_prone), st.integers(1, 45), st.sampled_from([0.5, 1.0, 3.0]))
def test_top_k_keeps_exactly_k_tokens_ties_at_the_edge_go_to_the_smaller_id(logits, k, temperature):
    probs = sampling.probabilities(logits, temperature)
    mask = sampling.top_k_mask(probs, sampling.order(probs, logits), k)
    positive = [i for i in range(len(probs)) if probs[i] > 0]
    expected = sorted(positive, key=lambda i: (-logits[i], i))[:k]
    assert kept_ids(mask) == set(expected)
    assert mask.sum() == min(k, len(positive))


def test_top_k_tie_example_keeps_the_smaller_ids():
    probs = frozen([0.1, 0.3, 0.3, 0.3])
    mask = sampling.top_k_mask(probs, sampling.order(probs, probs), 2)
    assert kept_ids(mask) == {1, 2}


@given(prob_vectors)
def test_top_k_none_keeps_every_token_with_probability(probs):
    mask = sampling.top_k_mask(probs, sampling.order(probs, probs), None)
    assert kept_ids(mask) == {i for i in range(len(probs)) if probs[i] > 0}


@given(prob_vectors, st.floats(1e-6, 1.0, exclude_max=True))
def test_top_p_keeps_the_shortest_prefix_whose_mass_reaches_p(probs, p):
    mask = sampling.top_p_mask(probs, sampling.order(probs, probs), p)
    ranking = reference_ranking(probs)
    m = int(mask.sum())
    assert m >= 1
    assert kept_ids(mask) == set(ranking[:m])  # a prefix of the ranking
    kept = [probs[i] for i in ranking[:m]]
    assert math.fsum(kept) >= p - 1e-9  # reaches p (up to rounding)
    assert math.fsum(kept[:-1]) < p  # without its last token it would not


@given(prob_vectors)
def test_top_p_of_one_switches_top_p_off(probs):
    # Even where rounding lets a shorter prefix add up to 1.0 ([1.0, 1e-17]), p = 1 cuts nothing.
    mask = sampling.top_p_mask(probs, sampling.order(probs, probs), 1.0)
    assert kept_ids(mask) == {i for i in range(len(probs)) if probs[i] > 0}


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (0.5, {0}),
        (0.7, {0, 1}),
        (0.8, {0, 1}),
        (0.81, {0, 1, 2}),
        (1.0, {0, 1, 2}),
        (None, {0, 1, 2}),
    ],
)
def test_top_p_examples(p, expected):
    probs = frozen([0.5, 0.3, 0.2])
    assert kept_ids(sampling.top_p_mask(probs, sampling.order(probs, probs), p)) == expected


@given(prob_vectors, st.floats(0, 1))
def test_min_p_keeps_exactly_the_tokens_with_at_least_min_p_times_the_top_probability(probs, min_p):
    p_max = max(probs)
    expected = {i for i, q in enumerate(probs) if q > 0 and q >= min_p * p_max}
    mask = sampling.min_p_mask(probs, min_p)
    assert kept_ids(mask) == expected
    assert mask[argmax_smallest_id(probs)]  # the top token always survives


@given(prob_vectors, st.data())
def test_renormalise_sums_to_one_over_the_kept_tokens_in_proportion(probs, data):
    mask = frozen(data.draw(st.lists(st.booleans(), min_size=len(probs), max_size=len(probs)))).astype(bool)
    assume(math.fsum(probs[mask]) > 1e-200)
    out = sampling.renormalise(probs, mask)
    assert math.fsum(out) == pytest.approx(1.0, abs=1e-9)
    assert np.all(out[~mask] == 0)
    total = math.fsum(probs[mask])
    np.testing.assert_allclose(out[mask], [q / total for q in probs[mask]], rtol=1e-12)


# --- ranges and the pick -------------------------------------------------------------------------


def kept_ranking(probs: np.ndarray) -> np.ndarray:
    return frozen([i for i in reference_ranking(probs) if probs[i] > 0]).astype(np.int64)


@given(prob_vectors)
def test_ranges_tile_zero_to_one_with_no_gap_and_no_overlap(probs):
    ranked = kept_ranking(probs)
    lo, hi = sampling.ranges(probs, ranked)
    assert lo[0] == 0.0 and hi[-1] == 1.0
    assert np.array_equal(lo[1:], hi[:-1])  # each range starts exactly where the one before ends
    assert np.all(lo <= hi) and np.all(hi <= 1.0)  # ordered, inside [0, 1]
    np.testing.assert_allclose(hi - lo, probs[ranked], rtol=0, atol=1e-9)


def test_ranges_stay_inside_zero_to_one_when_the_cumulative_sum_rounds_above_one():
    probs = frozen([0.56, 0.34, 0.1, 1e-17])  # the running sum is 1.0000000000000002 before the last token
    assert np.cumsum(probs)[-2] > 1.0
    lo, hi = sampling.ranges(probs, np.arange(4))
    assert np.all(lo <= hi) and np.all(hi <= 1.0) and hi[-1] == 1.0


@given(prob_vectors, r_values)
def test_the_picked_range_contains_r(probs, r):
    ranked = kept_ranking(probs)
    lo, hi = sampling.ranges(probs, ranked)
    j = sampling.pick(hi, r)
    assert lo[j] <= r < hi[j]
    assert j == next(i for i, h in enumerate(hi) if h > r)  # the first range whose upper end exceeds r


@pytest.mark.parametrize(("r", "expected"), [(0.0, 0), (0.4999, 0), (0.5, 1), (0.8, 2), (JUST_BELOW_ONE, 2)])
def test_pick_examples(r, expected):
    lo, hi = sampling.ranges(frozen([0.5, 0.3, 0.2]), np.arange(3))
    assert sampling.pick(hi, r) == expected


# --- extreme logits never give NaN ---------------------------------------------------------------


def run_pipeline(logits: np.ndarray, temperature: float, r: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Temperature, softmax, top-k, top-p, min-p, ranges and the pick, as step.py chains them."""
    probs = sampling.probabilities(logits, temperature)
    ranked = sampling.order(probs, logits)
    p = sampling.renormalise(probs, sampling.top_k_mask(probs, ranked, 3))
    p = sampling.renormalise(p, sampling.top_p_mask(p, ranked, 0.9))
    p = sampling.renormalise(p, sampling.min_p_mask(p, 0.1))
    kept = ranked[p[ranked] > 0]
    lo, hi = sampling.ranges(p, kept)
    return probs, hi, sampling.pick(hi, r)


@given(
    vectors(st.one_of(st.sampled_from(SPECIAL_LOGITS), finite), max_size=20),
    st.one_of(st.sampled_from(SPECIAL_TEMPERATURES), st.floats(0, 1e308)),
    r_values,
)
def test_extreme_logits_and_temperatures_never_give_nan(logits, temperature, r):
    probs, hi, j = run_pipeline(logits, temperature, r)
    assert np.all(np.isfinite(probs)) and np.all(probs >= 0)
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9)
    assert np.all(np.isfinite(hi)) and 0 <= j < len(hi)
    scaled = sampling.scale(logits, temperature)
    assert scaled is None or not np.any(np.isnan(scaled))


@pytest.mark.parametrize(
    ("logits", "expected"),
    [
        ([1e300, -1e300], [1.0, 0.0]),
        ([MAX, -MAX], [1.0, 0.0]),
        ([1e300, 1e300], [0.5, 0.5]),
        ([1e-300, 1e-300, 1e-300, 1e-300], [0.25] * 4),
        ([0.0, 0.0], [0.5, 0.5]),
        ([-math.inf, 0.0], [0.0, 1.0]),
        ([-math.inf, -math.inf], [0.5, 0.5]),  # nothing can be chosen, so share equally
    ],
)
@pytest.mark.parametrize("temperature", [1e-300, 1.0])
def test_extreme_logit_examples(logits, expected, temperature):
    probs = sampling.probabilities(frozen(logits), temperature)
    np.testing.assert_allclose(probs, expected, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize(
    "logits", [[1e300, -1e300], [1e-300, 1e-300], [0.0, 0.0], [-math.inf, 0.0], [-math.inf, -math.inf]]
)
def test_extreme_logits_at_zero_temperature_are_one_hot(logits):
    probs = sampling.probabilities(frozen(logits), 0)
    assert probs.sum() == 1.0 and probs[argmax_smallest_id(logits)] == 1.0


# --- purity and the random number ----------------------------------------------------------------


@settings(max_examples=50)
@given(vectors(st.one_of(tie_prone, moderate)), st.sampled_from([0.0, 0.7, 1.0]), r_values)
def test_no_function_mutates_its_inputs(logits, temperature, r):
    before = logits.copy()
    probs = frozen(sampling.probabilities(logits, temperature))  # read-only: a write would raise
    ranked = frozen(sampling.order(probs, logits)).astype(np.int64)
    ranked.flags.writeable = False
    snapshot = (probs.copy(), ranked.copy())
    sampling.softmax(logits)
    sampling.scale(logits, temperature)
    mask = sampling.top_k_mask(probs, ranked, 2) & sampling.top_p_mask(probs, ranked, 0.9)
    mask &= sampling.min_p_mask(probs, 0.05)
    mask.flags.writeable = False
    kept = sampling.renormalise(probs, mask)
    _, hi = sampling.ranges(kept, ranked[kept[ranked] > 0])
    hi.flags.writeable = False
    sampling.pick(hi, r)
    assert np.array_equal(logits, before)
    assert np.array_equal(probs, snapshot[0]) and np.array_equal(ranked, snapshot[1])


@given(st.integers(0, 2**63 - 1), st.integers(0, 10**6))
def test_random_r_is_the_documented_generator(seed, step):
    r = sampling.random_r(seed, step)
    assert r == np.random.default_rng([seed, step]).random()
    assert 0 <= r < 1 and isinstance(r, float)
