"""The logits table a screen shows of a step: a row per token, the rest of the vocabulary summed up.

step.py computes a step's numbers; this module lays them out as the table: the top n_rows tokens
by rank, each with its logit, its probability before and after truncation and its range on [0, 1),
then one line for every token not shown, summed so that no mass is hidden. Any token's row can be
read off later (the pick's, or one the teacher chooses). tabulate(model, step) builds it from a
step; run_step_table and generate_table run the step and build it at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from .. import chain, exact, sampling
from ..model import LanguageModel
from ..settings import Settings
from ..step import Step, generate, run_step
from ..tokenizer import Token

N_ROWS = 20  # rows of the logits table


@dataclass(frozen=True)
class Row:
    """One token of the logits table, in ranking order."""

    rank: int  # 1 = most probable
    id: int
    token: str
    logit: float
    scaled: float | None  # logit / T; None at T = 0
    prob: float  # softmax(logits / T), before truncation
    prob_t1: float  # softmax(logits) at T = 1, for comparison
    kept: bool  # survived top-k, top-p and min-p
    prob_kept: float  # renormalised over the kept tokens; 0 if cut
    lo: float | None  # its range on [0, 1); None if cut
    hi: float | None

    @property
    def cut(self) -> bool:
        """Cut by top-k, top-p or min-p: it had probability at T, but no range."""
        return not self.kept and self.prob > 0

    @property
    def zero(self) -> bool:
        """Probability 0 at T (every token but the top one at T = 0): nothing to cut, and no range."""
        return not self.kept and self.prob == 0


@dataclass(frozen=True)
class Rest:
    """The tokens the table does not show, summed so that no mass is hidden.

    Each of them is kept, cut by a rule, or at probability 0: kept_count + cut_count + zero_count
    = count. Their ranges are one grey range at the end, or several pieces when a row shown below
    the table (a pick beyond the top rows) sits among them: `ranges` lists the pieces, and lo and hi
    are where the first starts and the last ends.
    """

    count: int
    prob: float  # before truncation
    kept_count: int
    prob_kept: float  # their share of the ranges
    lo: float | None
    hi: float | None
    cut_count: int = 0
    zero_count: int = 0
    ranges: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class StepResult:
    """Everything about generation step `step` as the screen shows it: the step's numbers and its table."""

    model: str
    settings: Settings
    prompt: str
    prompt_tokens: tuple[Token, ...]
    generated: tuple[int, ...]  # ids generated before this step
    step: int  # generation index: len(generated)
    context_ids: tuple[int, ...]  # what the forward pass was given: the start token of an empty prompt, then the text
    window_start: int  # first position of the text (prompt and generated) the model read (sliding window)
    logits: np.ndarray = field(repr=False)  # [n_vocab]
    scaled: np.ndarray | None = field(repr=False)  # [n_vocab], None at T = 0
    probs: np.ndarray = field(repr=False)  # [n_vocab], before truncation
    probs_kept: np.ndarray = field(repr=False)  # [n_vocab], after truncation
    rows: tuple[Row, ...]
    rest: Rest
    n_kept: int
    kept_mass: float  # probability (before truncation) of the kept tokens
    cuts: tuple[sampling.Cut, ...]  # what top-k, top-p and min-p cut, in that order (those that are on)
    r: float
    r_source: str  # "seed": default_rng([seed, step]); "given": supplied by the caller
    chosen: Row
    table: _Table = field(repr=False, compare=False)
    stages: tuple[chain.Stage, ...] = field(default=(), repr=False, compare=False)  # the chain, stage by stage
    laid: np.ndarray = field(default=None, repr=False, compare=False)  # [n_kept] ids in the ranges' order
    pick_probs: np.ndarray = field(default=None, repr=False, compare=False)  # [n_vocab] r is read against (Step's)
    n_top: int = 0  # rows[:n_top] are the top rows by rank; any after them were added by showing()

    def row_of(self, token_id: int) -> Row:
        """The table row of any token at this step, e.g. one the teacher chooses instead."""
        self.table.model.tokenizer.check_ids([token_id])
        return self.table.row(int(token_id))

    def showing(self, token_ids: Sequence[int]) -> StepResult:
        """This step with rows for these tokens too (those not among the top rows), and the rest without them.

        A pick at rank 27 gets its own row under the top 20; the rest then counts 5,000 - 21 tokens,
        and its range is the pieces on either side of the pick's: [0.601, 0.634) and [0.638, 1.000).
        """
        shown = {row.id for row in self.rows}
        extra = sorted({int(i) for i in token_ids} - shown, key=lambda i: self.table.ranks[i])
        if not extra:
            return self
        rows = (*self.rows, *(self.row_of(i) for i in extra))
        return replace(self, rows=rows, rest=self.table.rest([row.id for row in rows]))

    @property
    def below(self) -> tuple[Row, ...]:
        """The rows shown under the top ones (see showing)."""
        return self.rows[self.n_top :]

    @property
    def penalised(self) -> np.ndarray:
        """The logits after the chain's penalties ([n_vocab]): the model's own when no penalty is on."""
        return self.stages[-1].logits_out if self.stages else self.logits

    @property
    def penalties_moved(self) -> bool:
        """Whether the penalties changed any logit: then the table's z / T column is z' / T, z' = z after them."""
        return not np.array_equal(self.penalised, self.logits)

    def ends(self, laid: np.ndarray) -> tuple[np.ndarray, float | Fraction]:
        """The upper ends of the kept tokens' ranges laid in this order, and r as the pick compares it with them:
        fractions and a typed r's decimal for typed probabilities (exact.py), else floats and r itself."""
        _, hi = sampling.ranges(self.pick_probs, laid)  # [n_kept]
        return hi, exact.compared_r(self.r, self.r_source, hi)

    @property
    def n_read(self) -> int:
        """How many ids the forward pass read: the last n_ctx of context_ids (an empty prompt's start token too)."""
        return len(self.table.model.window(self.context_ids))


