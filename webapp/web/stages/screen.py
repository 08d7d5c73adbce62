"""Gather what one screen shows: the step on display and the text so far."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from ...inference import LanguageModel, Row, StepResult, run_step
from ...inference.article import ArticleModel
from ...inference.derived import explain
from ...inference.derived.compare import Comparison, at_temperatures
from ...inference.derived.uncertainty import TextSurprise, text_surprise
from ...inference.errors import N_
from ...inference.step import MAX_TOKENS, N_ROWS, generated_pieces
from ..i18n.filters import range_digits
from ..i18n.labels import token_labels
from ..i18n.translations import gettext, ngettext
from ..url.state import FORCED, SEEDED, State, state_model
from . import table_view
from .inside_panel import InsidePanel, build_panel

PRESENTER_ROWS = 8
SURPRISE_BINS = (1, 2, 4, 6, 8)  # bits: the upper ends of the text's shades; above 8 bits, the darkest
# What presenter mode keeps off the projector (the laptop's page and the link without present=1 have it).
PRESENTER_LEAVES_OUT = frozenset({"worked", "chart-numbers", "compare", "chain", "uncertainty", "many"})


# What the text shows for a generated token that has no word of its own, and what that mark means.
MARKS = {
    "paragraph": ("¶", N_("a paragraph break")),
    "line": ("↵", N_("a line break")),
    "space": ("␣", N_("a token of spaces only")),
    "partial": ("◌", N_("bytes that do not make a whole character yet: the token after them completes it")),
}


@dataclass(frozen=True)
class Piece:
    """A generated token as the text shows it: the space before it, its word, and how it was picked."""

    space: str  # the spaces and line breaks before the word
    word: str  # '' for a paragraph break, a line break, spaces, or bytes of an unfinished character
    forced: bool  # chosen by hand from the table
    typed_r: float | None  # the r the teacher typed, if that picked it

    @classmethod
    def of(cls, text: str, source: str | float) -> Piece:
        """' universally' picked by the seeded r -> Piece(' ', 'universally', False, None); '\n\n' -> ('\n\n', '')."""
        word = text.lstrip(" \n")
        typed_r = None if isinstance(source, str) else source
        return cls(space=text[: len(text) - len(word)], word=word, forced=source == FORCED, typed_r=typed_r)

    @property
    def kind(self) -> str | None:
        """Which mark stands for a piece with no word (see MARKS): '\n\n' -> 'paragraph', '\n' -> 'line',
        ' ' -> 'space', '' (bytes of a character the next token completes) -> 'partial'; a word -> None."""
        if self.word:
            return None
        if not self.space:
            return "partial"
        return "paragraph" if "\n\n" in self.space else "line" if "\n" in self.space else "space"

    @property
    def mark(self) -> str:
        """The sign the text shows in place of a missing word: '¶', '↵', '␣' or '◌'."""
        return MARKS[self.kind][0] if self.kind else ""


@dataclass(frozen=True)
class Screen:
    """The step on display, and the text so far.

    Once a token has been generated, the screen shows the step that picked the last one
    (so Step shows the pick it just made), or the step `at` names; before any, the coming
    step, with no r drawn yet.
    """

    state: State
    model: LanguageModel
    result: StepResult
    pieces: tuple[Piece, ...]  # the generated tokens as the text shows them
    comparison: Comparison

    # The table's rows ask these again and again (a Step, about 300 times): each is computed once.
    @cached_property
    def shown(self) -> int | None:
        return self.state.shown

    @cached_property
    def taken(self) -> bool:
        return self.shown is not None

    @cached_property
    def in_text(self) -> int | None:
        """The id the text has at the shown step (not the pick if forced or if settings changed)."""
        return self.state.ids[self.shown] if self.taken else None

    @cached_property
    def latest(self) -> bool:
        """Whether the step on screen picked the text's last token (not an earlier step viewed again)."""
        return self.taken and self.shown == len(self.state.ids) - 1

    @cached_property
    def forced(self) -> bool:
        return self.taken and self.state.sources[self.shown] == FORCED

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
        """The table row of the token the text has at the shown step."""
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

    @cached_property
    def chart(self) -> table_view.Chart:
        """The softmax chart's rows: their places and bar lengths (table_view.py)."""
        return table_view.chart(self.result.rows, self, self.state.present)

    @property
    def rows_below(self) -> tuple[Row, ...]:
        """Rows shown under the top ones: the pick and the text's token when they rank below them."""
        return self.result.below

    @property
    def marks(self) -> list[tuple[str, str]]:
        """The signs the text uses, each with what it stands for: [('¶', 'a paragraph break')]."""
        kinds = {piece.kind for piece in self.pieces}
        return [(MARKS[kind][0], gettext(MARKS[kind][1])) for kind in MARKS if kind in kinds]

    @cached_property
    def inside(self) -> InsidePanel | None:
        """The panel "Inside the forward pass", computed only when open (and not while the pick is hidden)."""
        if not self.state.inside or self.hidden or not self.has_inside:
            return None
        return build_panel(self.model, self.result, self.state)

    @property
    def has_inside(self) -> bool:
        """Whether the model has a forward pass to look inside (the article model's scores are typed)."""
        return not isinstance(self.model, ArticleModel)

    def sends(self, section: str) -> bool:
        """Whether the screen sends a section: all of them, but PRESENTER_LEAVES_OUT in presenter mode."""
        return not (self.state.present and section in PRESENTER_LEAVES_OUT)

    @property
    def hidden(self) -> bool:
        """Predict, then reveal: the step's numbers and pick stay hidden until Reveal."""
        return self.state.predict and not self.state.revealed

    @cached_property
    def softmax_example(self) -> explain.SoftmaxExample | None:
        return explain.softmax_example(self.result)

    @property
    def cuts(self) -> tuple:
        return self.result.cuts

    @cached_property
    def highest_logits(self) -> list[Row]:
        return explain.highest_logits(self.result)

    @cached_property
    def bigram_example(self) -> explain.BigramExample | None:
        return explain.bigram_example(self.model, self.result)

    @cached_property
    def digits(self) -> int:
        """Digits for every range on screen: enough that no shown range reads empty (filters.range_digits)."""
        result = self.result
        spans = [(row.lo, row.hi) for row in result.rows if row.kept] + list(result.rest.ranges)
        return range_digits(spans)

    def rest_parts(self) -> list[tuple[int, str]]:
        """How the tokens under the table divide, for the footer: [(12, 'cut'), (4,968, 'at p = 0')], kept left out."""
        rest = self.result.rest
        return [
            (n, words)
            for n, words in (
                (rest.cut_count, ngettext("cut", "cut", rest.cut_count)),
                (rest.zero_count, gettext("at p = 0")),
            )
            if n
        ]

    @property
    def at_limit(self) -> bool:
        return len(self.result.prompt_tokens) + len(self.state.ids) + 1 >= MAX_TOKENS

    @cached_property
    def text_surprise(self) -> TextSurprise | None:
        """Each generated token's surprise, when the text is coloured by it."""
        if not self.state.surprise or self.hidden:
            return None
        return text_surprise(self.model, self.state.prompt, self.state.ids, self.state.settings)

    def surprise_level(self, i: int) -> int:
        """The shade of generated token i: 0 (under 1 bit) to 5 (8 bits or more, or cut)."""
        bits = self.text_surprise.tokens[i].surprise
        return next((j for j, top in enumerate(SURPRISE_BINS) if bits < top), len(SURPRISE_BINS))

    @property
    def surprise_bins(self) -> tuple[str, ...]:
        """The legend's labels, one per shade."""
        edges = (0, *SURPRISE_BINS)
        return (
            *(gettext("%(low)s–%(high)s bits", low=a, high=b) for a, b in zip(edges, edges[1:], strict=False)),
            gettext("%(low)s+ bits", low=SURPRISE_BINS[-1]),
        )


