"""How uncertain a step was, and how surprising its pick: entropy, effective vocabulary, surprise.

All in bits (log base 2), over the step's final distribution (after the whole chain), the one r
samples from:

    H = -sum_i p_i log2 p_i           the entropy: 0 when one token is certain, log2(n) when n share equally
    2^H                               the effective vocabulary: as uncertain as a fair choice among 2^H tokens
    s = -log2 p(picked)               the picked token's surprise: 1 bit for p = 0.5, 3.3 bits for p = 0.1

Over a text, the surprises add up to -log2 P(text), and the perplexity is 2^(mean surprise): the
effective number of choices per token. Both are given under the sampling distribution (what r
picked from, with this chain and temperature) and under the model at T = 1 (softmax of its logits,
nothing cut: the model's own view, which a perplexity on held-out text measures).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..model import LanguageModel
from ..sampling import softmax
from ..settings import Settings
from ..step import run_step
from .table import StepResult


@dataclass(frozen=True)
class Term:
    """One token's share of the entropy: -p log2 p."""

    token: str
    prob: float
    bits: float  # -log2 p
    term: float  # -p log2 p


@dataclass(frozen=True)
class Uncertainty:
    """The step's entropy, effective vocabulary, top probability and the pick's surprise.

    p = [0.7, 0.2, 0.1]: H = 0.7 x 0.515 + 0.2 x 2.322 + 0.1 x 3.322 = 1.157 bits, 2^H = 2.23 tokens;
    picking the 0.2 token is a surprise of 2.322 bits.
    """

    entropy: float  # bits
    effective_vocab: float  # 2^H
    top_token: str
    top_prob: float
    picked_token: str
    picked_prob: float  # in the final distribution
    surprise: float  # -log2 picked_prob, bits
    n_kept: int
    terms: tuple[Term, ...]  # the largest terms of the sum, for the worked example

    @property
    def max_entropy(self) -> float:
        """The entropy if the kept tokens were equally likely: log2 n_kept bits (5,000 tokens -> 12.288)."""
        return math.log2(self.n_kept) if self.n_kept else 0.0


def bits(p: float) -> float:
    """-log2 p; infinite for p = 0 (a token the chain cut cannot be picked by r); 0.0 for p = 1, not -0.0."""
    return math.inf if p <= 0 else 0.0 - math.log2(p)  # -log2(1) is -0.0, which prints as "-0.000"


def entropy(probs: np.ndarray) -> float:
    """-sum p log2 p over the tokens with p > 0, in bits.

    >>> entropy(np.array([0.5, 0.5])), entropy(np.array([1.0, 0.0])), round(entropy(np.array([0.7, 0.2, 0.1])), 3)
    (1.0, 0.0, 1.157)
    """
    p = probs[probs > 0]  # [n_kept]
    return float(max(0.0, -(p * np.log2(p)).sum()))


def uncertainty(result: StepResult, n_terms: int = 3) -> Uncertainty:
    """The uncertainty figures of the step's final distribution, and the picked token's surprise."""
    probs = result.probs_kept  # [n_vocab], after the whole chain
    h = entropy(probs)
    top = result.table.row(int(np.argmax(probs)))
    terms = tuple(Term(row.token, row.prob_kept, bits(row.prob_kept), row.prob_kept * bits(row.prob_kept))
                  for row in result.rows[:n_terms] if row.prob_kept > 0)
    chosen = result.chosen
    return Uncertainty(entropy=h, effective_vocab=2.0**h, top_token=top.token, top_prob=top.prob_kept,
                       picked_token=chosen.token, picked_prob=chosen.prob_kept, surprise=bits(chosen.prob_kept),
                       n_kept=result.n_kept, terms=terms)


@dataclass(frozen=True)
class TokenSurprise:
    """A generated token's surprise when it was picked: under the sampling distribution and the model at T = 1."""

    id: int
    surprise: float  # -log2 p in the step's final distribution; inf if the chain had cut it (chosen by hand)
    surprise_model: float  # -log2 softmax(logits)[id]: the model's own view


@dataclass(frozen=True)
class TextSurprise:
    """Every generated token's surprise, and the text's log-probability and perplexity both ways."""

    tokens: tuple[TokenSurprise, ...]
    log2_prob: float  # sum of log2 p under the sampling distribution (-inf if a token was cut)
    log2_prob_model: float  # the same under the model at T = 1
    perplexity: float  # 2^(-log2_prob / n): inf if a token was cut
    perplexity_model: float


def text_surprise(model: LanguageModel, prompt: str, ids: Sequence[int], settings: Settings) -> TextSurprise:
    """Recompute each generated token's step with these settings and read off its surprise both ways.

    Picks of p = 0.5 and 0.25: log2 P = -1 - 2 = -3 bits, perplexity 2^(3 / 2) = 2.83.
    """
    tokens = []
    for i, token in enumerate(ids):
        step = run_step(model, prompt, ids[:i], settings, r=0.0)
        p_model = float(softmax(step.logits)[token])
        tokens.append(TokenSurprise(int(token), bits(float(step.probs_kept[token])), bits(p_model)))
    total = -math.fsum(t.surprise for t in tokens)
    total_model = -math.fsum(t.surprise_model for t in tokens)
    n = max(len(tokens), 1)
    return TextSurprise(tuple(tokens), total, total_model, 2 ** (-total / n), 2 ** (-total_model / n))
