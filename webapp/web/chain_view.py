"""The sampler chain as the sampling panel shows it: a card per stage, and the chains its buttons lead to.

Each button of the strip (move a stage earlier or later, leave it out, add it back, a preset) is a
form submit with `set_chain` set to the chain it leads to, computed here: the template only shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inference.chain import PRESETS, STAGES, Stage
from ..inference.errors import N_
from ..inference.step import StepResult
from .translations import gettext

TITLES = {"penalties": N_("Penalties"), "temperature": N_("Temperature"), "top_k": N_("Top-k"), "top_p": N_("Top-p"),
          "min_p": N_("Min-p")}
N_BARS = 8  # tokens per card's chart


@dataclass(frozen=True)
class Bar:
    """One token in a card's chart: its probability in what the stage saw, and whether the stage kept it."""

    id: int
    prob_in: float
    prob_out: float
    kept: bool


@dataclass(frozen=True)
class Card:
    """One stage of the chain at this step, with the chains its buttons lead to."""

    position: int  # 1 = first
    stage: Stage
    title: str
    bars: tuple[Bar, ...]
    top: float  # the largest bar, for the chart's scale
    earlier: str | None  # set_chain for "move earlier"; None for the first card
    later: str | None
    without: str


def chain_value(chain: tuple[str, ...]) -> str:
    """The set_chain value of a chain: 'top_k,temperature'; 'none' for the empty chain."""
    return ",".join(chain) or "none"


def moved(chain: tuple[str, ...], i: int, delta: int) -> str | None:
    """The chain with stage i swapped with its neighbour: ('a', 'b', 'c'), 1, -1 -> 'b,a,c'; None past an end."""
    j = i + delta
    if not 0 <= j < len(chain):
        return None
    out = list(chain)
    out[i], out[j] = out[j], out[i]
    return chain_value(tuple(out))


def cards(result: StepResult) -> tuple[Card, ...]:
    """A card per stage, its chart over the step's top tokens (by the step's ranking)."""
    chain = result.settings.chain
    ids = [row.id for row in result.rows[:N_BARS]]
    out = []
    for i, stage in enumerate(result.stages):
        bars = tuple(Bar(j, float(stage.probs_in[j]), float(stage.probs_out[j]), bool(stage.probs_out[j] > 0))
                     for j in ids)
        top = max([b.prob_in for b in bars] + [b.prob_out for b in bars] + [1e-9])
        out.append(Card(position=i + 1, stage=stage, title=gettext(TITLES[stage.name]), bars=bars, top=top,
                        earlier=moved(chain, i, -1), later=moved(chain, i, +1),
                        without=chain_value(chain[:i] + chain[i + 1 :])))
    return tuple(out)


def left_out(result: StepResult) -> tuple[tuple[str, str, str], ...]:
    """(stage, title, set_chain) for each stage the chain leaves out: adding it puts it last."""
    chain = result.settings.chain
    return tuple((name, gettext(TITLES[name]), chain_value((*chain, name))) for name in STAGES if name not in chain)


def presets(result: StepResult) -> tuple[tuple[str, str, bool], ...]:
    """(name, set_chain, whether it is the chain now) for each preset."""
    return tuple((name, chain_value(chain), chain == result.settings.chain) for name, chain in PRESETS.items())
