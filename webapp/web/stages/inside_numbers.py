"""The numbers of the panel "Inside the forward pass": what it shows of the core's run, its settings checked.

The web layer's, between two other modules about the panel: the core's webapp/inference/derived/inside.py
runs the step's window again and hands back every intermediate; this module keeps what the panel shows
of them (the last N_POSITIONS positions of a long window, the first N_DIMS dimensions of an embedding)
and checks the panel's own settings (layer, head, near) against the model and the window; the
presenter, stages/inside.py, writes them out for its template. The JSON twin (/api/inside) sends this
module's numbers as data. Nothing here is formatted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...inference import LanguageModel, StepResult
from ...inference.article import ArticleModel
from ...inference.class_bigram import ClassBigram, MixedBigram
from ...inference.derived.inside import (
    AttentionExample,
    BigramView,
    LayersView,
    Neighbour,
    attention_example,
    has_layers,
    inside_step,
    neighbours,
)
from ...inference.errors import N_
from ..url.state import InvalidInput, State
from .screen import Screen

N_POSITIONS = 16  # positions the strips and matrices show: the last ones of the window
N_DIMS = 48  # dimensions of an embedding strip


def panel_form(screen: Screen) -> str:
    """Which form the panel takes: 'hidden' while the pick is, 'typed' for the article model (its logits
    are typed: no forward pass), 'closed' until inside=1, then open: 'class' (a class model's count table),
    'bigram' (a row of counts) or 'layers'."""
    if screen.hidden:
        return "hidden"
    if isinstance(screen.model, ArticleModel):
        return "typed"
    if not screen.state.inside:
        return "closed"
    if isinstance(screen.model, (ClassBigram, MixedBigram)):
        return "class"
    return "layers" if has_layers(screen.model) else "bigram"


@dataclass(frozen=True)
class InsideNumbers:
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

    def strips(self) -> list[list[float]]:
        """The first n_dims numbers of each shown position's embedding."""
        return self.view.embeddings[self.positions.start :, : self.n_dims].tolist()  # [n_shown][n_dims]

    def last_weights(self, layer: int) -> list[list[float]]:
        """Each head's weights from the predicted position over every key the window read, in one layer."""
        return self.view.attention[layer - 1][:, -1].tolist()  # [n_head][n]

    def strongest_keys(self, layer: int) -> list[int]:
        """The position each head of a layer weighs most, from the predicted position."""
        return np.argmax(self.view.attention[layer - 1][:, -1], axis=-1).tolist()  # [n_head]

    def head_weights(self) -> list[list[float]]:
        """The enlarged head's weights among the shown positions: row q is query q over the keys."""
        start = self.positions.start
        return self.view.attention[self.layer - 1][self.head][start:, start:].tolist()  # [n_shown][n_shown]

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


def build_numbers(model: LanguageModel, result: StepResult, state: State) -> InsideNumbers:
    """Run the step's window with its intermediates, and check the panel's settings against it."""
    if isinstance(model, ArticleModel):
        raise InvalidInput(N_("the article model has no forward pass to look inside: its logits are the scores typed"))
    view = inside_step(model, result)
    if isinstance(view, BigramView):
        return InsideNumbers(view=view, layer=0, head=0, near=0)
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
    return InsideNumbers(view=view, layer=layer, head=head, near=near)
