"""Per-token perplexity of a model on a text: exp of the mean negative log-probability."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..model import LanguageModel
from ..sampling import softmax


def token_log_probs(model: LanguageModel, ids: Sequence[int]) -> np.ndarray:
    """Natural-log probability of each id given the ids before it (the first given an empty context).

    A model may compute the same numbers in a faster way of its own (the transformer batches its
    sliding windows); calling logits() on every prefix is the definition and the fallback.
    """
    if callable(fast := getattr(model, "token_log_probs", None)):
        return fast(ids)
    out = np.empty(len(ids))  # [n_tokens]
    for i, token in enumerate(ids):
        probs = softmax(model.logits(ids[:i]))  # [n_vocab]
        out[i] = math.log(probs[token])
    return out


def perplexity(model: LanguageModel, text: str) -> tuple[float, int]:
    """Return (perplexity, number of tokens) of text; unknown words count as `<unk>`."""
    ids = [t.id for t in model.tokenizer.encode(text)]
    if not ids:
        raise ValueError("the text has no tokens")
    log_probs = token_log_probs(model, ids)
    return math.exp(-float(log_probs.mean())), len(ids)
