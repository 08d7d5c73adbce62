"""Turn logits into a pick: temperature, softmax, truncation, cumulative ranges, and the pick.

Each function is small and pure: arrays in, new arrays out, inputs never changed.
All probabilities are float64 (or fractions: see the end).

The stages (penalties, temperature, top-k, top-p, min-p) run in the order chain.py's
apply_chain is given; by default temperature first, then top-k, top-p and min-p, as
Hugging Face chains them. Each truncation sees the renormalised output of the stage before
it, and what it keeps is renormalised to sum to 1.

Ranges: the kept tokens are laid end to end on [0, 1), largest probability first,
ties by smaller id (or in vocabulary order, smaller id first, as the seed article lays them
out). The pick is the first range whose upper end is greater than r.

The truncations, the ranges and the pick also take probabilities as fractions (NumPy object
arrays), with which every sum and comparison is exact: the article's typed probabilities (exact.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import N_, InvalidSetting


def check_temperature(temperature: float) -> float:
    t = float(temperature)
    if not math.isfinite(t) or t < 0:
        raise InvalidSetting(N_("temperature must be a finite number >= 0, not %(value)s"), value=repr(temperature))
    return t


def softmax(z: np.ndarray, axis: int = -1, guard: bool = True) -> np.ndarray:
    """Softmax along axis, subtracting the max first so that exp never overflows.

    >>> softmax([1, 2, 3]).round(3).tolist()
    [0.09, 0.245, 0.665]
    >>> softmax([1e300, 1e300]).tolist(), softmax([0, -np.inf]).tolist(), softmax([-np.inf, -np.inf]).tolist()
    ([0.5, 0.5], [1.0, 0.0], [0.5, 0.5])

    All -inf gives equal shares. Float arrays keep their precision (the models' attention runs in
    float32); anything else is computed in float64.

    guard=False, for a caller whose every row has a finite maximum and nothing near the float range
    (attention: each query sees at least itself), gives the same numbers without the checks for rows
    of -inf and for overflow, which cost more than the arithmetic on rows that short.
    """
    z = np.asarray(z)
    if z.dtype not in (np.float32, np.float64):
        z = z.astype(np.float64)
    if not guard:
        e = np.exp(z - z.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):  # -1e308 - 1e308 is -inf, which exp turns into 0
        top = z.max(axis=axis, keepdims=True)  # -inf where every entry is -inf
        e = np.exp(z - np.where(np.isfinite(top), top, 0))  # same shape as z, in [0, 1]
    total = e.sum(axis=axis, keepdims=True)
    if not total.all():  # all -inf: nothing can be chosen, so share equally
        e = np.where(total == 0, 1, e)
        total = e.sum(axis=axis, keepdims=True)
    return e / total


def scale(logits: np.ndarray, temperature: float) -> np.ndarray | None:
    """Divide logits by T; None for T = 0, where the pick is the argmax and nothing is divided."""
    t = check_temperature(temperature)
    if t == 0:
        return None
    with np.errstate(over="ignore"):  # 1e300 / 1e-300 is inf; softmax below handles that
        scaled = np.asarray(logits, dtype=np.float64) / t  # [n_vocab]
    return scaled


def probabilities(logits: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax of logits / T; for T = 0 all the mass on the argmax (ties: smaller id).

    >>> probabilities(np.array([1.0, 3.0, 2.0]), 0.5).round(3).tolist()  # softmax([2, 6, 4])
    [0.016, 0.867, 0.117]
    >>> probabilities(np.array([1.0, 3.0, 2.0]), 0).tolist()
    [0.0, 1.0, 0.0]
    """
    t = check_temperature(temperature)
    z = np.asarray(logits, dtype=np.float64)  # [n_vocab]
    if t == 0:
        probs = np.zeros(len(z))  # [n_vocab]
        probs[int(np.argmax(z))] = 1.0  # np.argmax takes the first, i.e. smallest id
        return probs
    big = np.isposinf(z)
    if big.any():  # a logit is +inf: those tokens share all the mass
        return big / big.sum()
    finite = np.isfinite(z)
    if not finite.any():  # all -inf
        return softmax(z)
    # Subtract the max before dividing by T (softmax is shift invariant): (z - max) / T <= 0 never
    # overflows to +inf, so a tiny T still puts the mass on the argmax instead of splitting it
    # between logits that all overflowed to inf (5 / 1e-308 and 4 / 1e-308 are both inf).
    with np.errstate(over="ignore"):
        shifted = (z - z[finite].max()) / t  # [n_vocab], max is 0
    return softmax(shifted)


