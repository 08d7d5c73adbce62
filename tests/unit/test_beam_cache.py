"""The beam cache (machinery/kvcache.py): beam search's texts run together, each row's keys and values copied from
its parent's, on the tiny llama (against the float64 reference of tiny_gguf.py) and on the Austen transformer.

A beam's logits come from positions run one at a time, where the stepper runs some of them in blocks, so they
agree with the stepper's to float32 rounding; the first level (the prompt alone) is the stepper's bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference.decoding import beam_search, greedy, largest
from webapp.inference.machinery import llama_gguf
from webapp.inference.machinery.registry import MODELS_DIR, load_model
from webapp.inference.model import LanguageModel

from .tiny_gguf import reference_logits, write_tiny_gguf

N_CTX = 24  # small, so that the window slides within the tests
ROUNDING = 1e-5  # float32: a position run alone or in a block of the window gives logits this close


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    weights = write_tiny_gguf(path, tied=True, quantise_embedding=True)
    return llama_gguf.from_gguf(path, "tiny", n_ctx=N_CTX, block=4), weights


@pytest.fixture(scope="module")
def austen():
    return load_model(MODELS_DIR / "austen-transformer")


def levels_st(n_vocab: int, max_width: int = 4, max_levels: int = 8):
    """A search's levels as (parent row, token) pairs: each level follows rows of the one before."""
    return st.lists(st.lists(st.tuples(st.integers(0, max_width - 1), st.integers(0, n_vocab - 1)),
                             min_size=1, max_size=max_width, unique=True), min_size=1, max_size=max_levels)


def run_levels(model: LanguageModel, prompt: list[int], levels, cache) -> list[tuple[list[list[int]], np.ndarray]]:
    """Each level's texts and the logits logits_many gives them, every text one of the level before and a token."""
    texts, out = [prompt], []
    out.append((texts, model.logits_many(texts, cache)))
    for level in levels:
        texts = list({tuple([*texts[row % len(texts)], token]): None for row, token in level})
        texts = [list(t) for t in texts]
        out.append((texts, model.logits_many(texts, cache)))
    return out


@settings(max_examples=25, deadline=None)
@given(prompt=st.lists(st.integers(0, 255), min_size=1, max_size=N_CTX + 2), levels=levels_st(256))
def test_each_beam_gets_its_own_texts_logits_sliding_window_included(tiny, prompt, levels):
    model, weights = tiny
    prompt = [i % model.n_vocab for i in prompt]
    levels = [[(row, token % model.n_vocab) for row, token in level] for level in levels]
    for texts, logits in run_levels(model, prompt, levels, model.beam_cache()):
        assert logits.shape == (len(texts), model.n_vocab) and logits.dtype == np.float32
        for text, row in zip(texts, logits, strict=True):
            expected = reference_logits(weights, model.context(text))  # float64, written separately
            np.testing.assert_allclose(row, expected, rtol=0, atol=1e-4)


def test_the_first_level_is_the_steppers_bit_for_bit(tiny, austen, tmp_path):
    path = tmp_path / "tiny.gguf"
    write_tiny_gguf(path, tied=True, quantise_embedding=True)
    steppers = (llama_gguf.from_gguf(path, "tiny", n_ctx=N_CTX, block=4), load_model(MODELS_DIR / "austen-transformer"))
    for model, stepper in zip((tiny[0], austen), steppers, strict=True):  # the same weights, their own KV pools
        for prompt in (list(range(3, 9)), list(range(2, 21))):  # the llama's blocks of 4 and 2, then single positions
            expected = stepper.logits(prompt)
            assert np.array_equal(model.logits_many([prompt], model.beam_cache())[0], expected)


@pytest.mark.parametrize("seed", range(4))
def test_the_transformers_beams_agree_with_the_stepper_to_float32_rounding(austen, seed):
    rng = np.random.default_rng(seed)
    prompt = rng.integers(0, austen.n_vocab, int(rng.integers(1, 70))).tolist()  # some windows slide (n_ctx 64)
    levels = [[(int(rng.integers(0, 4)), int(rng.integers(0, austen.n_vocab))) for _ in range(4)] for _ in range(6)]
    for texts, logits in run_levels(austen, prompt, levels, austen.beam_cache()):
        for text, row in zip(texts, logits, strict=True):
            np.testing.assert_allclose(row, austen.logits(text, cached=False), rtol=0, atol=ROUNDING * 10)


def test_a_search_gives_the_same_logits_whatever_ran_before(austen):
    levels = [[(0, 5), (0, 9), (0, 40)], [(2, 7), (0, 7), (1, 3)], [(1, 11), (1, 12)]]
    first = run_levels(austen, [4, 8, 15], levels, austen.beam_cache())
    austen.logits([4, 8, 15, 16, 23, 42])  # the pool now holds another text
    run_levels(austen, [4, 8, 15, 9], levels, austen.beam_cache())  # and another search ran
    again = run_levels(austen, [4, 8, 15], levels, austen.beam_cache())
    for (texts, logits), (texts_again, logits_again) in zip(first, again, strict=True):
        assert texts == texts_again and np.array_equal(logits, logits_again)


@pytest.mark.parametrize("width", [2, 4])
def test_beam_search_finds_the_same_beams_with_the_cache_as_one_text_at_a_time(austen, width):
    class OneAtATime(LanguageModel):  # the same model, asked for each text in turn, as the stepper asks
        name, tokenizer, n_ctx, start_id = austen.name, austen.tokenizer, austen.n_ctx, austen.start_id

        def logits(self, ids):
            return austen.logits(ids)

    prompt = [austen.start_id, *austen.tokenizer.encode_ids("It is a truth")]
    shared, alone = (beam_search(m, prompt, width, 12) for m in (austen, OneAtATime()))
    assert [b.ids for b in shared.finished] == [b.ids for b in alone.finished]
    for a, b in zip(shared.finished, alone.finished, strict=True):
        np.testing.assert_allclose(a.log_probs, b.log_probs, rtol=0, atol=ROUNDING)
    assert greedy(austen, prompt, 12).ids == greedy(OneAtATime(), prompt, 12).ids


@given(values=st.lists(st.sampled_from([-2.0, -1.0, 0.0, 0.5, 3.0]) | st.floats(-5, 5), min_size=1, max_size=40),
       k=st.integers(1, 45))
def test_largest_is_the_first_k_of_a_stable_sort(values, k):
    values = np.array(values)
    assert largest(values, k).tolist() == np.argsort(-values, kind="stable")[:k].tolist()
