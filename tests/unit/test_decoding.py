"""Greedy decoding and beam search: their figures recomputed from the model's logits, and beam search against an
exhaustive search where the beams can hold every text."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import Settings, generate
from webapp.inference.class_bigram import ClassBigram
from webapp.inference.decoding import beam_search, greedy
from webapp.inference.machinery.registry import MODELS_DIR, load_model
from webapp.inference.step import context_ids, encode_prompt

WORDS = ["a", "b", "c", "."]
ROUNDING = 1e-5  # beams after the first level run their positions one at a time (machinery/kvcache.py): float32
sentences_st = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1,
                        max_size=5)


@pytest.fixture(scope="module", params=["austen-bigram", "austen-transformer"])
def austen(request):
    return load_model(MODELS_DIR / request.param)


def start(model, prompt: str) -> list[int]:
    return context_ids(model, encode_prompt(model, prompt))


def log_probs_of(model, prompt_ids, ids) -> list[float]:
    """Each token's log-probability, written out: log(exp(z_i) / sum_j exp(z_j)) of the logits given the ones before."""
    out = []
    for n, token in enumerate(ids):
        z = model.logits([*prompt_ids, *ids[:n]]).astype(np.float64)
        out.append(float(z[token] - z.max() - math.log(np.exp(z - z.max()).sum())))
    return out


@pytest.mark.parametrize("prompt", ["It is a truth", "She", "The girl saw a"])
def test_greedy_is_the_stepper_at_temperature_zero(austen, prompt):
    steps = generate(austen, prompt, 5, Settings(temperature=0))
    assert list(greedy(austen, start(austen, prompt), 5).ids) == [step.chosen_id for step in steps]


@pytest.mark.parametrize("width", [1, 2, 4])
def test_every_beams_score_is_the_sum_of_its_tokens_log_probabilities(austen, width):
    prompt_ids = start(austen, "It is a truth")
    search = beam_search(austen, prompt_ids, width, 4, length_penalty=1.0)
    assert len(search.finished) == width
    for beam in search.finished:
        expected = log_probs_of(austen, prompt_ids, list(beam.ids))
        assert np.allclose(beam.log_probs, expected, rtol=0, atol=ROUNDING)
        assert math.isclose(beam.score(1.0), math.fsum(expected) / len(beam.ids), abs_tol=ROUNDING)
    scores = [beam.score(1.0) for beam in search.finished]
    assert scores == sorted(scores, reverse=True)
    if width == 1:
        assert search.best.ids == greedy(austen, prompt_ids, 4).ids


@settings(max_examples=40, deadline=None)
@given(sentences=sentences_st, n_new=st.integers(1, 3))
def test_beams_wide_enough_to_hold_every_text_find_the_most_probable_one(sentences, n_new):
    model = ClassBigram.build(sentences)
    prompt_ids = [model.start_id]
    width = model.n_vocab ** (n_new - 1)  # every text of n_new - 1 tokens fits in the beams
    best = beam_search(model, prompt_ids, width, n_new).best
    every = max(math.fsum(log_probs_of(model, prompt_ids, list(ids)))
                for ids in itertools.product(range(model.n_vocab), repeat=n_new))
    assert math.isclose(best.total, every, abs_tol=1e-9)
    assert best.total >= greedy(model, prompt_ids, n_new).total - 1e-12


def test_a_text_that_ends_is_scored_with_its_end_and_the_search_stops_when_width_have_ended():
    model = ClassBigram.build(["a b .", "a c .", "b ."])
    end = model.tokenizer.boundary_id
    search = beam_search(model, [model.start_id], 2, 10, length_penalty=2.0, eos_id=end)
    assert all(beam.ended and beam.ids[-1] == end for beam in search.finished)
    for beam in search.finished:
        assert math.isclose(beam.score(2.0), beam.total / len(beam.ids) ** 2)
    assert len(search.levels) < 10  # stopped early: two texts had ended
    kept = [c for level in search.levels for c in level.candidates if c.fate == "kept"]
    assert kept and all(c.id != end for c in kept)