def tabulate(model: LanguageModel, step: Step, n_rows: int = N_ROWS) -> StepResult:
    """The step as the screen shows it: its top n_rows tokens by rank, the rest summed up, the pick's row."""
    table = _table_of(model, step)
    kept_ranked = step.ranked[step.probs_kept[step.ranked] > 0]  # [n_kept] ids, still in ranking order
    rows = tuple(table.row(int(i)) for i in step.ranked[:n_rows])
    return StepResult(
        model=model.name, settings=step.settings, prompt=step.prompt, prompt_tokens=step.prompt_tokens,
        generated=step.generated, step=len(step.generated), context_ids=step.context_ids,
        window_start=step.window_start, logits=step.logits,
        scaled=table.scaled, probs=step.probs, probs_kept=step.probs_kept, rows=rows,
        rest=table.rest(step.ranked[:n_rows]), n_kept=len(kept_ranked), kept_mass=float(step.probs[kept_ranked].sum()),
        cuts=tuple(chain.cuts(step.stages, step.probs)), r=step.r, r_source=step.r_source,
        chosen=table.row(step.chosen_id), table=table, n_top=len(rows), stages=step.stages, laid=step.laid,
        pick_probs=step.pick_probs,
    )


def run_step_table(model: LanguageModel, prompt: str, generated: Sequence[int] = (), settings: Settings = Settings(),
                   r: float | None = None, n_rows: int = N_ROWS) -> StepResult:
    """Run generation step len(generated) (step.run_step) and tabulate it."""
    return tabulate(model, run_step(model, prompt, generated, settings, r=r), n_rows)


def generate_table(model: LanguageModel, prompt: str, n_steps: int, settings: Settings = Settings(),
                   generated: Sequence[int] = (), n_rows: int = N_ROWS) -> list[StepResult]:
    """Run n_steps steps (step.generate) and tabulate each."""
    return [tabulate(model, step, n_rows) for step in generate(model, prompt, n_steps, settings, generated)]


def ranks_of(ranked: np.ndarray) -> np.ndarray:
    """Each id's rank, 1 = most probable, from the ids in ranking order: the ranking inverted.

    >>> ranks_of(np.array([2, 0, 1])).tolist()  # id 2 first, then 0, then 1
    [2, 3, 1]
    """
    ranks = np.empty(len(ranked), dtype=np.int64)  # [n_vocab]
    ranks[ranked] = np.arange(1, len(ranked) + 1)
    return ranks


