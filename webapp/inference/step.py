"""One step of the loop as a pure function, and the loop built from it.

A step reads (model, prompt, ids generated so far, settings) and returns every
number the page shows: the prompt's tokens, the logits, the probabilities at
temperature T before and after truncation, the ranges on [0, 1), r, and the pick.
Nothing is mutated and nothing is remembered: the same inputs give the same step.

The random number of generation step i is `numpy.random.default_rng([seed, i]).random()`,
so stepping back and forth, or following a link, gives the same tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from . import chain, sampling
from .errors import N_, InvalidSetting, InvalidTokenIds, PromptTooLong
from .model import LanguageModel
from .settings import Settings
from .tokenizer import Token

MAX_PROMPT_CHARS = 2000
MAX_TOKENS = 1024  # prompt + generated: a bound on the work one request can ask for
N_ROWS = 20  # rows of the logits table

# How a generated token came about, as the URL, the page and the exports record it; a float in
# their place is an r the teacher typed in.
SEEDED = "s"  # picked by the seeded r: default_rng([seed, i]).random()
FORCED = "f"  # chosen by hand from the table


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
    """Everything about generation step `step`: the distribution, r, and the pick."""

    model: str
    settings: Settings
    prompt: str
    prompt_tokens: tuple[Token, ...]
    generated: tuple[int, ...]  # ids generated before this step
    step: int  # generation index: len(generated)
    window_start: int  # first position the model read (sliding window)
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

    @property
    def context_ids(self) -> tuple[int, ...]:
        return (*(t.id for t in self.prompt_tokens), *self.generated)


def encode_prompt(model: LanguageModel, prompt: str) -> tuple[Token, ...]:
    if len(prompt) > MAX_PROMPT_CHARS:
        raise PromptTooLong(N_("the prompt has %(n)s characters; the limit is %(limit)s"), n=len(prompt),
                            limit=MAX_PROMPT_CHARS)
    tokens = tuple(model.tokenizer.encode(prompt))
    if len(tokens) >= MAX_TOKENS:  # 2,000 characters of punctuation are 2,000 tokens
        raise PromptTooLong(N_("the prompt has %(n)s tokens; the limit is %(limit)s"), n=len(tokens),
                            limit=MAX_TOKENS - 1)
    return tokens


def check_generated(model: LanguageModel, n_prompt: int, generated: Sequence[int]) -> tuple[int, ...]:
    ids = tuple(int(i) for i in generated)
    model.tokenizer.check_ids(ids)
    if n_prompt + len(ids) >= MAX_TOKENS:
        n = n_prompt + len(ids)
        raise InvalidTokenIds(N_("prompt and generated tokens come to %(n)s; the limit is %(limit)s"), n=n,
                              limit=MAX_TOKENS - 1)
    return ids


def check_r(r: float) -> float:
    r = float(r)
    if not (math.isfinite(r) and 0 <= r < 1):
        raise InvalidSetting(N_("r must be a number in [0, 1), not %(value)s"), value=repr(r))
    return r


def run_step(model: LanguageModel, prompt: str, generated: Sequence[int] = (), settings: Settings = Settings(),
             r: float | None = None, n_rows: int = N_ROWS) -> StepResult:
    """Compute generation step len(generated): logits, probabilities, ranges, r and the pick."""
    prompt_tokens = encode_prompt(model, prompt)
    generated = check_generated(model, len(prompt_tokens), generated)
    ids = [t.id for t in prompt_tokens] + list(generated)
    logits = np.asarray(model.logits(ids), dtype=np.float64)  # [n_vocab]
    step = len(generated)
    r_source = "seed" if r is None else "given"
    r = sampling.random_r(settings.seed, step) if r is None else check_r(r)
    return _result(model, prompt, prompt_tokens, generated, settings, logits, r, r_source, n_rows,
                   window_start=max(0, len(ids) - model.n_ctx))


def _result(model, prompt, prompt_tokens, generated, s: Settings, logits, r, r_source, n_rows, window_start):
    window = [*(t.id for t in prompt_tokens), *generated][window_start:]  # the ids the model read
    probs_kept, stages = chain.apply_chain(logits, s, window, generated)  # [n_vocab]
    z = stages[-1].logits_out if stages else logits  # [n_vocab], after any penalties
    t = s.applied_temperature
    scaled = sampling.scale(z, t)  # [n_vocab] or None
    probs = sampling.probabilities(z, t)  # [n_vocab], before any cut
    probs_t1 = probs if t == 1 else sampling.softmax(z)  # [n_vocab]
    ranked = sampling.order(probs, z)  # [n_vocab] ids
    cuts = chain.cuts(stages, probs)
    kept_ranked = ranked[probs_kept[ranked] > 0]  # [n_kept] ids, still in ranking order
    laid = sampling.layout(probs_kept, ranked, s.range_order)  # [n_kept] ids in the ranges' order
    lo, hi = sampling.ranges(probs_kept, laid)  # [n_kept] each
    chosen_id = int(laid[sampling.pick(hi, r)])
    ranks = np.empty(len(ranked), dtype=np.int64)  # [n_vocab]: rank of each id, 1 = most probable
    ranks[ranked] = np.arange(1, len(ranked) + 1)
    range_lo = np.full(len(ranked), np.nan)  # [n_vocab]: each kept id's range, NaN if cut
    range_hi = np.full(len(ranked), np.nan)
    range_lo[laid], range_hi[laid] = lo, hi
    table = _Table(model, logits, scaled, probs, probs_t1, probs_kept, ranks, range_lo, range_hi,
                   by_probability=s.range_order == "probability", ranked=ranked)

    rows = tuple(table.row(int(i)) for i in ranked[:n_rows])
    return StepResult(
        model=model.name, settings=s, prompt=prompt, prompt_tokens=prompt_tokens, generated=generated,
        step=len(generated), window_start=window_start, logits=logits, scaled=scaled, probs=probs,
        probs_kept=probs_kept, rows=rows, rest=table.rest(ranked[:n_rows]), n_kept=len(kept_ranked),
        kept_mass=float(probs[kept_ranked].sum()), cuts=tuple(cuts), r=r, r_source=r_source,
        chosen=table.row(chosen_id), table=table, n_top=len(rows), stages=tuple(stages), laid=laid,
    )


@dataclass(frozen=True, eq=False)
class _Table:
    """Every token's figures for one step, so that any token's row can be read off."""

    model: LanguageModel
    logits: np.ndarray  # [n_vocab]
    scaled: np.ndarray | None  # [n_vocab]
    probs: np.ndarray  # [n_vocab]
    probs_t1: np.ndarray  # [n_vocab]
    probs_kept: np.ndarray  # [n_vocab]
    ranks: np.ndarray  # [n_vocab]
    lo: np.ndarray  # [n_vocab], NaN if cut
    hi: np.ndarray  # [n_vocab], NaN if cut
    by_probability: bool = True  # the ranges laid largest first; in vocabulary order the rest's are scattered
    ranked: np.ndarray | None = None  # [n_vocab] ids, most probable first (the ranks, inverted)

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
        ranked = np.argsort(self.ranks) if self.ranked is None else self.ranked  # [n_vocab]
        pieces = _pieces(self.lo, self.hi, ranked[kept[ranked]]) if self.by_probability else ()
        ranked_others = ranked[others[ranked]]  # summed in rank order, so that the sums round as they always did
        return Rest(count=int(others.sum()), prob=float(self.probs[ranked_others].sum()), kept_count=int(kept.sum()),
                    prob_kept=float(self.probs_kept[ranked_others].sum()),
                    cut_count=int((others & ~kept & ~zero).sum()), zero_count=int(zero.sum()),
                    lo=pieces[0][0] if pieces else None, hi=pieces[-1][1] if pieces else None, ranges=pieces)


def _pieces(lo: np.ndarray, hi: np.ndarray, ids: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The ranges of these tokens (in rank order, so in range order), joined where one ends as the next begins.

    Ranges [0.60, 0.62), [0.62, 0.63), [0.64, 1.0) -> ((0.60, 0.63), (0.64, 1.0)).
    """
    starts, ends = lo[ids], hi[ids]  # [n] each
    breaks = np.flatnonzero(starts[1:] != ends[:-1]) + 1  # where a shown row's range sits in between
    firsts, lasts = np.concatenate(([0], breaks)), np.concatenate((breaks, [len(ids)])) - 1
    return tuple((float(starts[a]), float(ends[b])) for a, b in zip(firsts, lasts, strict=True)) if len(ids) else ()


