"""What a request's work will cost, known before it runs: the passes it runs x what each pass reads and computes.

A forward pass over n positions does, in each of the model's layers, one multiply-add per weight per
position (the matrices of its blocks), plus attention: each position's query against the keys of
every position before it. The head (final norm, then the output matrix) runs only where logits are
wanted. A pass over one position streams every weight once from memory (a vector-matrix product);
a pass over a block of positions packs every weight once (a matrix-matrix product: slower than
streaming, for the packing), then does the arithmetic. Each call also pays Python's overhead, a
little per layer. So, in seconds on one core:

    pass(1 position)  = n_layer x LAYER_SECONDS + max(weight bytes / BYTES_PER_SECOND, macs / MACS_PER_SECOND)
    pass(n positions) = n_layer x LAYER_SECONDS + weight bytes / PACKED_BYTES_PER_SECOND + macs / MACS_PER_SECOND

with macs = n x macs per position + the head's + attention's. A window runs as the KV cache runs it
(machinery/kvcache.py): in the model's blocks (`block_sizes`), one pass each, less the blocks the
cache holds; so a cold prompt of 61 positions of SmolLM2 is blocks of 32, 16 and 8 and five passes
of one position. A step adds its own work over the vocabulary (softmax, ranking, ranges):
n_vocab x VOCAB_SECONDS; the screen's extras have theirs (`inside_work`, `draws_work`).

The constants are on the slow side of what was measured on the project's 2-core machine with one
BLAS thread, as the server runs (bench/bench_llama.py, bench/bench_budget.py; SmolLM2-135M: 31 ms a
pass over one position, 104, 119 and 136 ms over blocks of 8, 16 and 32; the Austen transformer:
0.5 ms and 1.3 ms), so an estimate is about 1.5 times the time taken; the budget
(webapp/web/serving/budget.py) leaves room for a busy machine besides.

Everything is read from what every model exposes: `params` (nested dicts and lists of arrays, with
the layers under "blocks"), `embeddings`, `n_ctx`, `n_vocab`, `bos_id` if a window starts with one,
and `block_sizes` if its KV cache runs a window in blocks. A model without `params` (the bigram: a
row of counts) costs only its vocabulary work. What the KV cache already holds is not run again:
`cached_positions` asks the model (`model.cached_positions(ids)`), so stepping along a long text
costs its new positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..model import LanguageModel
from .kvcache import plan

MACS_PER_SECOND = 50e9  # float32 multiply-adds in NumPy's matrix products (measured: 80e9)
BYTES_PER_SECOND = 15e9  # streaming the weights once, in a pass over one position (measured: 23e9)
PACKED_BYTES_PER_SECOND = 5e9  # packing them once, in a pass over a block of positions (measured: 7.7e9)
LAYER_SECONDS = 0.15e-3  # Python's overhead per layer per call (measured: 0.08e-3)
VOCAB_SECONDS = 0.3e-6  # a step's softmax, ranking and ranges, per vocabulary token (measured: 0.13 to 0.22e-6)
RANK_SECONDS = 0.1e-6  # one row of the logit lens: softmax and its top tokens, per vocabulary token (0.07e-6)
NEIGHBOUR_BYTES_PER_SECOND = 2e9  # an embedding's neighbours: every embedding's norm and product (3.1e9)
# One draw of "Sample many" (sampling.random_rs: a NumPy generator seeded with (seed, step, j) for each
# draw): bench/bench_budget.py measures 8 us on the 2-core machine; 10,000 draws are about 0.1 s.
DRAW_SECONDS = 12e-6
# Counting a class's sentences into its bigram (class_bigram.py): a 50 KB text, about 10,000 tokens, takes 15 ms.
COUNT_SECONDS = 3e-6  # per token counted
SCORE_SECONDS = 0.02e-6  # a scored token's log-softmax, per vocabulary token (measured with a bigram's row: 0.005e-6)


@dataclass(frozen=True)
class Shape:
    """What a forward pass reads, per position and in all."""

    n_layer: int
    n_embd: int
    position_macs: int  # the layers' matrices: one multiply-add per weight per position
    head_macs: int  # the output matrix, for a position whose logits are wanted
    weight_bytes: int
    head_bytes: int  # the output matrix alone (the logit lens reads it for every layer)


@dataclass(frozen=True)
class Work:
    """An estimate: the positions a request runs, its forward passes, and their time on one core."""

    positions: int = 0
    passes: int = 0
    seconds: float = 0.0

    def __add__(self, other: Work) -> Work:
        return Work(self.positions + other.positions, self.passes + other.passes, self.seconds + other.seconds)


def _arrays(node) -> list[np.ndarray]:
    if isinstance(node, dict):
        return [a for value in node.values() for a in _arrays(value)]
    if isinstance(node, (list, tuple)):
        return [a for value in node for a in _arrays(value)]
    return [node] if isinstance(node, np.ndarray) else []


@lru_cache(maxsize=32)  # models live as long as the app: their shapes are read once
def shape_of(model: LanguageModel) -> Shape | None:
    """The model's size from its weights; None for a model with no layers (the bigram)."""
    params = getattr(model, "params", None)
    if not isinstance(params, dict) or not params.get("blocks"):
        return None
    blocks = params["blocks"]
    matrices = [a for a in _arrays(blocks) if a.ndim >= 2]
    unique = {id(a): a for a in _arrays(params)}  # a tied head is the embedding again: read once
    n_embd = model.embeddings.shape[-1]  # [n_vocab, n_embd]
    return Shape(n_layer=len(blocks), n_embd=n_embd, position_macs=sum(a.size for a in matrices),
                 head_macs=model.n_vocab * n_embd, weight_bytes=sum(a.nbytes for a in unique.values()),
                 head_bytes=model.n_vocab * n_embd * 4)


