"""Per-token perplexity of a model on a text: exp of the mean negative log-probability."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..model import LanguageModel
from ..step import context_ids


def log_softmax(z: np.ndarray) -> np.ndarray:
    """Natural-log probabilities in float64, along the last axis: [..., n_vocab] -> [..., n_vocab]."""
    z = np.asarray(z, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def token_log_probs(model: LanguageModel, ids: Sequence[int]) -> np.ndarray:
    """Natural-log probability of each id given the ids before it, the first given an empty prompt: [n_ids].

    Each prefix is read as a step after an empty prompt reads it (step.context_ids: the model's start token,
    then the prefix), so the KV cache runs only what is new while the window fills; once it slides, every
    id costs a whole window.
    """
    ids = [int(i) for i in ids]
    model.tokenizer.check_ids(ids)
    return np.array([log_softmax(model.logits(context_ids(model, (), ids[:i])))[token] for i, token in enumerate(ids)],
                    dtype=np.float64)


def perplexity(model: LanguageModel, text: str) -> tuple[float, int]:
    """Return (perplexity, number of tokens) of text; unknown words count as `<unk>`."""
    ids = [t.id for t in model.tokenizer.encode(text)]
    if not ids:
        raise ValueError("the text has no tokens")
    log_probs = token_log_probs(model, ids)
    return math.exp(-float(log_probs.mean())), len(ids)
