"""What a request's forward passes will cost, known before they run: positions to run x cost per position.

A forward pass over n positions does, in each of the model's layers, one multiply-add per weight per
position (the matrices of its blocks), plus attention: each position's query against the keys of
every position before it. The head (final norm, then the output matrix) runs only where logits are
wanted. A pass over one position is bound by reading every weight once from memory; a block of
positions reads them once for all, and is bound by the arithmetic. Each call also pays Python's
overhead, a little per layer. So, in seconds on one core of the machines this project runs on:

    pass(n positions, context c) = n_layer x LAYER_SECONDS
                                   + max(weight bytes / BYTES_PER_SECOND, n x macs per position / MACS_PER_SECOND)
                                   + attention macs / MACS_PER_SECOND

and a step adds its own work over the vocabulary (softmax, ranking, ranges): n_vocab x VOCAB_SECONDS.
The constants are on the slow side of what was measured on the project's 2-core machines (SmolLM2:
14 ms a position in a block of them, 55 to 60 ms for one alone; the Austen transformer: 1.2 to
1.6 ms a call, 15 ms for a cold window of 200 ids), so an estimate is an upper bound more often
than not; the budget (webapp/web/serving/budget.py) leaves room for a busy machine besides.

Everything is read from what every model exposes: `params` (nested dicts and lists of arrays, with
the layers under "blocks"), `embeddings`, `n_ctx`, `n_vocab`, and `context(ids)` for the window a
pass reads. A model without `params` (the bigram: a row of counts) costs only its vocabulary work. What the KV
cache already holds is not run again: `cached_positions` asks the model (`model.cached_positions(ids)`),
so stepping along a long text costs its new positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..model import LanguageModel

MACS_PER_SECOND = 8e9  # float32 multiply-adds, a block of positions through NumPy's matrix products
BYTES_PER_SECOND = 8e9  # reading the weights once, for a pass over a single position
LAYER_SECONDS = 0.3e-3  # Python's overhead per layer per call
VOCAB_SECONDS = 0.2e-6  # a step's softmax, ranking and ranges, per vocabulary token


@dataclass(frozen=True)
class Shape:
    """What a forward pass reads, per position and in all."""

    n_layer: int
    n_embd: int
    position_macs: int  # the layers' matrices: one multiply-add per weight per position
    head_macs: int  # the output matrix, for a position whose logits are wanted
    weight_bytes: int


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
                 head_macs=model.n_vocab * n_embd, weight_bytes=sum(a.nbytes for a in unique.values()))


def pass_seconds(shape: Shape, n: int, context: int) -> float:
    """One forward pass over the last n positions of a window of `context`, logits at the last one."""
    attention = shape.n_layer * 2 * shape.n_embd * n * context  # each new query over the keys before it
    arithmetic = (n * shape.position_macs + shape.head_macs + attention) / MACS_PER_SECOND
    return shape.n_layer * LAYER_SECONDS + max(shape.weight_bytes / BYTES_PER_SECOND, arithmetic)


def window_length(model: LanguageModel, n_ids: int) -> int:
    """Positions a forward pass after n_ids ids reads: at most n_ctx, and at least one (a start token)."""
    return max(1, min(n_ids, model.n_ctx))


def cached_positions(model: LanguageModel, ids: Sequence[int]) -> int:
    """How many leading positions of the window after ids the model's KV cache holds now (0 if it has none).

    A window whose very logits are kept costs nothing: that counts as all of it.
    """
    ask = getattr(model, "cached_positions", None)
    return int(ask(ids)) if callable(ask) else 0


def step_work(model: LanguageModel, ids: Sequence[int], cached: int = 0) -> Work:
    """One step after ids (prompt and generated): its forward pass, less the `cached` positions, and its vocabulary."""
    vocabulary = model.n_vocab * VOCAB_SECONDS
    shape = shape_of(model)
    if shape is None:
        return Work(positions=1, passes=1, seconds=vocabulary)
    window = window_length(model, len(ids))
    if cached >= window:
        return Work(seconds=vocabulary)
    n = window - cached
    return Work(positions=n, passes=1, seconds=pass_seconds(shape, n, window) + vocabulary)


def steps_work(model: LanguageModel, n_prompt: int, n_steps: int) -> list[Work]:
    """Each of n_steps steps in a row after a prompt of n_prompt tokens, each reusing the keys and values
    of the one before: the first runs its whole window, a later one its new position while the
    window fills, and its whole window once the window slides (every position moves).
    """
    works = []
    for i in range(n_steps):
        n_ids = n_prompt + i
        slides = n_ids > model.n_ctx
        cached = 0 if i == 0 or slides else window_length(model, n_ids) - 1
        works.append(step_work(model, range(n_ids), cached))
    return works


def affordable_steps(works: Sequence[Work], seconds: float) -> int:
    """How many of the works, in order, fit in `seconds`: [0.4, 0.4, 0.4] in 1.0 -> 2."""
    total = 0.0
    for i, work in enumerate(works):
        total += work.seconds
        if total > seconds:
            return i
    return len(works)