def generate(model: LanguageModel, prompt: str, n_steps: int, settings: Settings = Settings(),
             generated: Sequence[int] = ()) -> list[StepResult]:
    """Run n_steps steps from the given ids, each appending its pick; return the steps."""
    ids = list(generated)
    steps = []
    for _ in range(n_steps):
        result = run_step(model, prompt, ids, settings)
        steps.append(result)
        ids.append(result.chosen.id)
    return steps


def undo(generated: Sequence[int]) -> tuple[int, ...]:
    """Drop the last generated id: [5, 9, 2] -> (5, 9); () stays ()."""
    return tuple(generated[:-1])


def generated_pieces(model: LanguageModel, prompt: str, generated: Sequence[int]) -> list[str]:
    """Each generated token's text with the space before it, as it follows the prompt.

    'It is a truth' + [universally, ","] -> [' universally', ',']
    """
    if not generated:
        return []
    prompt_ids = [t.id for t in model.tokenizer.encode(prompt)]
    pieces = model.tokenizer.decode_pieces([*prompt_ids, *generated])[len(prompt_ids) :]
    if not prompt or prompt[-1].isspace():
        pieces[0] = pieces[0].lstrip(" ")
    return pieces


def text_of(model: LanguageModel, prompt: str, generated: Sequence[int]) -> str:
    """The prompt as typed, then the generated tokens, spaced as decode() spaces them.

    'It is a truth' + [universally, acknowledged, ","] -> 'It is a truth universally acknowledged,'
    """
    return prompt + "".join(generated_pieces(model, prompt, generated))
