"""Inside the forward pass: attention, the logit lens, embedding neighbours and the bigram's count row.

Checked against the definitions: attention rows are distributions over the keys a position may
read; the last layer's lens is the step's logits; cosine similarity written out here.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from webapp.inference import Settings, run_step_table
from webapp.inference.derived.inside import (
    BigramView,
    LayersView,
    attention_example,
    inside_step,
    neighbours,
)
from webapp.inference.machinery import llama_gguf
from webapp.inference.machinery.registry import MODELS_DIR, load_model
from webapp.inference.machinery.user_models import user_models_dir
from webapp.inference.model import Inside

from .tiny_gguf import N_HEAD, N_HEAD_KV, write_tiny_gguf

PROMPT = "Mr. Darcy said that Elizabeth"


@pytest.fixture(scope="module")
def transformer():
    return load_model(MODELS_DIR / "austen-transformer")


@pytest.fixture(scope="module")
def bigram():
    return load_model(MODELS_DIR / "austen-bigram")


@pytest.fixture(scope="module")
def view(transformer) -> tuple:
    result = run_step_table(transformer, PROMPT, [11, 12], Settings(temperature=0.8, seed=3))
    return result, inside_step(transformer, result)


def test_every_heads_attention_is_a_distribution_over_the_positions_it_may_read(view):
    result, v = view
    n = len(v.ids)
    assert isinstance(v, LayersView) and v.n_layer == 4 and v.n_head == 4
    for weights in v.attention:  # [n_head, n, n]
        assert weights.shape == (v.n_head, n, n)
        np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-5)
        assert (weights >= 0).all()
        assert not np.triu(weights, k=1).any()  # zero on every later position


def test_the_last_layers_lens_is_the_steps_logits(transformer, view):
    result, v = view
    assert [row.layer for row in v.lens] == list(range(v.n_layer + 1))
    last = v.lens[-1]
    top = result.rows[: len(last.ids)]
    assert last.ids == tuple(row.id for row in top)
    np.testing.assert_allclose(last.logits, [row.logit for row in top], rtol=1e-5)
    np.testing.assert_allclose(last.probs, [row.prob_t1 for row in top], rtol=1e-5)
    assert last.picked_rank == result.chosen.rank


def test_the_lens_marks_the_picked_token_in_every_layer_with_its_rank(transformer, view):
    result, v = view
    for row in v.lens:
        assert 1 <= row.picked_rank <= transformer.n_vocab
        assert 0 < row.picked_prob <= 1
        assert sum(row.probs) <= 1 + 1e-9
        assert list(row.probs) == sorted(row.probs, reverse=True)


def test_the_window_is_the_last_n_ctx_tokens_read(transformer):
    ids = list(range(10, 10 + transformer.n_ctx + 7))
    result = run_step_table(transformer, "", ids, Settings())
    v = inside_step(transformer, result)
    assert v.window_start == 7
    assert v.ids == tuple(ids[7:])
    assert v.attention[0].shape[-1] == transformer.n_ctx


def test_the_attention_example_writes_out_the_models_own_weight(view):
    _, v = view
    for layer in (1, v.n_layer):
        for head in range(v.n_head):
            ex = attention_example(v, layer, head)
            assert ex.weight == pytest.approx(float(v.attention[layer - 1][head, -1].max()))
            assert ex.exp / ex.total == pytest.approx(ex.weight, rel=1e-4)
            assert ex.score == pytest.approx(ex.dot / math.sqrt(ex.head_dim))
            assert ex.top_score == pytest.approx(ex.score)  # the largest weight has the largest score


def test_neighbours_are_by_cosine_similarity_and_leave_the_token_out(transformer):
    darcy = transformer.tokenizer.encode("Darcy")[0].id
    near = neighbours(transformer, darcy)
    assert len(near) == 10 and darcy not in {n.id for n in near}
    e = transformer.embeddings.astype(np.float64)
    for n in near:
        expected = e[darcy] @ e[n.id] / (np.linalg.norm(e[darcy]) * np.linalg.norm(e[n.id]))
        assert n.similarity == pytest.approx(expected, rel=1e-5)
    assert [n.similarity for n in near] == sorted((n.similarity for n in near), reverse=True)
    all_sims = e @ e[darcy] / (np.linalg.norm(e, axis=1) * np.linalg.norm(e[darcy]))
    all_sims[darcy] = -np.inf
    assert near[-1].similarity >= np.sort(all_sims)[-10] - 1e-9  # nothing closer was left out


def test_similarity_is_symmetric(transformer):
    a, b = transformer.tokenizer.encode("Darcy Bingley")
    ab = {n.id: n.similarity for n in neighbours(transformer, a.id, n=transformer.n_vocab - 1)}[b.id]
    ba = {n.id: n.similarity for n in neighbours(transformer, b.id, n=transformer.n_vocab - 1)}[a.id]
    assert ab == pytest.approx(ba, rel=1e-9)


def test_the_bigram_shows_the_count_row_it_read(bigram):
    result = run_step_table(bigram, "Mr. Darcy", [], Settings())
    v = inside_step(bigram, result)
    assert isinstance(v, BigramView)
    prev = result.context_ids[-1]
    assert v.prev_id == prev
    assert list(v.counts) == sorted(v.counts, reverse=True)
    assert all(bigram.pair_count(prev, i) == c for i, c in zip(v.ids, v.counts, strict=True))
    assert v.row_total == sum(bigram.pair_count(prev, i) for i in range(bigram.n_vocab))
    top = v.ids[0]  # its logit, by the bigram's formula, is the step's
    expected = math.log((v.counts[0] + v.k) / (v.row_total + v.k * v.n_vocab))
    assert result.row_of(top).logit == pytest.approx(expected)
    # the rows shown and the rest add up to the row; each probability is the step's own at T = 1
    assert sum(v.counts) + v.more_count == v.row_total and len(v.ids) + v.n_more == v.n_seen
    assert v.made_up == v.k * v.n_vocab
    assert [result.row_of(i).prob_t1 for i in v.ids] == pytest.approx(v.probs, rel=1e-9)


def test_asking_for_the_inside_changes_no_figure_of_the_step(transformer, view):
    result, _ = view
    again = run_step_table(transformer, PROMPT, [11, 12], Settings(temperature=0.8, seed=3))
    assert np.array_equal(again.logits, result.logits)
    assert again.chosen == result.chosen


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    write_tiny_gguf(path, tied=False)
    return llama_gguf.from_gguf(path, "tiny", n_ctx=24, block=4)


def test_the_llamas_grouped_heads_share_keys_and_its_lens_ends_at_the_logits(tiny_llama):
    result = run_step_table(tiny_llama, "the cat and the hat sat", [], Settings())
    v = inside_step(tiny_llama, result)
    assert (v.n_head, v.n_head_kv) == (N_HEAD, N_HEAD_KV)
    assert [v.kv_head(h) for h in range(N_HEAD)] == [h // (N_HEAD // N_HEAD_KV) for h in range(N_HEAD)]
    for weights in v.attention:
        np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-5)
        assert not np.triu(weights, k=1).any()
    last = v.lens[-1]
    np.testing.assert_allclose(last.logits, [result.row_of(i).logit for i in last.ids], rtol=1e-5, atol=1e-5)
    ex = attention_example(v, v.n_layer, N_HEAD - 1)
    assert ex.kv_head == N_HEAD_KV - 1
    assert ex.exp / ex.total == pytest.approx(ex.weight, rel=1e-4)


@pytest.fixture(scope="module")
def smollm():
    folder = user_models_dir() / "smollm2-135m"
    if not (folder / "config.json").is_file():
        pytest.skip("smollm2-135m is not fetched (python -m webapp fetch-model smollm2-135m)")
    return load_model(folder)


def test_smollm2s_inside_is_its_step_30_layers_of_9_heads_over_3(smollm):
    result = run_step_table(smollm, "The capital of France is", [], Settings(temperature=0))
    v = inside_step(smollm, result)
    assert (v.n_layer, v.n_head, v.n_head_kv) == (30, 9, 3)
    last = v.lens[-1]
    assert smollm.tokenizer.token_text(last.ids[0]) == " Paris" and last.picked_rank == 1
    np.testing.assert_allclose(last.logits, [result.row_of(i).logit for i in last.ids], rtol=1e-5)
    for weights in v.attention:
        np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-4)


def test_the_transformers_streams_and_attention_equal_pytorchs(transformer):
    """Golden values written by scripts/train_transformer.py from the PyTorch module on the same weights."""
    with np.load(Path(__file__).parent / "fixtures" / "transformer_inside_golden.npz") as f:
        ids, residual, attention = f["ids"].tolist(), f["residual"], f["attention"]
    inside = Inside()
    transformer.logits(ids, inside=inside)
    np.testing.assert_allclose(np.stack(inside.residual), residual, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.stack(inside.attention), attention, rtol=1e-4, atol=1e-5)
    prompt = transformer.tokenizer.token_text(ids[0])  # a prompt, so that no start token comes before the ids
    assert transformer.tokenizer.encode_ids(prompt) == ids[:1]
    v = inside_step(transformer, run_step_table(transformer, prompt, ids[1:-1], Settings()))
    np.testing.assert_allclose(np.stack(v.attention), attention[:, :, : len(ids) - 1, : len(ids) - 1], atol=1e-5)


def test_smollm2s_cached_logits_equal_its_uncached_pass(smollm):
    ids = smollm.tokenizer.encode_ids("It is a truth universally acknowledged, that a single man in possession of a")
    for n in (1, 7, len(ids) - 1, len(ids)):  # within a block, then past the first block of 16
        np.testing.assert_allclose(smollm.logits(ids[:n]), smollm.logits(ids[:n], cached=False), rtol=1e-4, atol=1e-4)
