"""Typed probabilities, exactly: the article's 0.1, 0.2 and 0.7 as the fractions 1/10, 1/5 and 7/10.

A float is a binary fraction: the 0.1 a teacher types is 0.1000000000000000055..., and 0.1 + 0.2 is
0.30000000000000004. Laid end to end in floats, the article's ranges [0, 0.1), [0.1, 0.3) and [0.3, 1.0)
end a hair late, and r = 0.1 and r = 0.3, which the article reads in the second and third ranges, fall
in the first and second. So where a model's probabilities are typed (the article model, its scores typed
as probabilities), the sampler chain, the ranges and the pick work on fractions.Fraction: NumPy object
arrays, run through the very functions of sampling.py and chain.py, with every sum and comparison exact.

- The model's distribution at T = 1 is the typed decimals divided by their sum (`fractions`).
- Top-k, top-p and min-p keep what the fractions say (top-p 0.9 keeps 0.7 + 0.2, exactly 0.9;
  min-p 0.5 keeps 0.4 beside 0.8) and renormalise what they keep, which fractions do exactly; their
  settings count as the decimals typed (`decimal`).
- The ranges' ends are the running sums of the fractions, and the pick compares r with them exactly:
  an r the teacher typed as the decimal typed (r = 0.3 is 3/10, the start of [0.3, 1.0)), a seeded r
  as the binary number it is (a Fraction compares with a float exactly).

Where it stops: a temperature other than 1 raises p to the power 1/T, mostly irrational, and a penalty
that moves a logit leaves log p behind; from that stage on the chain works in floats, as for every
other model. (At T = 0 all the mass goes to one token: exact in floats too.) The figures shown are
the floats nearest the fractions, so the article's ranges read 0.1, 0.3 and 1.0 to the last digit.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np


def decimal(x: float) -> Fraction:
    """The decimal a typed number stands for, exactly: the shortest one that reads back as the float.

    >>> decimal(0.1), decimal(0.1) == 0.1  # the float 0.1 is a little more than 1/10
    (Fraction(1, 10), False)
    """
    return Fraction(repr(float(x)))


def fractions(typed: Sequence[float]) -> np.ndarray:
    """Typed probabilities divided by their sum, as fractions: an object array [n_vocab] that sums to exactly 1.

    >>> [str(p) for p in fractions([0.1, 0.2, 0.7])], [str(p) for p in fractions([1, 3])]
    (['1/10', '1/5', '7/10'], ['1/4', '3/4'])

    A share too small for any float (5e-324 beside 1e300) is 0, as the figures shown say: a token has a
    range exactly when its probability reads above 0.
    """
    x = [decimal(p) for p in typed]
    x = [p if float(p / sum(x)) > 0 else Fraction(0) for p in x]
    total = sum(x)
    return np.array([p / total for p in x], dtype=object)


def is_exact(probs: np.ndarray) -> bool:
    """Whether an array holds fractions (this module's exact path) rather than floats."""
    return probs.dtype == object


def compared_r(r: float, r_source: str, hi: np.ndarray) -> float | Fraction:
    """r as the pick compares it with the ranges' ends hi: where they are fractions, a typed r is the decimal
    typed; a seeded r, and any r against floats, is the float itself.

    >>> hi = np.array([Fraction(1, 10), Fraction(3, 10), Fraction(1)], dtype=object)
    >>> compared_r(0.3, "given", hi), compared_r(0.3, "seed", hi), compared_r(0.3, "given", np.array([0.3, 1.0]))
    (Fraction(3, 10), 0.3, 0.3)
    """
    return decimal(r) if r_source == "given" and is_exact(hi) else r
