"""The worked examples' figures: each equals the step's own figure, checked against independent sums.

explain.py reads a StepResult and pulls out the few numbers a textbook would write down. These tests
draw random prompts, settings and seeds on austen-bigram and check that every such number is the
step's (or follows from the model's counts by the formula the page prints), plus a tiny fake model
whose logits are chosen to make e^(z/T) overflow.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from webapp.inference import LanguageModel, Settings, StepResult, WordTokenizer, run_step_table
from webapp.inference.derived.explain import (
    bigram_example,
    first_ranges,
    highest_logits,
    softmax_example,
)
from webapp.inference.derived.vocab_search import search_vocab
from webapp.inference.settings import MAX_SEED

N_VOCAB = 5000  # austen-bigram
RULES = ("top-k", "top-p", "min-p")

SAMPLE = 'Mr Darcy Elizabeth said she the was a of to her , . " -- zyxwvut computer Bennet I am not ?'
WORDS = [*SAMPLE.split(), "\n\n"]  # words the model knows, two it does not, and a paragraph break
prompts = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join),
    st.text(max_size=40),
)
generated_ids = st.lists(st.integers(0, N_VOCAB - 1), max_size=5)
temperatures = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.01, 5.0))
any_settings = st.builds(
    Settings,
    temperature=temperatures,
    top_k=st.one_of(st.none(), st.integers(1, 200)),
    top_p=st.one_of(st.none(), st.floats(0.01, 1.0)),
    min_p=st.one_of(st.none(), st.floats(0.0, 1.0)),
    seed=st.integers(0, MAX_SEED),
)
with_bigram = settings(deadline=None)  # 100 examples; HYPOTHESIS_PROFILE=thorough for 3,000


class FakeModel(LanguageModel):
    """Three tokens ('<unk>', '<p>', 'a') whose logits are whatever the test says, whatever the ids."""

    name = "fake"
    description = "logits chosen by the test"
    n_ctx = 4

    def __init__(self, logits: Sequence[float]):
        self.tokenizer = WordTokenizer(["<unk>", "<p>", "a"])
        self._logits = np.asarray(logits, dtype=np.float64)  # [3]

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        return self._logits.copy()


def fake_step(logits: Sequence[float], temperature: float) -> StepResult:
    return run_step_table(FakeModel(logits), "a", (), Settings(temperature=temperature))


def assert_softmax_example_is_the_steps(result: StepResult) -> None:
    e = softmax_example(result)
    top = result.rows[0]
    assert e is not None
    assert (e.token, e.logit, e.temperature) == (top.token, top.logit, result.settings.temperature)
    assert e.prob == pytest.approx(top.prob, rel=0, abs=1e-12)
    assert e.scaled == top.scaled
    assert e.prob_t1 == top.prob_t1
    # The arithmetic the page writes out must reproduce the row's probability.
    assert math.isfinite(e.exp) and math.isfinite(e.total) and e.total > 0
    assert e.exp / e.total == pytest.approx(top.prob, rel=1e-9)
    assert e.exp == pytest.approx(math.exp(e.exponent), rel=1e-12)
    if e.zmax is None:
        assert e.exponent == top.scaled
    else:
        assert e.exponent == pytest.approx((top.logit - e.zmax) / result.settings.temperature, rel=1e-12)


# --- softmax ---------------------------------------------------------------------------------------


@with_bigram
@given(prompt=prompts, generated=generated_ids, s=any_settings)
@example(prompt="Mr. Darcy", generated=[], s=Settings(temperature=0.001))  # z / T far below -700: shifted
def test_softmax_example_figures_are_the_steps(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    if s.temperature == 0:
        assert softmax_example(result) is None
        return
    assert_softmax_example_is_the_steps(result)


def test_softmax_example_is_none_at_t0(bigram):
    assert softmax_example(run_step_table(bigram, "Mr. Darcy", (), Settings(temperature=0.0))) is None


def test_softmax_example_needs_no_shift_for_ordinary_logits(bigram):
    e = softmax_example(run_step_table(bigram, "Mr. Darcy said", (), Settings(temperature=0.8)))
    assert e.zmax is None
    assert e.exponent == e.scaled and e.exp == math.exp(e.scaled)


@pytest.mark.parametrize(
    ("logits", "temperature"),
    [
        ([1000.0, 999.0, -5.0], 0.5),  # e^2000 overflows
        ([1000.0, 999.0, -5.0], 1.0),
        ([-1000.0, -999.0, -998.5], 1.0),  # e^-998 underflows to 0: the sum would be 0
        ([600.0, 0.0, -600.0], 0.5),  # z/T = 1200 and -1200
        ([3.0, 3.0, 3.0], 1e-3),  # equal logits, 3000 / T
        ([700.5, 1.0, 0.0], 1.0),  # just past MAX_EXP
    ],
)
def test_softmax_example_shifts_huge_logits_and_still_agrees(logits, temperature):
    result = fake_step(logits, temperature)
    e = softmax_example(result)
    assert e.zmax == max(logits)  # the largest logit is subtracted first
    assert e.exponent == 0.0 and e.exp == 1.0  # the top token has the largest logit
    assert_softmax_example_is_the_steps(result)


def test_softmax_example_for_1000_999_minus_5_at_half():
    """z = [1000, 999, -5], T = 0.5: (z - 1000) / T = [0, -2, -2010], p = 1 / (1 + e^-2 + e^-2010)."""
    e = softmax_example(fake_step([1000.0, 999.0, -5.0], 0.5))
    assert (e.token, e.scaled, e.zmax, e.exponent, e.exp) == ("<unk>", 2000.0, 1000.0, 0.0, 1.0)
    assert e.total == pytest.approx(1 + math.exp(-2), rel=1e-15)
    assert e.prob == pytest.approx(1 / (1 + math.exp(-2)), rel=1e-12)
    assert e.prob_t1 == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-12)


@pytest.mark.parametrize(
    ("logits", "temperature"),
    [
        pytest.param([1000.0, 999.0, -5.0], 1e-306),
        pytest.param([5.0, 4.0, 3.0], 1e-320),
        pytest.param([-5.0, -4.0, -3.0], 1e-320),
        pytest.param([1e308, -1e308, 0.0], 1.0),
        ([-1000.0, -999.0, -5.0], 1e-306),  # z/T of -inf and finite: the infinite ones weigh 0
        ([1e300, -1e300, 0.0], 1.0),
    ],
)
def test_softmax_example_when_z_over_t_overflows(logits, temperature):
    assert_softmax_example_is_the_steps(fake_step(logits, temperature))


def test_softmax_example_at_a_temperature_of_1e_320(bigram):
    """The web layer accepts any T from 0 to 5, so GET /?temperature=1e-320 reaches this."""
    assert_softmax_example_is_the_steps(run_step_table(bigram, "Mr. Darcy", (), Settings(temperature=1e-320)))


# --- truncation ------------------------------------------------------------------------------------


@with_bigram
@given(prompt=prompts, generated=generated_ids, s=any_settings)
def test_truncation_cuts_add_up(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    cuts = list(result.cuts)
    active = [rule for rule, value in zip(RULES, (s.top_k, s.top_p, s.min_p), strict=True) if value is not None]
    assert [c.rule for c in cuts] == active
    assert [c.setting for c in cuts] == [v for v in (s.top_k, s.top_p, s.min_p) if v is not None]
    n_possible = int((result.probs > 0).sum())
    assert sum(c.n_cut for c in cuts) == n_possible - result.n_kept
    assert sum(c.mass_cut for c in cuts) == pytest.approx(1 - result.kept_mass, abs=1e-9)
    assert all(c.n_cut >= 0 and c.mass_cut >= 0 for c in cuts)
    assert all((c.n_cut == 0) == (c.mass_cut == 0) for c in cuts)
    if cuts and cuts[0].rule == "top-k":  # the first rule sees the whole distribution
        assert cuts[0].n_cut == max(0, n_possible - s.top_k)
        assert cuts[0].mass_cut == pytest.approx(float(np.sort(result.probs)[::-1][s.top_k :].sum()), abs=1e-12)


def test_truncation_cuts_name_each_rule_with_its_count(bigram):
    """top-k 50, then top-p 0.9 of what is left, then min-p 0.02 of that: each cut is the difference."""
    s = Settings(temperature=0.8, top_k=50, top_p=0.9, min_p=0.02, seed=3)
    result = run_step_table(bigram, "Mr. Darcy", (), s)
    k, p, m = list(result.cuts)
    assert (k.rule, k.setting, p.rule, p.setting, m.rule, m.setting) == ("top-k", 50, "top-p", 0.9, "min-p", 0.02)
    assert k.n_cut == N_VOCAB - 50
    ranked = np.sort(result.probs)[::-1]  # [n_vocab]
    after_k = ranked[:50] / ranked[:50].sum()  # [50]
    n_after_p = int(np.argmax(np.cumsum(after_k) >= 0.9 * (1 - 1e-12))) + 1
    assert p.n_cut == 50 - n_after_p
    after_p = after_k[:n_after_p] / after_k[:n_after_p].sum()
    assert m.n_cut == int((after_p < 0.02 * after_p[0]).sum())
    assert result.n_kept == N_VOCAB - k.n_cut - p.n_cut - m.n_cut


def test_no_truncation_means_no_cuts(bigram):
    assert list(run_step_table(bigram, "Mr. Darcy", (), Settings()).cuts) == []


# --- ranges ----------------------------------------------------------------------------------------


@with_bigram
@given(prompt=prompts, generated=generated_ids, s=any_settings)
def test_first_ranges_are_the_first_kept_rows(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    first = first_ranges(result)
    assert first == list(result.rows[: min(3, result.n_kept)])  # the kept tokens lead the ranking
    assert all(row.kept for row in first)
    assert first[0].lo == 0.0
    for a, b in zip(first, first[1:], strict=False):
        assert a.hi == b.lo
    if result.n_kept <= 3:
        assert first[-1].hi == 1.0
    assert first_ranges(result, n=1) == first[:1]


# --- the bigram's counts ---------------------------------------------------------------------------


def counts_from_csr(model, prev: int, nxt: int) -> tuple[int, int]:
    """(count(prev, nxt), count(prev, anything)) read straight off the stored CSR arrays."""
    lo, hi = int(model.indptr[prev]), int(model.indptr[prev + 1])
    row = dict(zip(model.indices[lo:hi].tolist(), model.counts[lo:hi].tolist(), strict=True))
    return row.get(nxt, 0), sum(row.values())


@with_bigram
@given(prompt=prompts, generated=generated_ids, s=any_settings)
def test_bigram_example_is_the_formula_on_the_counts(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    b = bigram_example(bigram, result)
    context = [t.id for t in result.prompt_tokens] + list(generated)
    prev = context[-1] if context else bigram.tokenizer.vocab.index("<p>")
    top = result.table.row(int(np.argmax(result.logits)))  # the model's own highest logit, whatever the penalties
    pair, total = counts_from_csr(bigram, prev, top.id)
    assert (b.prev, b.token) == (bigram.tokenizer.vocab[prev], top.token)
    assert (b.pair_count, b.prev_count, b.n_vocab) == (pair, total, N_VOCAB)
    by_hand = math.log((pair + b.k) / (total + b.k * N_VOCAB))
    assert b.logit == pytest.approx(by_hand, rel=1e-12)
    assert b.logit == top.logit
    assert b.prob == pytest.approx((pair + b.k) / (total + b.k * N_VOCAB), rel=1e-12)
    assert b.prob == pytest.approx(math.exp(top.logit), rel=1e-9)  # its probability at T = 1


@with_bigram
@given(prompt=prompts, generated=generated_ids, s=any_settings)
def test_highest_logits_are_the_models_own_top_two_whatever_the_penalties(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    first, second = highest_logits(result)
    by_hand = sorted(range(len(result.logits)), key=lambda i: (-result.logits[i], i))[:2]
    assert [first.id, second.id] == by_hand
    if s.repetition_penalty is None and s.presence_penalty is None and s.frequency_penalty is None:
        assert [first.id, second.id] == [row.id for row in result.rows[:2]], "without penalties: the table's top two"


def test_with_a_penalty_the_highest_logit_need_not_be_the_tables_first_row(bigram):
    before = run_step_table(bigram, "Mr", (), Settings())
    favourite, runner_up = before.rows[0], before.rows[1]  # '.' well ahead of 'Elliot'
    mr = before.prompt_tokens[0].id
    penalties = Settings(presence_penalty=2.0, frequency_penalty=2.0)  # 4 off a token generated once
    assert favourite.logit - 4.0 < runner_up.logit, "the penalties take the favourite below the runner-up"
    result = run_step_table(bigram, "Mr", (favourite.id, mr), penalties)  # "Mr . Mr": the favourite again
    assert highest_logits(result)[0].id == favourite.id != result.rows[0].id


def test_bigram_example_is_none_for_a_model_without_counts():
    assert bigram_example(FakeModel([1.0, 2.0, 3.0]), fake_step([1.0, 2.0, 3.0], 1.0)) is None


# --- the vocabulary --------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["darc", "DARC", "Darcy", "  darc  "])
def test_search_vocab_finds_darcy_by_part_of_it_in_any_case(bigram, query):
    darcy = bigram.tokenizer.vocab.index("Darcy")
    entries, n = search_vocab(bigram, query)
    assert darcy in [e.id for e in entries]
    assert all("darc" in e.token.lower() for e in entries)
    assert n == len(entries) == sum("darc" in t.lower() for t in bigram.tokenizer.vocab)
    entry = next(e for e in entries if e.id == darcy)
    assert entry.token == "Darcy"
    assert entry.count == int(bigram.token_counts()[darcy]) > 0


def test_search_vocab_finds_a_token_by_its_id(bigram):
    darcy = bigram.tokenizer.vocab.index("Darcy")
    entries, n = search_vocab(bigram, str(darcy))
    assert entries[0].id == darcy and entries[0].token == "Darcy"
    assert n == len(entries)


def test_search_vocab_respects_the_limit_and_counts_every_match(bigram):
    every = sum("e" in t.lower() for t in bigram.tokenizer.vocab)
    assert every > 50
    entries, n = search_vocab(bigram, "e", limit=50)
    assert len(entries) == 50 and n == every
    assert [e.id for e in entries] == sorted(e.id for e in entries)  # vocabulary order
    everything, n_all = search_vocab(bigram, "", limit=10)
    assert [e.id for e in everything] == list(range(10)) and n_all == N_VOCAB
    assert search_vocab(bigram, "qqqqzzzz") == ([], 0)


def test_search_vocab_shows_the_special_tokens(bigram):
    entries, _ = search_vocab(bigram, "<unk>")
    assert (entries[0].id, entries[0].token) == (0, "<unk>")


@pytest.mark.parametrize("query", ["²", "①"])
def test_search_vocab_takes_digits_that_are_not_numbers(bigram, query):
    entries, n = search_vocab(bigram, query)
    assert n == len(entries)


def test_every_short_tokens_own_text_finds_it(bigram):
    """A chip links to /vocab?q=<its text>#t-<its id>: the token must be among the results shown."""
    short = [(i, token) for i, token in enumerate(bigram.tokenizer.vocab) if len(token) <= 2]
    missing = [(i, token) for i, token in short if i not in {e.id for e in search_vocab(bigram, token)[0]}]
    assert missing == []
