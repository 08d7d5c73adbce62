"""The sampler chain as the sampling panel shows it: a card per stage, and the chains its buttons lead to.

Each card says what its stage did at this step and, if it changed the distribution it saw, draws the
top tokens' probabilities before and after it and a band of the probability it kept. Each button of the
strip (move a stage earlier or later, leave it out, add it back, a preset) is a form submit with
`set_chain` set to the chain it leads to, computed here: the template only shows it.

A stage that passes on the distribution it saw (off, T = 1, a top-k above what is left, top-p 1)
draws no chart (chain.Stage.unchanged): its figures are the next card's, or the table's after the last
stage. Its sentence says what it did.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...inference.chain import PRESETS, STAGES, Stage
from ...inference.derived.table import StepResult
from ...inference.errors import N_
from ..i18n.filters import general, pct
from ..i18n.translations import gettext
from ..i18n.translations import template_gettext as _
from . import chain_sentences
from .screen import Screen

TITLES = {
    "penalties": N_("Penalties"),
    "temperature": N_("Temperature"),
    "top_k": N_("Top-k"),
    "top_p": N_("Top-p"),
    "min_p": N_("Min-p"),
}
N_BARS = 8  # tokens per card's chart
BAR_LABEL_LENGTH = 8  # characters of a token's label in a card's chart
BAR_HEIGHT = 14  # a chart's rows, in its viewBox's units (200 wide)
ARROWS = {"earlier": "←", "later": "→", "out": "✕"}


@dataclass(frozen=True)
class Button:
    """A card's button: what it does to the stage, and the chain it leads to."""

    kind: str  # 'earlier', 'later' or 'out'
    set_chain: str


@dataclass(frozen=True, kw_only=True)
class ChainButton:
    """A button as the strip shows it: the chain it leads to, what it says to a screen reader, its sign."""

    set_chain: str
    label: Markup  # 'Move Top-k earlier'
    sign: str  # '←', '→', '✕', or the stage's title for '+ Top-k'


@dataclass(frozen=True, kw_only=True)
class StageBar:
    """One token in a card's chart: its probability in what the stage saw, and what the stage passed on."""

    label: Markup
    y: int
    width_in: str  # '%.1f' of the chart's 100 units for the largest bar
    width_out: str  # '' when the stage cut it
    cut: bool
    value: str  # its probability in what the stage passed on; 'cut' where this stage cut it


@dataclass(frozen=True, kw_only=True)
class Card:
    """One stage of the chain at this step: its setting, its sentence, its chart if it changed anything."""

    position: int  # 1 = first
    name: str  # the stage: 'top_k'
    title: str  # 'Top-k'
    on: bool
    setting: str  # its setting as the card writes it ('5'), 'off' when off; not for the penalties
    penalties: bool  # the penalties, on: their three settings instead
    theta: str | None = None
    alpha_p: str | None = None
    alpha_f: str | None = None
    sentence: Markup  # what it did: 'Top-k 5 kept 5 tokens, 62.0 % of the mass; cut 4,995.'
    spaced: bool  # a space before the sentence: every stage's but the temperature's, on (invisible; as it always was)
    charted: bool  # it changed what it saw: a chart and a legend (see module docstring)
    chart_label: Markup | None = None
    chart_height: int = 0  # the viewBox's
    bars: tuple[StageBar, ...] = ()
    band_y: int = 0
    kept_width: str = ""  # the band's kept part, of 200
    cut_width: str = ""
    kept: str = ""  # the share of the probability kept: '62.0 %'
    cut: str | None = None  # and cut; None when it cut nothing
    buttons: tuple[ChainButton, ...]


@dataclass(frozen=True, kw_only=True)
class ChainView:
    """The chain: its presets, a card per stage in the chain's order, and the stages left out of it."""

    n_stages: int
    presets: tuple[tuple[str, str, bool], ...]  # (name, set_chain, whether it is the chain now)
    temperature_left_out: bool  # the probabilities stay at T = 1 whatever the slider says
    cards: tuple[Card, ...]
    left_out: tuple[ChainButton, ...]  # adding one puts it last


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