def pass_seconds(shape: Shape, n: int, context: int) -> float:
    """One forward pass over the last n positions of a window of `context`, logits at the last one."""
    attention = shape.n_layer * 2 * shape.n_embd * n * context  # each new query over the keys before it
    arithmetic = (n * shape.position_macs + shape.head_macs + attention) / MACS_PER_SECOND
    if n == 1:  # the weights streamed once, while the arithmetic keeps up
        return shape.n_layer * LAYER_SECONDS + max(shape.weight_bytes / BYTES_PER_SECOND, arithmetic)
    return shape.n_layer * LAYER_SECONDS + shape.weight_bytes / PACKED_BYTES_PER_SECOND + arithmetic


def window_length(model: LanguageModel, n_ids: int) -> int:
    """Positions a forward pass after n_ids ids reads: at most n_ctx, a BOS token if the model starts with
    one, and at least one (a start token)."""
    return max(1, min(n_ids, model.n_ctx) + (getattr(model, "bos_id", None) is not None))


def batches(model: LanguageModel, window: int, cached: int = 0) -> list[tuple[int, int]]:
    """The passes that run a window of `window` positions, (start, end) each, after the `cached` ones:
    the KV cache's blocks (kvcache.plan), or one pass for a model without them.

    SmolLM2's blocks (32, 16, 8, 1), 61 positions, none cached -> [(0, 32), (32, 48), (48, 56), (56, 57), ... (60, 61)].
    """
    sizes = getattr(model, "block_sizes", None)
    if not sizes:
        return [(cached, window)] if cached < window else []
    return [(max(lo, cached), hi) for lo, hi in plan(window, sizes) if hi > cached]


def cached_positions(model: LanguageModel, ids: Sequence[int]) -> int:
    """How many leading positions of the window after ids the model's KV cache holds now (0 if it has none).

    A window whose very logits are kept costs nothing: that counts as all of it.
    """
    ask = getattr(model, "cached_positions", None)
    return int(ask(ids)) if callable(ask) else 0


def step_work(model: LanguageModel, ids: Sequence[int], cached: int = 0) -> Work:
    """One step after ids (prompt and generated): the passes its window runs, less the `cached` positions,
    and its vocabulary."""
    vocabulary = model.n_vocab * VOCAB_SECONDS
    shape = shape_of(model)
    if shape is None:
        return Work(positions=1, passes=1, seconds=vocabulary)
    window = window_length(model, len(ids))
    runs = batches(model, window, cached)
    seconds = sum(pass_seconds(shape, hi - lo, hi) for lo, hi in runs)
    return Work(positions=sum(hi - lo for lo, hi in runs), passes=len(runs), seconds=seconds + vocabulary)


def inside_work(model: LanguageModel, ids: Sequence[int]) -> Work:
    """Inside the forward pass (derived/inside.py): the window again in one pass, its intermediates kept; the
    logit lens, every layer's stream through the head and ranked over the vocabulary; an embedding's
    nearest neighbours, every embedding read and ranked."""
    shape = shape_of(model)
    vocabulary = model.n_vocab * VOCAB_SECONDS
    if shape is None:  # the bigram's row of counts
        return Work(seconds=vocabulary)
    window = window_length(model, len(ids))
    rows = shape.n_layer + 1  # the embeddings, and the stream after each block
    lens = shape.head_bytes / PACKED_BYTES_PER_SECOND + rows * (shape.head_macs / MACS_PER_SECOND
                                                                 + model.n_vocab * RANK_SECONDS)
    near = model.embeddings.nbytes / NEIGHBOUR_BYTES_PER_SECOND
    return Work(positions=window, passes=1, seconds=pass_seconds(shape, window, window) + lens + near)