def _table_of(model: LanguageModel, step: Step) -> _Table:
    """Every token's figures at this step: the columns of the table, by id."""
    t = step.settings.applied_temperature
    range_lo = np.full(len(step.ranked), np.nan)  # [n_vocab]: each kept id's range, NaN if cut
    range_hi = np.full(len(step.ranked), np.nan)
    range_lo[step.laid], range_hi[step.laid] = step.lo, step.hi
    return _Table(
        model=model, logits=step.logits, scaled=sampling.scale(step.penalised, t), probs=step.probs,
        probs_t1=step.probs if t == 1 else sampling.softmax(step.penalised), probs_kept=step.probs_kept,
        ranks=ranks_of(step.ranked), lo=range_lo, hi=range_hi, ranked=step.ranked,
        by_probability=step.settings.range_order == "probability",
    )


@dataclass(frozen=True, eq=False)
class _Table:
    """Every token's figures for one step, so that any token's row can be read off."""

    model: LanguageModel
    logits: np.ndarray  # [n_vocab]
    scaled: np.ndarray | None  # [n_vocab], None at T = 0
    probs: np.ndarray  # [n_vocab]
    probs_t1: np.ndarray  # [n_vocab]
    probs_kept: np.ndarray  # [n_vocab]
    ranks: np.ndarray  # [n_vocab]
    lo: np.ndarray  # [n_vocab], NaN if cut
    hi: np.ndarray  # [n_vocab], NaN if cut
    ranked: np.ndarray  # [n_vocab] ids, most probable first (the ranks, inverted)
    by_probability: bool = True  # the ranges laid largest first; in vocabulary order the rest's are scattered

    def row(self, i: int) -> Row:
        kept = bool(self.probs_kept[i] > 0)
        return Row(
            rank=int(self.ranks[i]), id=i, token=self.model.tokenizer.token_text(i), logit=float(self.logits[i]),
            scaled=None if self.scaled is None else float(self.scaled[i]), prob=float(self.probs[i]),
            prob_t1=float(self.probs_t1[i]), kept=kept, prob_kept=float(self.probs_kept[i]),
            lo=float(self.lo[i]) if kept else None, hi=float(self.hi[i]) if kept else None,
        )

    def rest(self, shown_ids) -> Rest:
        """Sum up every token but the shown ones: how many, their probability, and their ranges."""
        others = np.ones(len(self.probs), dtype=bool)  # [n_vocab]
        others[np.asarray(shown_ids, dtype=np.int64)] = False
        kept = others & (self.probs_kept > 0)  # [n_vocab]
        zero = others & ~kept & (self.probs == 0)
        pieces = _pieces(self.lo, self.hi, self.ranked[kept[self.ranked]]) if self.by_probability else ()
        ranked_others = self.ranked[others[self.ranked]]  # summed in rank order, so the sums round as they always did
        return Rest(count=int(others.sum()), prob=float(self.probs[ranked_others].sum()), kept_count=int(kept.sum()),
                    prob_kept=float(self.probs_kept[ranked_others].sum()),
                    cut_count=int((others & ~kept & ~zero).sum()), zero_count=int(zero.sum()),
                    lo=pieces[0][0] if pieces else None, hi=pieces[-1][1] if pieces else None, ranges=pieces)


def _pieces(lo: np.ndarray, hi: np.ndarray, ids: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The ranges of these tokens (in rank order, so in range order), joined where one ends as the next begins.

    >>> lo, hi = np.array([0.60, 0.62, 0.64]), np.array([0.62, 0.63, 1.0])  # ids 0, 1 and 2
    >>> _pieces(lo, hi, np.array([0, 1, 2]))  # 0 and 1 touch; a shown row's range sits before 2's
    ((0.6, 0.63), (0.64, 1.0))
    """
    starts, ends = lo[ids], hi[ids]  # [n] each
    breaks = np.flatnonzero(starts[1:] != ends[:-1]) + 1  # where a shown row's range sits in between
    firsts, lasts = np.concatenate(([0], breaks)), np.concatenate((breaks, [len(ids)])) - 1
    return tuple((float(starts[a]), float(ends[b])) for a, b in zip(firsts, lasts, strict=True)) if len(ids) else ()
