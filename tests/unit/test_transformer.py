"""The NumPy transformer: PyTorch's golden logits, the KV cache's purity, the window, a golden greedy run.

The golden logits (tests/unit/fixtures/transformer_golden.npz) were written by
scripts/train_transformer.py from the PyTorch model at export time; the greedy tokens were
recorded once from generate(). Both change whenever the model is retrained: re-record them then.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from webapp.inference import InvalidTokenIds, Settings, generate_table
from webapp.inference.derived.perplexity import log_softmax, token_log_probs
from webapp.inference.machinery.registry import DEFAULT_MODEL, MODELS_DIR, load_bundled, load_model
from webapp.inference.model import Inside
from webapp.inference.transformer import TransformerModel, attention, forward

MODEL_DIR = MODELS_DIR / "austen-transformer"
FIXTURE = Path(__file__).parent / "fixtures" / "transformer_golden.npz"
GREEDY_PROMPT = "It is a truth universally acknowledged"
GREEDY_TOKENS = [",", "and", "I", "am", "sure", "I", "am", "sure", "I", "should"]  # recorded from generate()


def load_golden() -> list[tuple[list[int], np.ndarray]]:
    with np.load(FIXTURE) as f:
        return [([int(i) for i in f[f"ids_{k}"]], f[f"logits_{k}"]) for k in range(int(f["n_prompts"]))]


GOLDEN = load_golden()


@pytest.fixture(scope="module")
def model() -> TransformerModel:
    return TransformerModel.load(MODEL_DIR)


def fresh(model: TransformerModel) -> TransformerModel:
    """The same weights with an empty cache."""
    return TransformerModel(model.name, model.tokenizer, model.params, model.n_head, model.n_ctx)


@pytest.fixture(scope="module")
def seq() -> list[int]:
    """50 ids of real text (from the held-out part of the corpus)."""
    return GOLDEN[-1][0][:50]


@pytest.fixture(scope="module")
def reference(model, seq) -> list[np.ndarray]:
    """Uncached logits after every prefix of seq, the empty one included."""
    return [model.logits(seq[:n], cached=False) for n in range(len(seq) + 1)]


@pytest.mark.parametrize("k", range(len(GOLDEN)))
def test_logits_match_pytorch(model, k):
    ids, expected = GOLDEN[k]
    assert np.abs(fresh(model).logits(ids) - expected).max() <= 1e-4
    assert np.abs(model.logits(ids, cached=False) - expected).max() <= 1e-4


def test_logits_are_float32_of_n_vocab(model, seq):
    for out in (model.logits(seq), model.logits(seq, cached=False), model.logits([])):
        assert out.dtype == np.float32
        assert out.shape == (model.n_vocab,)
    every = forward(model.params, seq, model.n_head, n_logits=len(seq))
    assert every.dtype == np.float32
    assert every.shape == (len(seq), model.n_vocab)


def test_every_position_of_one_pass_equals_the_logits_of_its_prefix(model, seq, reference):
    """The logits a full pass gives at position i are those of the step that reads seq[: i + 1]."""
    every = forward(model.params, seq, model.n_head, n_logits=len(seq))  # [n_seq, n_vocab]
    for i in range(len(seq)):
        assert np.abs(every[i] - reference[i + 1]).max() <= 1e-5, i


def test_batches_of_windows_give_each_windows_logits(model, seq):
    windows = np.array([seq[:20], seq[10:30], seq[30:50]])  # [3, 20]
    batch = forward(model.params, windows, model.n_head)  # [3, 1, n_vocab]
    for window, logits in zip(windows, batch, strict=True):
        assert np.abs(logits[-1] - model.logits(list(window), cached=False)).max() <= 1e-5


def test_attention_without_a_mask_equals_attention_with_a_mask_of_zeros():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(shape, dtype=np.float32) for shape in ((3, 2, 8), (3, 5, 8), (3, 5, 8)))
    heads, weights = attention(q, k, v, None)
    zeros = attention(q, k, v, np.zeros((2, 5), dtype=np.float32))
    assert np.array_equal(heads, zeros[0]) and np.array_equal(weights, zeros[1])
    assert heads.dtype == np.float32


def test_inside_hands_back_every_blocks_stream_and_attention(model, seq):
    inside = Inside()
    logits = model.logits(seq[:12], inside=inside)
    assert np.array_equal(logits, model.logits(seq[:12], cached=False))  # asking costs nothing in the numbers
    assert len(inside.residual) == model.n_layer + 1 and len(inside.attention) == model.n_layer
    assert all(x.shape == (12, model.n_embd) for x in inside.residual)
    assert np.array_equal(inside.residual[0], model.params["wte"][seq[:12]] + model.params["wpe"][:12])
    for weights in inside.attention:  # [n_head, n_q, n_k]: each query's weights sum to 1 over the keys before it
        assert weights.shape == (model.n_head, 12, 12)
        np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-5)
        assert not np.triu(weights, k=1).any()  # no query reads a later position


def test_cached_equals_uncached_for_every_prefix(model, seq, reference):
    m = fresh(model)
    for n in range(len(seq) + 1):
        assert np.abs(m.logits(seq[:n]) - reference[n]).max() <= 1e-5, n


@pytest.mark.parametrize("order", ["longest first", "shortest last", "shuffled"])
def test_cache_gives_the_same_logits_in_any_order(model, seq, order):
    """Bit for bit: every position is computed by the same one-position step, cached or not."""
    growing = fresh(model)
    expected = [growing.logits(seq[:n]) for n in range(len(seq) + 1)]
    lengths = {
        "longest first": [50, 10, 30, 49, 0, 50, 1],
        "shortest last": list(range(50, -1, -1)),
        "shuffled": list(np.random.default_rng(3).permutation(51)),
    }[order]
    m = fresh(model)
    for n in lengths:
        assert np.array_equal(m.logits(seq[:n]), expected[n]), n


def test_cache_after_branching(model, seq, reference):
    m = fresh(model)
    m.logits(seq[:40])
    branch = seq[:20] + seq[30:40]  # shares 20 tokens with the cached window, then differs
    assert np.array_equal(m.logits(branch), fresh(model).logits(branch))
    assert np.abs(m.logits(branch) - model.logits(branch, cached=False)).max() <= 1e-5
    assert np.array_equal(m.logits(seq[:25]), fresh(model).logits(seq[:25]))  # back on the first branch
    assert np.abs(m.logits(seq[:25]) - reference[25]).max() <= 1e-5


def test_threads_do_not_share_a_cache(model, seq):
    m = fresh(model)
    sequences = [seq, seq[::-1], seq[:25] + seq[:25], seq[10:] + seq[:10]]
    expected = [[fresh(model).logits(s[:n]) for n in range(0, 51, 5)] for s in sequences]
    got: dict[int, list[np.ndarray]] = {}
    start = threading.Barrier(len(sequences))

    def run(k: int) -> None:
        start.wait()
        got[k] = [m.logits(sequences[k][:n]) for n in range(0, 51, 5)]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(sequences))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(len(sequences)):
        assert all(np.array_equal(a, b) for a, b in zip(got[k], expected[k], strict=True)), k


def test_only_the_last_n_ctx_ids_are_read(model):
    long_ids = GOLDEN[-1][0]
    n_ctx = model.n_ctx
    assert len(long_ids) > n_ctx + 1
    m = fresh(model)
    for end in (n_ctx + 1, len(long_ids), n_ctx + 2):
        ids = long_ids[:end]
        assert np.array_equal(m.logits(ids), m.logits(ids[-n_ctx:]))
        assert np.array_equal(m.logits(ids), fresh(model).logits(ids[-n_ctx:]))
        assert np.abs(m.logits(ids) - model.logits(ids, cached=False)).max() <= 1e-5


def test_an_empty_context_reads_as_a_paragraph(model):
    assert np.array_equal(fresh(model).logits([]), fresh(model).logits([model.tokenizer.paragraph_id]))


def test_greedy_continuation_is_golden(model):
    steps = generate_table(model, GREEDY_PROMPT, 10, Settings(temperature=0))
    assert [s.chosen.token for s in steps] == GREEDY_TOKENS


@pytest.mark.parametrize("bad", [[-1], [5, 10**6], [3, 5000]])
def test_ids_outside_the_vocabulary_are_refused(model, bad):
    with pytest.raises(InvalidTokenIds):
        model.logits(bad)


def test_token_log_probs_read_each_prefix_as_a_step_does(model):
    ids = GOLDEN[-1][0][1 : model.n_ctx + 6]  # the text after its <p>; the window fills, then slides
    start = model.tokenizer.paragraph_id  # a text after an empty prompt starts with <p>, at every step
    windows = [[start, *ids[:i]][-model.n_ctx :] for i in range(len(ids))]
    expected = [log_softmax(forward(model.params, w, model.n_head)[-1])[t] for w, t in zip(windows, ids, strict=True)]
    assert np.abs(token_log_probs(fresh(model), ids) - np.array(expected)).max() <= 1e-4
    assert token_log_probs(model, []).shape == (0,)


def test_held_out_perplexity_is_below_the_bigrams(model):
    ids = GOLDEN[-1][0][: model.n_ctx]  # held-out text: neither model was trained on it
    bigram = load_model(MODELS_DIR / "austen-bigram")
    assert token_log_probs(model, ids).mean() > token_log_probs(bigram, ids).mean()


def test_float16_weights_load_as_float32(model, tmp_path, seq):
    for name in ("config.json", "vocab.json"):
        shutil.copy(MODEL_DIR / name, tmp_path / name)
    weights = json.loads((MODEL_DIR / "config.json").read_text())["weights"]
    with np.load(MODEL_DIR / weights) as f:
        np.savez(tmp_path / weights, **{k: f[k].astype(np.float16) for k in f.files})
    half = TransformerModel.load(tmp_path)
    assert half.logits(seq).dtype == np.float32
    assert np.abs(half.logits(seq) - model.logits(seq)).max() < 0.1


def test_model_files_fit_in_10_mb():
    assert sum(f.stat().st_size for f in MODEL_DIR.iterdir()) <= 10_000_000


def test_the_transformer_is_registered_and_the_default():
    models = load_bundled()
    assert DEFAULT_MODEL == "austen-transformer"
    assert isinstance(models[DEFAULT_MODEL], TransformerModel)
    assert models["austen-bigram"].tokenizer.vocab == models[DEFAULT_MODEL].tokenizer.vocab


def test_the_inference_core_never_imports_torch():
    code = "import sys, webapp.inference as i; i.load_bundled(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_logits_of_a_window_asked_again_are_kept_and_handed_out_as_copies(model, seq, monkeypatch):
    m = fresh(model)
    runs = []
    run = m._forward
    monkeypatch.setattr(m, "_forward", lambda ids, *args: runs.append(len(ids)) or run(ids, *args))
    first = m.logits(seq[:10])  # short windows share no complete block: only the kept logits can help
    m.logits(seq[:7])
    first[:] = 0  # the caller's copy, not the kept logits
    again = m.logits(seq[:10])
    assert runs == [10, 7]
    assert np.array_equal(again, fresh(model).logits(seq[:10]))


def test_a_step_runs_only_the_tail_after_the_kept_blocks(model, seq, monkeypatch):
    m = fresh(model)
    runs = []
    run = m._forward
    monkeypatch.setattr(m, "_forward", lambda ids, start, *a: runs.append((start, len(ids))) or run(ids, start, *a))
    m.logits(seq[:40])  # cold: one block of 32, then a tail of 8
    m.logits(seq[:41])  # the block is kept: only the tail of 9 runs again
    assert runs == [(0, 32), (32, 8), (32, 9)]