def counting_work(model: LanguageModel) -> Work:
    """A class model is counted from its sentences when a process first needs it (then kept), and a mix reads
    the other bigram's row too: charged on every step, as if it were counted again."""
    n_counted = getattr(model, "n_counted", 0)
    other = getattr(model, "other", None)
    return Work(seconds=n_counted * COUNT_SECONDS + (other.n_vocab * VOCAB_SECONDS if other is not None else 0))


def decoding_work(model: LanguageModel, n_prompt: int, width: int, n_new: int) -> Work:
    """Greedy and beam search (decoding.py): the greedy text's steps in a row; beam search's first level is the
    prompt's window, which greedy's first step runs (the KV pool keeps its logits for the other); then each level's
    `width` new positions as one batch over the beams' kept keys and values (kvcache.beam_logits), or each beam's
    whole window once the window slides."""
    greedy = sum(steps_work(model, n_prompt, n_new), Work())
    levels = []
    shape = shape_of(model)
    for t in range(1, n_new):
        n_ids = n_prompt + t
        if shape is None or n_ids > model.n_ctx:
            levels.append(sum((step_work(model, range(n_ids)) for _ in range(width)), Work()))
            continue
        heads = (width - 1) * shape.head_macs / MACS_PER_SECOND  # pass_seconds counts one position's logits
        vocabulary = width * model.n_vocab * SCORE_SECONDS  # each row's log-softmax, and the best of them all
        seconds = pass_seconds(shape, width, window_length(model, n_ids)) + heads + vocabulary
        levels.append(Work(positions=width, passes=1, seconds=seconds))
    return greedy + sum(levels, Work())


def draws_work(n: int) -> Work:
    """Sampling the step's distribution n times ("Sample many"): a seeded generator made for each draw."""
    return Work(seconds=n * DRAW_SECONDS)


def steps_work(model: LanguageModel, n_prompt: int, n_steps: int) -> list[Work]:
    """Each of n_steps steps in a row after a prompt of n_prompt tokens, each reusing the keys and values
    the one before kept: the first runs its whole window, a later one what the blocks before it do not
    hold (its new position, or a block that replaces the last few), and its whole window once the window
    slides (every position moves).
    """
    works = []
    for i in range(n_steps):
        n_ids = n_prompt + i
        slides = n_ids > model.n_ctx
        window = window_length(model, n_ids)
        cached = 0 if i == 0 or slides else held_from(model, window - 1, window)
        works.append(step_work(model, range(n_ids), cached))
    return works


def held_from(model: LanguageModel, before: int, window: int) -> int:
    """How many positions of a window the KV cache holds from the window of `before` positions of the same text:
    the whole blocks both run alike (kvcache.KVCache.reusable), never the window's last position.

    SmolLM2's blocks (32, 16, 8, 1): 39 -> 40 positions holds 32 (40 runs [32, 40) as a block of 8); 40 -> 41
    holds 40. A model without blocks: all but the last.
    """
    sizes = getattr(model, "block_sizes", None)
    if not sizes:
        return min(before, window - 1)
    kept = [(lo, hi) for lo, hi in plan(before, sizes) if hi - lo in sizes]  # a tail is run again each time
    held = 0
    for was, now in zip(kept, plan(window, sizes), strict=False):
        if was != now or now[1] > window - 1:
            break
        held = now[1]
    return held


def affordable_steps(works: Sequence[Work], seconds: float) -> int:
    """How many of the works, in order, fit in `seconds`: [0.4, 0.4, 0.4] in 1.0 -> 2."""
    total = 0.0
    for i, work in enumerate(works):
        total += work.seconds
        if total > seconds:
            return i
    return len(works)



def scoring_work(model: LanguageModel, n_tokens: int) -> Work:
    """Scoring a sentence of n_tokens from the model's start token (derived/perplexity.token_log_probs): each
    token's step in a row, as steps_work runs them, with a log-softmax over the vocabulary in place of a
    step's ranking and ranges."""
    ranking = n_tokens * model.n_vocab * (VOCAB_SECONDS - SCORE_SECONDS)
    work = sum(steps_work(model, 1, n_tokens), Work())
    return Work(work.positions, work.passes, work.seconds - ranking)
