"""Computations written from the definitions, for the core's tests to check against, and shared strategies."""

from __future__ import annotations

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from webapp.inference import Settings

N_VOCAB = 5000  # austen-bigram
PROMPTS = ["", "Mr. Darcy said", "It is a truth universally acknowledged", "She smiled.\n\nThe"]
prompts = st.sampled_from(PROMPTS)
with_bigram = settings(deadline=None)  # the bigram model makes each example a millisecond or two


def reference_probs(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(logits / T) in float64, written out; T = 0 is one-hot on the first largest logit."""
    z = np.asarray(logits, dtype=np.float64)  # [n_vocab]
    if temperature == 0:
        p = np.zeros_like(z)
        p[np.flatnonzero(z == z.max())[0]] = 1.0
        return p
    e = np.exp((z - z.max()) / temperature)  # [n_vocab], largest term exp(0) = 1
    return e / e.sum()


def reference_ranking(probs: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """Ids by probability, then logit, largest first, ties by smaller id (a stable sort on a key)."""
    return np.array(sorted(range(len(probs)), key=lambda i: (-probs[i], -logits[i], i)))




truncating = st.builds(
    Settings,
    temperature=st.one_of(st.just(0.0), st.floats(0.2, 2.5)),
    top_k=st.one_of(st.none(), st.integers(1, 200)),
    top_p=st.one_of(st.none(), st.floats(0.1, 1.0)),
    min_p=st.one_of(st.none(), st.floats(0.0, 0.2)),
    seed=st.integers(0, 1000),
)
