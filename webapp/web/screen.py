"""Gather what one screen shows: the step on display and the text so far."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..inference import LanguageModel, StepResult, get_model, run_step
from ..inference.step import generated_pieces
from .state import State


@dataclass(frozen=True)
class Screen:
    """The step on display, and the text so far.

    Once a token has been generated, the screen shows the step that picked the last
    one (so Step shows the pick it just made); before that, the coming step, with no r yet.
    """

    state: State
    model: LanguageModel
    result: StepResult
    taken: bool  # the shown step's pick is the last token of the text
    pieces: list[str]  # the generated tokens' text, each with the space before it

    @property
    def in_text(self) -> int | None:
        """The id the text has at the shown step (it differs from the pick if settings changed)."""
        return self.state.ids[-1] if self.taken else None


def build_screen(models: Mapping[str, LanguageModel], state: State, shown: StepResult | None = None) -> Screen:
    """Compute the screen for state; `shown` is the step to display if the caller already has it."""
    model = get_model(models, state.model)
    before = state.ids[:-1]
    if shown is None:
        shown = run_step(model, state.prompt, before, state.settings)
    pieces = generated_pieces(model, state.prompt, state.ids)
    return Screen(state, model, shown, bool(state.ids), pieces)
