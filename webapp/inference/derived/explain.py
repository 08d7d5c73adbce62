"""The figures of a worked example for each stage of a step, taken from the step itself.

Each function reads a StepResult and returns the few numbers a textbook would write out
for it; nothing is recomputed differently from the step, so the prose on screen and the
panels agree to the last digit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .. import sampling
from ..class_bigram import ClassBigram, Counted, MixedBigram
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
    """The highest logit as the bigram counts give it; None for models that are not count-based (or a class's,
    which class_example writes out in the class's words)."""
    if not hasattr(model, "pair_count") or isinstance(model, ClassBigram):
        return None
    ids = result.context_ids
    prev = ids[-1] if ids else model.tokenizer.paragraph_id
    top = highest_logits(result, 1)[0]
    return BigramExample(model.tokenizer.token_text(prev), top.token, model.pair_count(prev, top.id),
                         int(model.row_totals[prev]), model.k, model.n_vocab, top.logit)


@dataclass(frozen=True)
class ClassExample:
    """The highest logit of a class model, from the class's counts; for a mix, with the other model's share.

    'lunch' after 'like', which was written 2 times, once before 'lunch', add-0.01 over 9 tokens:
    p_class = (1 + 0.01) / (2 + 0.01 * 9) = 48.3 %; mixed at w = 0.7 with p_other = 0.5 %:
    p = 0.7 * 48.3 % + 0.3 * 0.5 % = 34.0 %, of which 0.7 * 48.3 / 34.0 = 99.6 % came from the class.
    """

    token: str
    counted: Counted  # the row the step reads: its counts, n_prev, n_sentences, k, n_vocab
    pair_count: int  # how often token followed counted.prev
    p_class: float  # (pair_count + k) / (n_prev + k * n_vocab)
    logit: float  # the step's logit of token: log(p)
    w: float | None = None  # the class's weight in a mix; None for the class's counts alone
    p_other: float | None = None

    @property
    def prob(self) -> float:
        """The token's probability at T = 1: p_class, or w * p_class + (1 - w) * p_other in a mix."""
        if self.w is None:
            return self.p_class
        return self.w * self.p_class + (1 - self.w) * self.p_other

    @property
    def class_share(self) -> float:
        """Which share of prob came from the class's sentences: w * p_class / p (all of it unmixed)."""
        return 1.0 if self.w is None else self.w * self.p_class / self.prob


def class_example(model, result: StepResult) -> ClassExample | None:
    """The highest logit as the class's counts (and, in a mix, the other model) give it; None for other models."""
    mixed = isinstance(model, MixedBigram)
    if not (mixed or isinstance(model, ClassBigram)):
        return None
    counting = model.class_model if mixed else model
    ids = result.context_ids
    top = highest_logits(result, 1)[0]
    counted = counting.counted(ids)
    example = ClassExample(top.token, counted, int(counted.counts[top.id]), counted.probability(top.id), top.logit)
    if not mixed:
        return example
    _, p_other, _ = model.parts(ids)  # [n_vocab] each
    return replace(example, w=model.w, p_other=float(p_other[top.id]))


def pick_in_order(result: StepResult, range_order: str) -> Row:
    """The row the step's r picks when the kept tokens are laid in range_order ("probability" or "vocabulary").

    Article example, r = 0.05: by probability [0, 0.7) is 'C'; by id [0, 0.1) is 'A'.
    """
    ranked = np.argsort(result.table.ranks)  # [n_vocab] ids, rank 1 first
    laid = sampling.layout(result.pick_probs, ranked, range_order)  # [n_kept]
    return result.table.row(int(laid[sampling.pick(*result.ends(laid))]))
