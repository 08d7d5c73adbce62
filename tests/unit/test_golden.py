"""Golden traces on austen-bigram, and its logits checked by hand against the stored counts.

The golden lists were recorded once by running generate(); they exist to catch any change
to the tokenizer, the model files, the sampling maths or the random numbers. If one fails
after a deliberate change, re-record it and say why in the commit.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import Settings, generate_table, text_of

from .conftest import BIGRAM_DIR

PROMPT = "Mr. Darcy said"

GOLDEN = {
    "T=0.8 seed 7": (
        Settings(temperature=0.8, seed=7),
        ["to", "tell", "you", "don't", "you", ",", "she", "had", "nothing", "at", "once", ","],
    ),
    "greedy": (
        Settings(temperature=0, seed=7),
        ["he", "had", "been", "a", "<unk>", ",", "and", "<unk>", ",", "and", "<unk>", ","],
    ),
    "top-k 5 seed 7": (
        Settings(top_k=5, seed=7),
        [",", "I", "am", "quite", "as", "she", "was", "not", "have", "no", "longer", "."],
    ),
    "top-p 0.9 seed 7": (
        Settings(top_p=0.9, seed=7),
        ["Catherine", "looked", "as", "capable", "of", "the", "table", ",", "by", "those", "regrets", "which"],
    ),
    "T=1.2 min-p 0.05 seed 2024": (
        Settings(temperature=1.2, min_p=0.05, seed=2024),
        [".", '"', "I", "thought", ";", "but", "that", "their", "<unk>", "of", "your", "advice"],
    ),
}


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_trace(bigram, name):
    s, expected = GOLDEN[name]
    steps = generate_table(bigram, PROMPT, len(expected), s)
    assert [step.chosen.token for step in steps] == expected


def test_golden_text_and_random_numbers(bigram):
    steps = generate_table(bigram, PROMPT, 12, Settings(temperature=0.8, seed=7))
    ids = [step.chosen.id for step in steps]
    assert ids == [5, 263, 22, 1426, 22, 2, 18, 20, 104, 30, 280, 2]
    assert text_of(bigram, PROMPT, ids) == "Mr. Darcy said to tell you don't you, she had nothing at once,"
    # the documented r = default_rng([seed, i]).random(), written out so a NumPy change shows up here
    assert [step.r for step in steps[:3]] == [0.625095466604667, 0.7701409510034741, 0.277970282193581]


# --- the bigram's logits by hand -----------------------------------------------------------------


@pytest.fixture(scope="module")
def stored():
    """The model's files read directly: the CSR arrays, k and the vocabulary."""
    with np.load(BIGRAM_DIR / "counts.npz") as arrays:
        csr = {name: arrays[name].tolist() for name in ("indptr", "indices", "counts")}
    k = json.loads((BIGRAM_DIR / "config.json").read_text(encoding="utf-8"))["k"]
    vocab = json.loads((BIGRAM_DIR / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    return csr, k, vocab


def by_hand(stored, prev: int, nxt: int) -> float:
    """log((count(prev, next) + k) / (count(prev) + k * n_vocab)) from the raw CSR lists."""
    csr, k, vocab = stored
    row = range(csr["indptr"][prev], csr["indptr"][prev + 1])
    count_prev = sum(csr["counts"][j] for j in row)
    count_pair = sum(csr["counts"][j] for j in row if csr["indices"][j] == nxt)
    return math.log((count_pair + k) / (count_prev + k * len(vocab)))


@pytest.mark.parametrize(("prev", "nxt"), [
    ("Miss", "Bennet"),  # a common pair
    ("Mr", "."),  # "Mr." is two tokens, so "Mr" is nearly always followed by "."
    ("Mr", "Darcy"),  # never seen together, for the same reason: the smoothed value
    ("Darcy", "zebra-free"),  # not a word: <unk>, whatever follows
    ("<p>", '"'),  # a paragraph often opens with a quote
    ("said", "Mr"),
])
def test_bigram_logits_match_a_hand_computation_from_the_counts(bigram, stored, prev, nxt):
    vocab = stored[2]
    prev_id, next_id = bigram.tokenizer.id_of(prev), bigram.tokenizer.id_of(nxt)
    assert vocab[prev_id] == bigram.tokenizer.vocab[prev_id]
    logit = bigram.logits([prev_id])[next_id]
    assert logit == pytest.approx(by_hand(stored, prev_id, next_id), rel=1e-12)


def test_a_seen_pair_scores_above_an_unseen_one(bigram, stored):
    miss, bennet = bigram.tokenizer.id_of("Miss"), bigram.tokenizer.id_of("Bennet")
    assert bigram.pair_count(miss, bennet) > 0
    unseen = next(i for i in range(bigram.n_vocab) if bigram.pair_count(miss, i) == 0)
    logits = bigram.logits([miss])
    assert logits[bennet] > logits[unseen] == pytest.approx(by_hand(stored, miss, unseen), rel=1e-12)


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 4999), st.integers(0, 4999))
def test_any_bigram_logit_matches_the_hand_computation(bigram, stored, prev, nxt):
    assert bigram.logits([prev])[nxt] == pytest.approx(by_hand(stored, prev, nxt), rel=1e-12)


def test_an_empty_context_reads_as_the_start_of_a_paragraph(bigram):
    assert np.array_equal(bigram.logits([]), bigram.logits([bigram.tokenizer.paragraph_id]))


@pytest.mark.parametrize("word", ["<p>", "Mr", "said", ",", "<unk>"])
def test_bigram_logits_are_normalised_log_probabilities(bigram, word):
    logits = bigram.logits([bigram.tokenizer.id_of(word)])
    assert logits.shape == (bigram.n_vocab,) and logits.dtype == np.float64
    assert math.fsum(np.exp(logits)) == pytest.approx(1.0, abs=1e-9)  # add-k smoothing keeps the sum at 1