def present(screen: Screen) -> ChainView:
    """The chain of the screen's step: a card per stage, its chart over the step's top tokens (by rank)."""
    step = screen.result
    chain = step.settings.chain
    labels = screen.short_labels(BAR_LABEL_LENGTH)
    ids = [row.id for row in step.rows[:N_BARS]]
    # Translated once, not per card; each card puts its title in.
    words = {
        "off": _("off"),
        # Translators: a bar's figure in a stage's chart: the stage cut (removed) this token.
        "cut": _("cut"),
        "earlier": _("Move %(stage)s earlier", stage="%(stage)s"),
        "later": _("Move %(stage)s later", stage="%(stage)s"),
        "out": _("Leave %(stage)s out", stage="%(stage)s"),
    }
    cards = tuple(_card(step, i, stage, ids, labels, words) for i, stage in enumerate(step.stages))
    return ChainView(
        n_stages=len(step.stages),
        presets=tuple((name, chain_value(preset), preset == chain) for name, preset in PRESETS.items()),
        temperature_left_out="temperature" not in chain,
        cards=cards,
        left_out=tuple(_add_button(chain, name) for name in STAGES if name not in chain),
    )


def _card(step: StepResult, i: int, stage: Stage, ids: list[int], labels, words: dict) -> Card:
    title = gettext(TITLES[stage.name])
    penalties = stage.on and stage.name == "penalties"
    theta, alpha_p, alpha_f = (_general(x) for x in stage.setting) if penalties else (None, None, None)
    charted = not stage.unchanged  # a comparison over the vocabulary: asked once
    chart = _chart(stage, title, ids, labels, words["cut"]) if charted else {}
    return Card(
        position=i + 1,
        name=stage.name,
        title=title,
        on=stage.on,
        setting=words["off"] if not stage.on else "" if penalties else general(stage.setting),
        penalties=penalties,
        theta=theta,
        alpha_p=alpha_p,
        alpha_f=alpha_f,
        sentence=chain_sentences.sentence(step, stage, title),
        spaced=not (stage.on and stage.name == "temperature"),
        charted=charted,
        **chart,
        buttons=tuple(
            ChainButton(set_chain=b.set_chain, label=words[b.kind] % {"stage": title}, sign=ARROWS[b.kind])
            for b in buttons(step.settings.chain, i)
        ),
    )


def _general(x: float | None) -> str | None:
    return None if x is None else general(x)


def _chart(stage: Stage, title: str, ids: list[int], labels, cut_word: Markup) -> dict:
    """A changed stage's chart: a bar per top token, before and after it, scaled to the largest; its band.

    Each bar's figure is its probability after the stage, as the dark bar and the card's sentence give it.
    """
    probs = [(float(stage.probs_in[j]), float(stage.probs_out[j])) for j in ids]
    top = max([p for pair in probs for p in pair] + [1e-9])
    y = len(ids) * BAR_HEIGHT + 4
    return {
        "chart_label": _("%(stage)s: the top tokens before and after it, kept or cut", stage=title),
        "chart_height": len(ids) * BAR_HEIGHT + 22,
        "bars": tuple(
            StageBar(
                label=labels[j],
                y=k * BAR_HEIGHT,
                width_in=f"{100 * p_in / top:.1f}",
                width_out=f"{100 * p_out / top:.1f}" if p_out > 0 else "",
                cut=not p_out > 0,
                value=cut_word if p_in > 0 and not p_out > 0 else pct(p_out),
            )
            for k, (j, (p_in, p_out)) in enumerate(zip(ids, probs, strict=True))
        ),
        "band_y": y,
        "kept_width": f"{200 * stage.mass_kept:.1f}",
        "cut_width": f"{200 * (1 - stage.mass_kept):.1f}",
        "kept": pct(stage.mass_kept),
        "cut": pct(1 - stage.mass_kept) if stage.n_cut else None,
    }


def _add_button(chain: tuple[str, ...], name: str) -> ChainButton:
    """The button that adds a stage left out, at the end of the chain: '+ Top-k'."""
    title = gettext(TITLES[name])
    label = _("Add %(stage)s at the end", stage=title)
    return ChainButton(set_chain=chain_value((*chain, name)), label=label, sign=title)


@dataclass(frozen=True, kw_only=True)
class ChainFields:
    """The chain's own fields in the controls form: the penalties (None: off) and the ranges' order."""

    repetition_penalty: float | None
    presence_penalty: float | None
    frequency_penalty: float | None
    by_vocabulary: bool  # the ranges laid in vocabulary order, not largest first


def fields(screen: Screen) -> ChainFields:
    """The values the chain's fields of the controls form hold: the screen's settings."""
    settings = screen.state.settings
    return ChainFields(
        repetition_penalty=settings.repetition_penalty,
        presence_penalty=settings.presence_penalty,
        frequency_penalty=settings.frequency_penalty,
        by_vocabulary=settings.range_order == "vocabulary",
    )
