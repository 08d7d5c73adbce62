"""The sampler chain as the sampling panel shows it: a card per stage, and the chains its buttons lead to.

Each button of the strip (move a stage earlier or later, leave it out, add it back, a preset) is a
form submit with `set_chain` set to the chain it leads to, computed here: the template only shows it.

A stage that passes on the distribution it saw (off, T = 1, a top-k above what is left, top-p 1)
draws no chart (chain.Stage.unchanged): its figures are the next card's, or the table's after the last stage. Its
sentence says what it did.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...inference.chain import PRESETS, STAGES, Stage
from ...inference.derived.table import StepResult
from ...inference.errors import N_
from ..i18n.translations import gettext

TITLES = {
    "penalties": N_("Penalties"),
    "temperature": N_("Temperature"),
    "top_k": N_("Top-k"),
    "top_p": N_("Top-p"),
    "min_p": N_("Min-p"),
}
N_BARS = 8  # tokens per card's chart


@dataclass(frozen=True)
class Bar:
    """One token in a card's chart: its probability in what the stage saw, and whether the stage kept it."""

    id: int
    prob_in: float
    prob_out: float
    kept: bool


@dataclass(frozen=True)
class Button:
    """A card's button: what it does to the stage, and the chain it leads to."""

    kind: str  # 'earlier', 'later' or 'out'
    set_chain: str


@dataclass(frozen=True)
class Card:
    """One stage of the chain at this step, with the chains its buttons lead to."""

    position: int  # 1 = first
    stage: Stage
    title: str
    unchanged: bool  # it passed on what it saw: no chart
    bars: tuple[Bar, ...]  # the chart's; none when unchanged
    top: float  # the largest bar, for the chart's scale
    buttons: tuple[Button, ...]  # move earlier (not the first), later (not the last), leave out


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


def buttons(chain: tuple[str, ...], i: int) -> tuple[Button, ...]:
    """The buttons of stage i's card: ('a', 'b'), 0 -> later to 'b,a', out to 'b' (no earlier for the first)."""
    moves = {
        "earlier": moved(chain, i, -1),
        "later": moved(chain, i, +1),
        "out": chain_value(chain[:i] + chain[i + 1 :]),
    }
    return tuple(Button(kind, value) for kind, value in moves.items() if value is not None)


def bars(stage: Stage, ids: list[int]) -> tuple[Bar, ...]:
    """The chart's bars: each token's probability in what the stage saw and in what it passed on."""
    return tuple(Bar(j, float(stage.probs_in[j]), float(stage.probs_out[j]), bool(stage.probs_out[j] > 0)) for j in ids)


def cards(result: StepResult) -> tuple[Card, ...]:
    """A card per stage, its chart over the step's top tokens (by the step's ranking) if it changed them."""
    chain = result.settings.chain
    ids = [row.id for row in result.rows[:N_BARS]]
    out = []
    for i, stage in enumerate(result.stages):
        same = stage.unchanged
        shown = () if same else bars(stage, ids)
        top = max([b.prob_in for b in shown] + [b.prob_out for b in shown] + [1e-9])
        out.append(
            Card(
                position=i + 1,
                stage=stage,
                title=gettext(TITLES[stage.name]),
                unchanged=same,
                bars=shown,
                top=top,
                buttons=buttons(chain, i),
            )
        )
    return tuple(out)


def left_out(result: StepResult) -> tuple[tuple[str, str, str], ...]:
    """(stage, title, set_chain) for each stage the chain leaves out: adding it puts it last."""
    chain = result.settings.chain
    return tuple((name, gettext(TITLES[name]), chain_value((*chain, name))) for name in STAGES if name not in chain)


def presets(result: StepResult) -> tuple[tuple[str, str, bool], ...]:
    """(name, set_chain, whether it is the chain now) for each preset."""
    return tuple((name, chain_value(chain), chain == result.settings.chain) for name, chain in PRESETS.items())
