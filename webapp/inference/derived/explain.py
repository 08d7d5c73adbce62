"""The figures of a worked example for each stage of a step, taken from the step itself.

Each function reads a StepResult and returns the few numbers a textbook would write out
for it; nothing is recomputed differently from the step, so the prose on screen and the
panels agree to the last digit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import sampling
from .table import Row, StepResult

MAX_EXP = 700.0  # e^700 is near float64's limit; beyond it the example shifts by the largest z/T


@dataclass(frozen=True)
class SoftmaxExample:
    """p(top) = e^x / sum_j e^(x_j), with x = z/T, or x = (z - z_max)/T where e^(z/T) would not fit a float.

    z = 5.12, T = 0.8: x = z/T = 6.40, e^6.40 = 601.8, sum over the vocabulary 1,943.1 -> p = 31.0 %.
    """

    token: str
    logit: float
    temperature: float
    scaled: float  # z / T (may be infinite at a tiny T)
    zmax: float | None  # the largest logit, subtracted first; None when e^(z/T) fits as it is
    exponent: float  # x: z / T, or (z - zmax) / T
    exp: float  # e^x
    total: float  # sum over the vocabulary of e^(x_j)
    prob: float  # exp / total: the row's probability
    prob_t1: float  # the same token at T = 1
    model_logit: float | None = None  # the model's own logit, when the penalties changed it


def softmax_example(result: StepResult) -> SoftmaxExample | None:
    """The softmax arithmetic for the top token; None at T = 0 (greedy: nothing is divided).

    The sum is written with e^(z/T) itself when every term is an ordinary number; otherwise
    (a huge logit or a tiny T) the largest logit is subtracted first, as the softmax does.
    """
    if result.scaled is None:
        return None
    top = result.rows[0]
    t = result.settings.applied_temperature
    z = result.penalised  # [n_vocab], the logits after any penalties
    finite = np.isfinite(z)  # [n_vocab]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        plain = result.scaled[finite]  # [n_finite]
        if np.isfinite(plain).all() and np.abs(plain).max() <= MAX_EXP:
            zmax, exponents = None, result.scaled  # [n_vocab]
        else:
            zmax = float(z[finite].max())
            exponents = (z - zmax) / t  # [n_vocab], at most 0: no overflow
        terms = np.exp(exponents)  # [n_vocab]
    x = float(exponents[top.id])
    logit = float(z[top.id])
    return SoftmaxExample(top.token, logit, t, top.scaled, zmax, x, math.exp(x), float(terms.sum()),
                          top.prob, top.prob_t1, model_logit=top.logit if logit != top.logit else None)


def highest_logits(result: StepResult, n: int = 2) -> list[Row]:
    """The rows of the n tokens the model itself scored highest, before any penalty: what the forward pass gave.

    The table ranks by probability after the penalties, so with a penalty on its first row need not be
    the model's highest logit. Ties go to the smaller id, as in the table (sampling.order, by logit alone).
    """
    # Without a penalty the table's ranking is by these very logits (softmax keeps their order): no second sort.
    ranked = sampling.order(result.logits, result.logits) if result.penalties_moved else result.table.ranked
    ids = ranked[:n]  # [n]
    return [result.table.row(int(i)) for i in ids]


def first_ranges(result: StepResult, n: int = 3) -> list[Row]:
    """The rows of the first n ranges on [0, 1), whose ranges a worked example writes out (in either range order)."""
    return [result.table.row(int(i)) for i in result.laid[:n]]


@dataclass(frozen=True)
class BigramExample:
    """logit = log((count(prev, next) + k) / (count(prev) + k * n_vocab)), with this step's figures.

    'of' after a word seen 32 times, 18 of them before 'of', add-0.01 over 5,000 words: 50 made-up
    counts, so p = (18 + 0.01) / (32 + 50) = 22.0 % at T = 1 (not 18 / 32), and the logit is log(p).
    """

    prev: str
    token: str
    pair_count: int
    prev_count: int
    k: float
    n_vocab: int
    logit: float

    @property
    def made_up(self) -> float:
        """k for each word of the vocabulary: the counts the smoothing adds to the row."""
        return self.k * self.n_vocab

    @property
    def prob(self) -> float:
        """The token's probability at T = 1: (pair + k) / (prev + k * n_vocab)."""
        return (self.pair_count + self.k) / (self.prev_count + self.made_up)


def bigram_example(model, result: StepResult) -> BigramExample | None:
    """The highest logit as the bigram counts give it; None for models that are not count-based."""
    if not hasattr(model, "pair_count"):
        return None
    ids = result.context_ids
    prev = ids[-1] if ids else model.tokenizer.paragraph_id
    top = highest_logits(result, 1)[0]
    return BigramExample(model.tokenizer.token_text(prev), top.token, model.pair_count(prev, top.id),
                         int(model.row_totals[prev]), model.k, model.n_vocab, top.logit)


def pick_in_order(result: StepResult, range_order: str) -> Row:
    """The row the step's r picks when the kept tokens are laid in range_order ("probability" or "vocabulary").

    Article example, r = 0.05: by probability [0, 0.7) is 'C'; by id [0, 0.1) is 'A'.
    """
    ranked = np.argsort(result.table.ranks)  # [n_vocab] ids, rank 1 first
    laid = sampling.layout(result.pick_probs, ranked, range_order)  # [n_kept]
    return result.table.row(int(laid[sampling.pick(*result.ends(laid))]))