def n_rows(state: State) -> int:
    """Rows of the logits table: fewer in presenter mode, so the screen fits a projector."""
    return PRESENTER_ROWS if state.present else N_ROWS


def build_screen(models: Mapping[str, LanguageModel], state: State, shown: StepResult | None = None) -> Screen:
    """Compute the screen for state; `shown` is the step to display if the caller already has it."""
    model = state_model(models, state)
    i = state.shown
    if shown is None:
        before = state.ids if i is None else state.ids[:i]
        r = None if i is None else state.given_r(i)
        shown = run_step(model, state.prompt, before, state.settings, r=r, n_rows=n_rows(state))
    if i is not None:  # the pick and the text's token get rows of their own, and the rest leaves them out
        shown = shown.showing([shown.chosen.id, state.ids[i]])
    pieces = tuple(map(Piece.of, generated_pieces(model, state.prompt, state.ids), state.sources))
    return Screen(state, model, shown, pieces, at_temperatures(shown))


def take_step(models: Mapping[str, LanguageModel], state: State) -> tuple[State, StepResult]:
    """The state after one step from state, and the step: draw r (or take the teacher's), pick, append."""
    model = state_model(models, state)
    result = run_step(model, state.prompt, state.ids, state.settings, r=state.next_r, n_rows=n_rows(state))
    source = SEEDED if state.next_r is None else state.next_r
    return state.branched(len(state.ids), result.chosen.id, source), result
