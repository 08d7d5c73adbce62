"""The panel "Inside the forward pass" for the step on screen, computed only when it is open.

The numbers come from the core (inference/derived/inside.py); this module chooses what the panel
shows of them (the last positions of a long window, the first dimensions of an embedding) and checks
the panel's own settings (layer, head, near) against the model and the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...inference import LanguageModel, StepResult
from ...inference.article import ArticleModel
from ...inference.derived.inside import (
    AttentionExample,
    BigramView,
    LayersView,
    Neighbour,
    attention_example,
    inside_step,
    neighbours,
)
from ...inference.errors import N_
from ..url.state import InvalidInput, State

N_POSITIONS = 16  # positions the strips and matrices show: the last ones of the window
N_DIMS = 48  # dimensions of an embedding strip


@dataclass(frozen=True)
class Cell:
    """One square of a heatmap: its weight, or None where the causal mask hides a later position."""

    key: int  # the key's position in the window
    weight: float | None
    shade: float = 0.0  # its colour's opacity: the weight over the largest in its strip, so a strip is never blank


@dataclass(frozen=True)
class InsidePanel:
    """What the open panel shows of the step's forward pass."""

    view: LayersView | BigramView
    layer: int  # the enlarged head: layer from 1, head from 0
    head: int
    near: int  # the window position whose embedding's neighbours are listed

    @property
    def layered(self) -> bool:
        return isinstance(self.view, LayersView)

    @property
    def positions(self) -> range:
        """The window positions shown: the last N_POSITIONS."""
        n = len(self.view.ids)
        return range(max(0, n - N_POSITIONS), n)

    @property
    def n_hidden_positions(self) -> int:
        """Positions the window read that the strips and matrices leave out (the earliest)."""
        return self.positions.start

    @property
    def n_dims(self) -> int:
        return min(N_DIMS, self.view.embeddings.shape[1])

    @cached_property
    def strip_scale(self) -> float:
        """The largest |value| among the shown dimensions of the shown embeddings: full colour."""
        shown = self.view.embeddings[self.positions.start :, : self.n_dims]  # [n_shown, n_dims]
        return float(np.abs(shown).max()) or 1.0

    def strip(self, position: int) -> list[tuple[int, float, float]]:
        """(dimension, value, opacity in [0, 1]) of a token's first dimensions; the sign picks the colour."""
        values = self.view.embeddings[position, : self.n_dims]
        return [(d, float(v), round(min(1.0, abs(float(v)) / self.strip_scale), 2)) for d, v in enumerate(values)]

    def overview_row(self, layer: int, head: int) -> list[Cell]:
        """The predicted position's weights over the shown keys, for one head: a small heatmap."""
        weights = self.view.attention[layer - 1][head, -1]  # [n]
        top = float(weights[self.positions.start :].max()) or 1.0
        return [Cell(k, float(weights[k]), round(float(weights[k]) / top, 2)) for k in self.positions]

    def top_key(self, layer: int, head: int) -> int:
        """The position one head weighs most, from the predicted position."""
        return int(np.argmax(self.view.attention[layer - 1][head, -1]))

    def matrix(self) -> list[tuple[int, list[Cell]]]:
        """The enlarged head's weights, query by query over the shown positions; later keys masked."""
        weights = self.view.attention[self.layer - 1][self.head]  # [n, n]
        return [(q, [Cell(k, float(weights[q, k]) if k <= q else None) for k in self.positions])
                for q in self.positions]

    @cached_property
    def example(self) -> AttentionExample:
        return attention_example(self.view, self.layer, self.head)

    @cached_property
    def near_id(self) -> int:
        return self.view.ids[self.near]

    def neighbours(self, model: LanguageModel) -> list[Neighbour]:
        return neighbours(model, self.near_id)

    @property
    def kv_groups(self) -> list[tuple[int, list[int]]]:
        """Grouped-query attention: each key/value head and the query heads that read it."""
        v = self.view
        return [(kv, [h for h in range(v.n_head) if v.kv_head(h) == kv]) for kv in range(v.n_head_kv)]


def build_panel(model: LanguageModel, result: StepResult, state: State) -> InsidePanel:
    """Run the step's window with its intermediates, and check the panel's settings against it."""
    if isinstance(model, ArticleModel):
        raise InvalidInput(N_("the article model has no forward pass to look inside: its logits are the scores typed"))
    view = inside_step(model, result)
    if isinstance(view, BigramView):
        return InsidePanel(view=view, layer=0, head=0, near=0)
    layer = view.n_layer if state.layer is None else state.layer
    head = 0 if state.head is None else state.head
    near = len(view.ids) - 1 if state.near is None else state.near
    if not 1 <= layer <= view.n_layer:
        raise InvalidInput(N_("layer must be from 1 to %(max)s for %(model)s, not %(value)s"), max=view.n_layer,
                           model=model.name, value=str(layer))
    if not 0 <= head < view.n_head:
        raise InvalidInput(N_("head must be from 0 to %(max)s for %(model)s, not %(value)s"), max=view.n_head - 1,
                           model=model.name, value=str(head))
    if not 0 <= near < len(view.ids):
        raise InvalidInput(N_("near must be a position the model read, from 0 to %(max)s, not %(value)s"),
                           max=str(len(view.ids) - 1), value=str(near))
    return InsidePanel(view=view, layer=layer, head=head, near=near)
