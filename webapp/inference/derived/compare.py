"""The same logits at several temperatures, side by side."""

from __future__ import annotations

from dataclasses import dataclass

from ..sampling import probabilities
from .table import StepResult

TEMPERATURES = (0.5, 1.0, 1.5)


@dataclass(frozen=True)
class Comparison:
    """probs[j][k] is the probability of token j at temperatures[k] (before truncation)."""

    temperatures: tuple[float, ...]
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    probs: tuple[tuple[float, ...], ...]


def at_temperatures(result: StepResult, temperatures=TEMPERATURES, n: int = 5) -> Comparison:
    """The step's top n tokens (in the step's own ranking) at each temperature, plus the step's own T.

    At T = 0.5 a token with p = 0.4 at T = 1 gets 0.4^2 / sum(p^2): sharper; at T = 1.5, flatter.
    """
    temps = tuple(sorted({*temperatures, result.settings.temperature}))
    table = [probabilities(result.logits, t) for t in temps]  # one [n_vocab] array per temperature
    rows = result.rows[:n]
    return Comparison(temps, tuple(r.token for r in rows), tuple(r.id for r in rows),
                      tuple(tuple(float(p[r.id]) for p in table) for r in rows))
