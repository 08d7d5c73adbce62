"""The last revealed vote, as the teacher's room panel shows it: the class beside the model.

How many guessed the pick and how many the model's top token; a chart with a row per token (the
model's top tokens, the pick, the tokens the class voted most), the class's share of the votes as a
solid bar beside the model's probability as a pale one, on one scale; the votes for tokens beyond the
chart; how surprised by the pick the class and the model were, on this step and on average over the
lesson so far (bits, and the chance each gave the pick, '1 in 35,000' when under 1 %); and the
leaderboard when it is on. The figures come from webapp/room/votes.py; this writes them out and draws
the chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from ...inference import LanguageModel
from ...room.votes import Bar, Place, RoundResult, Running, bits, histogram, other_votes
from ..i18n.filters import fixed, pct, thousands
from ..i18n.labels import token_labels
from ..i18n.translations import gettext as _

ROW_HEIGHT = 24  # the chart's rows, in px: a class bar 10 high above a model bar 8 high
CHART_TOP = 16  # the legend's line above the first row
CHART_BOTTOM = 4  # below the last row
BAR_SPAN = 48  # % of the chart's width the longest bar takes (the labels left of it, the values right)
LEAST_SCALE = 0.01  # a chart of tiny shares is not blown up beyond 1 % a full bar
LABEL_LENGTH = 12  # a bar's label is cut to this many characters (labels.shorten)


@dataclass(frozen=True)
class VoteBar:
    """One token's row of the chart: its two bars' geometry and its figures, written out."""

    token: int
    votes: int
    colour: int  # the same colour for the class's bar and the model's
    picked: bool
    label: Markup  # the token, cut to LABEL_LENGTH characters, escaped
    label_y: int
    class_y: int
    model_y: int
    value_y: int
    model_value_y: int
    class_width: str  # % of the chart's width, '%.3f'
    model_width: str
    share: str  # the class's share of the votes, '40 %'
    prob: str  # the model's probability


@dataclass(frozen=True)
class RoundResults:
    """A revealed round beside the model, and the lesson so far."""

    step: int  # the step voted on, counted from 1
    n_votes: int
    n_picked: int  # votes for the pick
    picked_share: str
    picked_label: Markup
    n_top: int  # votes for the model's top token
    top_share: str
    top_label: Markup
    chart_height: int
    bars: tuple[VoteBar, ...]
    other_votes: int  # votes for tokens beyond the chart
    class_bits_now: str  # how surprised by this step's pick the class was, '15.10'; '' for a round nobody voted in
    model_bits_now: str
    class_chance: str  # the class's probability of the pick in words: '34 %', '1 in 35,000'
    model_chance: str  # the model's, at T = 1
    n_vocab: str  # the tokens the class's chances are spread over, '5,000'
    n_rounds: int  # rounds with votes so far: the average surprise is over these
    class_bits: str  # the class's average surprise, '1.58'; '' before any round with votes
    model_bits: str
    board: tuple[Place, ...]  # the leaderboard, when it is on


def present(result: RoundResult, *, running: Running, board: list[Place] | None, model: LanguageModel) -> RoundResults:
    """The results of a revealed round, with the lesson's running surprise and the leaderboard."""
    labels = token_labels(model)
    bars = histogram(result)
    return RoundResults(
        step=result.step + 1,
        n_votes=result.n_votes,
        n_picked=result.n_picked,
        picked_share=pct(result.share(result.n_picked), 0),
        picked_label=labels[result.picked],
        n_top=result.n_top,
        top_share=pct(result.share(result.n_top), 0),
        top_label=labels[result.top],
        chart_height=len(bars) * ROW_HEIGHT + CHART_TOP + CHART_BOTTOM,
        bars=vote_bars(bars, token_labels(model, LABEL_LENGTH)),
        other_votes=other_votes(result),
        class_bits_now=fixed(bits(result.class_p), 2) if result.n_votes else "",
        model_bits_now=fixed(bits(result.p1_picked), 2) if result.n_votes else "",
        class_chance=chance(result.class_p),
        model_chance=chance(result.p1_picked),
        n_vocab=thousands(result.n_vocab),
        n_rounds=running.n_rounds,
        class_bits=fixed(running.class_bits, 2) if running.n_rounds else "",
        model_bits=fixed(running.model_bits, 2) if running.n_rounds else "",
        board=tuple(board or ()),
    )


def chance(p: float) -> str:
    """A probability as a pupil reads it: a percentage from 1 %, else '1 in N' (N rounded as a person would).

    0.34 -> '34 %'; 1 / 35,000 -> '1 in 35,000'; 0.0034 -> '1 in 290'
    """
    if p >= 0.01 or p <= 0:  # 0: a probability that underflowed
        return pct(p, 0)
    n = 1 / p
    rounded = round(n, 2 - len(str(int(n))))  # two significant figures, as a person says it: 294 -> 290
    return _("1 in %(n)s", n=thousands(int(rounded)))


def chart_scale(bars: Sequence[Bar]) -> float:
    """The value a full-length bar stands for: the largest share or probability, at least LEAST_SCALE.

    Shares 0.6 and 0.4 beside probabilities 0.3 and 0.1 -> 0.6; all below 1 % -> 0.01.
    """
    return max((*(bar.share for bar in bars), *(bar.prob for bar in bars), LEAST_SCALE))


def bar_width(value: float, scale: float) -> str:
    """A bar's length in % of the chart's width, as SVG reads it (never the locale's decimal comma).

    >>> bar_width(0.3, 0.6), bar_width(0.6, 0.6), bar_width(0.001, 0.6)
    ('24.000', '48.000', '0.080')
    """
    return f"{BAR_SPAN * value / scale:.3f}"


def vote_bars(bars: Sequence[Bar], short_labels: Sequence[Markup]) -> tuple[VoteBar, ...]:
    """The chart's rows, top to bottom, each ROW_HEIGHT below the one before."""
    scale = chart_scale(bars)
    return tuple(_vote_bar(bar, i * ROW_HEIGHT + CHART_TOP, scale, short_labels) for i, bar in enumerate(bars))


def _vote_bar(bar: Bar, y: int, scale: float, short_labels: Sequence[Markup]) -> VoteBar:
    return VoteBar(
        token=bar.token,
        votes=bar.votes,
        colour=bar.colour,
        picked=bar.picked,
        label=short_labels[bar.token],
        label_y=y + 15,
        class_y=y + 2,
        model_y=y + 12,
        value_y=y + 10,
        model_value_y=y + 20,
        class_width=bar_width(bar.share, scale),
        model_width=bar_width(bar.prob, scale),
        share=pct(bar.share, 0),
        prob=pct(bar.prob, 0),
    )
