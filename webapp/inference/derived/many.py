"""Sample many: the step's final distribution sampled N times, to see the law of large numbers.

Draw j (j = 1..N) at generation step i with seed s uses (a public contract, beside the step's own r)

    r_j = numpy.random.default_rng([s, i, j]).random()

and picks, as the step does, the first range whose upper end is greater than r_j. The share of
picks each token gets approaches its probability as N grows: within a few times
sqrt(p (1 - p) / N) of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import sampling
from .table import StepResult


@dataclass(frozen=True)
class Bin:
    """One token's picks out of N, beside its probability."""

    id: int
    token: str
    prob: float  # in the final distribution
    count: int
    share: float  # count / N
    sigma: float  # sqrt(p (1 - p) / N): how far the share typically strays from p


@dataclass(frozen=True)
class ManySample:
    """N draws from the step's final distribution: the shown tokens' bins, and the rest summed."""

    n: int
    bins: tuple[Bin, ...]  # the table's kept tokens, in ranking order
    rest_count: int  # picks of kept tokens below the table
    rest_prob: float
    counts: np.ndarray  # [n_kept] picks per range, in the ranges' order (result.laid)


def sample_many(result: StepResult, n: int) -> ManySample:
    """Draw n r's by the contract above and count the picks per token."""
    rs = sampling.random_rs(result.settings.seed, result.step, n)  # [n] seeded: each compared as the float it is
    hi, _ = result.ends(result.laid)  # [n_kept] upper ends, in the ranges' order (fractions for typed probabilities)
    counts = sampling.sample_many(hi, rs)  # [n_kept]
    by_id = dict(zip(result.laid.tolist(), counts.tolist(), strict=True))
    bins = tuple(Bin(row.id, row.token, row.prob_kept, by_id[row.id], by_id[row.id] / n,
                     math.sqrt(row.prob_kept * (1 - row.prob_kept) / n)) for row in result.rows if row.kept)
    shown = sum(b.count for b in bins)
    return ManySample(n=n, bins=bins, rest_count=n - shown, rest_prob=result.rest.prob_kept, counts=counts)