def order(probs: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """Token ids by probability, largest first, then by logit, ties by smaller id.

    The logit breaks ties among zero probabilities (e.g. at T = 0) so that rows still
    read in the order the model ranked them.

    >>> order(np.array([0.2, 0.5, 0.2, 0.1]), np.array([1.0, 2.0, 1.0, 0.0])).tolist()  # ids 0 and 2 tie
    [1, 0, 2, 3]
    """
    ids = np.arange(len(probs))
    return np.lexsort((ids, -np.asarray(logits, dtype=np.float64), -probs))


def top_k_mask(probs: np.ndarray, ranked: np.ndarray, k: int | None) -> np.ndarray:
    """Keep exactly the first k tokens of the ranking (ties at the edge go to smaller ids)."""
    keep = probs > 0
    if k is None:
        return keep
    mask = np.zeros(len(probs), dtype=bool)
    mask[ranked[:k]] = True
    return keep & mask


def top_p_mask(probs: np.ndarray, ranked: np.ndarray, p: float | None) -> np.ndarray:
    """Keep the shortest prefix of the ranking whose probabilities add up to at least p.

    >>> top_p_mask(np.array([0.5, 0.3, 0.2]), np.array([0, 1, 2]), 0.7).tolist()  # 0.5 + 0.3 >= 0.7
    [True, True, False]
    """
    keep = probs > 0
    if p is None or p >= 1:
        return keep
    cdf = np.cumsum(probs[ranked])  # [n_vocab]
    # Floats round (0.7 + 0.2 is 0.8999999999999999): tolerate that. Fractions (exact.py) need no tolerance.
    bar = p if cdf.dtype == object else p * (1 - 1e-12)
    n_keep = int(np.searchsorted(cdf, bar, side="left")) + 1
    mask = np.zeros(len(probs), dtype=bool)
    mask[ranked[:n_keep]] = True
    return keep & mask


def min_p_mask(probs: np.ndarray, min_p: float | None) -> np.ndarray:
    """Keep tokens whose probability is at least min_p times the largest one."""
    keep = probs > 0
    if min_p is None:
        return keep
    return keep & (probs >= min_p * probs.max())


def renormalise(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    kept = np.where(mask, probs, 0)  # [n_vocab]; an int 0, as a float 0.0 would turn a sum of fractions into a float
    return kept / kept.sum()


@dataclass(frozen=True)
class Cut:
    """What one truncation rule removed: how many tokens, and their probability at T before any cut."""

    rule: str  # "top-k", "top-p" or "min-p"
    setting: float
    n_cut: int
    mass_cut: float


def ranges(probs: np.ndarray, ranked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends of each token's range on [0, 1), in ranking order.

    >>> lo, hi = ranges(np.array([0.5, 0.3, 0.2]), np.array([0, 1, 2]))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.5, 0.8], [0.5, 0.8, 1.0])

    The last upper end is set to exactly 1 so rounding never leaves a gap below 1.
    """
    # The running sum can round above 1 before the last token (0.56 + 0.34 + 0.1 -> 1.0000000000000002):
    # clip it so that no range starts above 1 or ends before it starts.
    hi = np.minimum(np.cumsum(probs[ranked]), 1.0)  # [n_kept]
    hi[-1] = 1.0
    lo = np.concatenate(([0.0], hi[:-1]))  # [n_kept]
    return lo, hi


def layout(probs: np.ndarray, ranked: np.ndarray, range_order: str = "probability") -> np.ndarray:
    """The kept ids in the order their ranges are laid on [0, 1): by ranking, or by id ("vocabulary").

    >>> probs, ranked = np.array([0.1, 0.2, 0.7]), np.array([2, 1, 0])
    >>> layout(probs, ranked).tolist(), layout(probs, ranked, "vocabulary").tolist()
    ([2, 1, 0], [0, 1, 2])

    The second is the article's "0.0 to 0.1 -> token 0; 0.1 to 0.3 -> token 1; 0.3 to 1.0 -> token 2".
    """
    if range_order == "vocabulary":
        return np.flatnonzero(probs > 0)  # [n_kept] ids, ascending
    return ranked[probs[ranked] > 0]  # [n_kept] ids, in ranking order


def pick(hi: np.ndarray, r: float) -> int:
    """Index of the first range whose upper end is greater than r (r in [0, 1)).

    >>> pick(np.array([0.5, 0.8, 1.0]), 0.6)  # ranges [0, 0.5), [0.5, 0.8), [0.8, 1): 0.6 is in the second
    1
    """
    return min(int(np.searchsorted(hi, r, side="right")), len(hi) - 1)


def random_r(seed: int, step: int) -> float:
    """The random number of generation step i: default_rng([seed, i]).random(), in [0, 1)."""
    return float(np.random.default_rng([seed, step]).random())


def random_rs(seed: int, step: int, n: int) -> np.ndarray:
    """The n random numbers of "sample many" at step i: r_j = default_rng([seed, i, j]).random(), j = 1..n."""
    return np.array([np.random.default_rng([seed, step, j]).random() for j in range(1, n + 1)])  # [n]


def sample_many(hi: np.ndarray, rs: np.ndarray) -> np.ndarray:
    """How many of the rs land in each range: the pick for every r at once. [n_kept], summing to len(rs).

    >>> sample_many(np.array([0.1, 0.3, 1.0]), np.array([0.05, 0.2, 0.9, 0.95])).tolist()
    [1, 1, 2]
    """
    j = np.minimum(np.searchsorted(hi, rs, side="right"), len(hi) - 1)  # [n], as pick() does for one r
    return np.bincount(j, minlength=len(hi))  # [n_kept]
