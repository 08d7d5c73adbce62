"""Gather what one screen shows: the step on display and the text so far."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from ...inference import LanguageModel, Row, StepResult, run_step_table
from ...inference.derived.table import N_ROWS
from ..i18n.filters import range_digits
from ..i18n.labels import token_labels
from ..url.state import FORCED, SEEDED, State, state_model
from . import table_view

PRESENTER_ROWS = 8
# What presenter mode keeps off the projector (the laptop's page and the link without present=1 have it).
PRESENTER_LEAVES_OUT = frozenset({"worked", "chart-numbers", "compare", "chain", "uncertainty", "many"})


@dataclass(frozen=True)
class Screen:
    """The step on display, and the text so far.

    Once a token has been generated, the screen shows the step that picked the last one
    (so Step shows the pick it just made), or the step `at` names; before any, the coming
    step, with no r drawn yet.

    `links` is the state its links and forms carry: `state` itself, but on a student's screen while
    the step on it hides its pick, the text before that step (classroom/student_view.py, links_for_class),
    so that no address, hidden field or form a student receives holds the pick.
    """

    state: State
    model: LanguageModel
    result: StepResult
    links: State | None = None  # None: `state`

    def __post_init__(self):
        if self.links is None:
            object.__setattr__(self, "links", self.state)

    # The table's rows ask these again and again (a Step, about 300 times): each is computed once.
    @cached_property
    def on_screen(self) -> int | None:
        """The generation index of the step on screen (State.on_screen); None before the first Step."""
        return self.state.on_screen

    @cached_property
    def taken(self) -> bool:
        return self.on_screen is not None

    @cached_property
    def in_text(self) -> int | None:
        """The id the text has at the step on screen (not the pick if forced or if settings changed)."""
        return self.state.ids[self.on_screen] if self.taken else None

    @cached_property
    def latest(self) -> bool:
        """Whether the step on screen picked the text's last token (not an earlier step viewed again)."""
        return self.taken and self.on_screen == len(self.state.ids) - 1

    @cached_property
    def forced(self) -> bool:
        return self.taken and self.state.sources[self.on_screen] == FORCED

    @cached_property
    def pick_moved(self) -> bool:
        """Whether the text has another token than this step's r picks, not chosen by hand: the settings changed
        since the text's token was picked (Step continues from the text)."""
        return self.taken and not self.forced and self.in_text != self.result.chosen.id

    def picked(self, row: Row) -> bool:
        """Whether r landed on this row (before a Step, none is picked)."""
        return self.taken and row.id == self.result.chosen.id

    @property
    def picked_beyond(self) -> bool:
        """Whether r landed below the table's top rows: in the range bar's grey rest."""
        return self.taken and self.beyond(self.result.chosen)

    def beyond(self, row: Row) -> bool:
        """Whether the row ranks below the table's top rows (shown only as the pick or the text's token)."""
        return row.rank > self.result.n_top

    def chosen_instead(self, row: Row) -> bool:
        """Whether the teacher chose this row's token by hand instead of the pick."""
        return self.forced and row.id == self.in_text

    def choosable(self, row: Row) -> bool:
        """Whether the row offers "choose": every row but the token the text already has."""
        return not (self.taken and row.id == self.in_text)

    def renormalised(self, row: Row) -> bool:
        """Whether the row notes its probability after truncation: kept, and changed by what was cut."""
        return row.kept and self.result.n_kept < self.model.n_vocab and row.prob_kept != row.prob

    @property
    def text_row(self) -> Row | None:
        """The table row of the token the text has at the step on screen."""
        return self.result.row_of(self.in_text) if self.taken else None

    @property
    def labels(self) -> tuple:
        """The model's token labels, escaped, by id (see labels.token_labels)."""
        return token_labels(self.model)

    def short_labels(self, length: int) -> tuple:
        """The labels cut to `length` characters, for the chart's and the range bar's narrow places."""
        return token_labels(self.model, length)

    @cached_property
    def table(self) -> tuple[table_view.TableRow, ...]:
        """The logits table's rows, each with its marks (table_view.py)."""
        return table_view.table_rows(self.result.rows, self)

    @property
    def rows_below(self) -> tuple[Row, ...]:
        """Rows shown under the top ones: the pick and the text's token when they rank below them."""
        return self.result.below

    def sends(self, section: str) -> bool:
        """Whether the screen sends a section: all of them, but PRESENTER_LEAVES_OUT in presenter mode."""
        return not (self.state.present and section in PRESENTER_LEAVES_OUT)

    @property
    def hidden(self) -> bool:
        """Predict, then reveal: the step's numbers and pick stay hidden until Reveal."""
        return self.state.predict and not self.state.revealed

    @cached_property
    def digits(self) -> int:
        """Digits for every range on screen: enough that no shown range reads empty (filters.range_digits)."""
        result = self.result
        spans = [(row.lo, row.hi) for row in result.rows if row.kept] + list(result.rest.ranges)
        return range_digits(spans)


def n_rows(state: State) -> int:
    """Rows of the logits table: fewer in presenter mode, so the screen fits a projector."""
    return PRESENTER_ROWS if state.present else N_ROWS


def build_screen(models: Mapping[str, LanguageModel], state: State, step: StepResult | None = None) -> Screen:
    """Compute the screen for state; `step` is the step to display if the caller already has it (a Step's own)."""
    model = state_model(models, state)
    i = state.on_screen
    if step is None:
        before = state.ids if i is None else state.ids[:i]
        r = None if i is None else state.given_r(i)
        step = run_step_table(model, state.text_prompt, before, state.settings, r=r, n_rows=n_rows(state))
    if i is not None:  # the pick and the text's token get rows of their own, and the rest leaves them out
        step = step.showing([step.chosen.id, state.ids[i]])
    return Screen(state, model, step)


def take_step(models: Mapping[str, LanguageModel], state: State) -> tuple[State, StepResult]:
    """The state after one step from state, and the step: draw r (or take the teacher's), pick, append."""
    model = state_model(models, state)
    result = run_step_table(model, state.text_prompt, state.ids, state.settings, r=state.next_r, n_rows=n_rows(state))
    source = SEEDED if state.next_r is None else state.next_r
    return state.branched(len(state.ids), result.chosen.id, source), result
