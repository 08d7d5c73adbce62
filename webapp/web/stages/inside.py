"""The panel "Inside the forward pass", as its template (templates/stages/_inside.html) shows it.

This is the web layer's presenter, not the core's module of the same name: the core
(webapp/inference/derived/inside.py) runs the step's window again and returns its intermediates;
stages/inside_numbers.py keeps what the panel shows of them and checks its settings; this module
writes every figure, picture and sentence the panel shows, in the page's language.

Closed (every Step sends it so), the panel is a link that opens it. Open, it shows what the step's
forward pass computed: the bigram's row of counts, or a transformer's embeddings and their nearest
neighbours, its attention by layer and head with one head enlarged (inside_attention.py draws those
pictures), and the logit lens, the guess each layer would make.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from markupsafe import Markup

from ...inference.class_bigram import MixedBigram, count_table
from ...inference.derived.inside import LensRow
from ..i18n.filters import fixed, general, num, pct, readable, thousands
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext
from ..url.links import state_links
from .folds import FoldView, fold_view
from .inside_attention import Attention, AttentionWorked, EnlargedHead, attention, attention_worked, enlarged_head
from .inside_numbers import InsideNumbers, build_numbers, panel_form
from .screen import Screen

OPEN_FORMS = ("class", "bigram", "layers")
HEAT_FOLLOWERS = 3  # the words that most often came after the one read: always columns, so its counts show
HEAT_WORDS_PROJECTED = 6  # on the projector the table has the chart's narrow place
HEAT_WORDS = 8  # the count table's rows and columns: the class's most written words, and the word the step reads
HEAT_LEVELS = 5  # the cells' shades, 0 (never) to 4 (the table's largest count)


@dataclass(frozen=True)
class CountRow:
    """One follower in the bigram's count row."""

    label: Markup
    count: str
    prob: str  # at T = 1: (count + k) / (row total + k × n_vocab)
    logit: str


@dataclass(frozen=True)
class BigramCounts:
    """The bigram's forward pass: the row of its count table for the word it read."""

    word: Markup  # the word it read
    row_total: int  # how often that word was followed by another token
    row_total_text: str
    n_seen: str  # by how many different ones
    rows: tuple[CountRow, ...]  # the most frequent followers, most first
    more: Markup | None  # 'and 1 more token': the followers not shown; None when all are
    more_count: str  # how often they followed, together


@dataclass(frozen=True)
class BigramWorked:
    """The first follower's logit written out: z = log((count + k) / (row total + k × n_vocab))."""

    fold: FoldView
    first: CountRow | None  # the most frequent follower; None if nothing ever followed the word
    word: Markup
    vocab: str
    k: str
    total: str
    made_up: str  # k × n_vocab: the counts the smoothing adds, '50'


@dataclass(frozen=True)
class HeatCell:
    """One cell of the count table: how often the column's word came right after the row's."""

    count: str
    level: int  # its shade, 0 to HEAT_LEVELS - 1


@dataclass(frozen=True)
class HeatRow:
    word: Markup
    read: bool  # the word the step reads: its row is the one the model uses
    cells: tuple[HeatCell, ...]


@dataclass(frozen=True)
class HeatMap:
    """A class model's count table: its most written words, previous word down the side, next word across."""

    intro: Markup  # what the table is, and which row the step reads
    words: tuple[Markup, ...]  # the columns' words
    rows: tuple[HeatRow, ...]
    mixed: Markup | None  # a mix: the row's counts are the class's share only


@dataclass(frozen=True)
class Layers:
    """The open panel's first lines for a transformer, and the state its buttons' form holds once."""

    read: Markup  # 'The model read 7 tokens.', with its window when it left some out
    n_layer: int
    n_head: int
    positions_cut: bool  # the pictures leave the earliest positions out
    n_positions: int  # positions the pictures show
    fields: tuple[tuple[str, str], ...]  # the state, as the form's hidden inputs


@dataclass(frozen=True)
class Strip:
    """One token's embedding as a strip: a cell per dimension, its sign the colour, its size the opacity."""

    position: int
    label: Markup  # short
    near: bool  # the token whose neighbours are listed
    cells: tuple[tuple[int, str, float], ...]  # (dimension, 'p' at or above 0 else 'n', opacity)


@dataclass(frozen=True)
class Embeddings:
    """The embeddings' strips and the nearest neighbours of the chosen one."""

    n_embd: int
    n_dims: int  # dimensions a strip shows
    first_position: int  # the first strip's position in the window
    strips: tuple[Strip, ...]
    near_label: Markup
    neighbours: tuple[tuple[Markup, str], ...]  # (token, cosine similarity)


@dataclass(frozen=True)
class LayerGuess:
    """One layer's guess: its top tokens, and the step's token's rank there."""

    last: bool  # the last layer: its lens is the step's logits
    heading: Markup | int  # 'n = logits' for the last layer, else the layer's number
    tokens: tuple[tuple[Markup, bool, str], ...]  # (short label, the step's token, probability)
    picked_rank: str
    picked_prob: str


@dataclass(frozen=True)
class Lens:
    """The logit lens: each layer's guess, the last layers first on a projector."""

    taken: bool  # a token was picked: it is marked, and its rank has a column
    picked_label: Markup
    picked_short: Markup
    rows: tuple[LayerGuess, ...]


@dataclass(frozen=True)
class LensWorked:
    """The enlarged head's layer's top guess written out: its logit, then its softmax."""

    fold: FoldView
    layer: int
    token: Markup
    z: str
    vocab: str
    total: str
    p: str


@dataclass(frozen=True)
class InsidePanel:
    """The panel in its form (inside_numbers.panel_form); the sections of an open form, the others None."""

    form: str  # 'hidden', 'typed', 'closed', 'bigram' or 'layers'
    open_href: str | None = None  # closed: this screen with the panel open
    close_href: str | None = None  # open: this screen with the panel closed and its settings dropped
    counts: BigramCounts | None = None
    heat: HeatMap | None = None
    bigram_worked: BigramWorked | None = None
    layers: Layers | None = None
    embeddings: Embeddings | None = None
    attention: Attention | None = None
    head: EnlargedHead | None = None
    attention_worked: AttentionWorked | None = None
    lens: Lens | None = None
    lens_worked: LensWorked | None = None

    @property
    def is_open(self) -> bool:
        return self.form in OPEN_FORMS


def present(screen: Screen) -> InsidePanel:
    """The panel on this screen: closed, the link that opens it; open, what the step's forward pass computed."""
    form = panel_form(screen)
    link = state_links(screen.links)
    if form not in OPEN_FORMS:
        return InsidePanel(form=form, open_href=link("stepper.show", inside=1) if form == "closed" else None)
    close = link("stepper.show", inside=None, layer=None, head=None, near=None)
    if form == "class":
        return InsidePanel(form=form, close_href=close, heat=heat_map(screen))
    numbers = build_numbers(screen.model, screen.result, screen.state)
    if form == "bigram":
        counts = _counts(screen, numbers)
        return InsidePanel(form=form, close_href=close, counts=counts,
                           bigram_worked=_bigram_worked(screen, numbers, counts))
    return InsidePanel(
        form=form,
        close_href=close,
        layers=_layers(screen, numbers),
        embeddings=_embeddings(screen, numbers),
        attention=attention(screen, numbers),
        head=enlarged_head(screen, numbers),
        attention_worked=attention_worked(screen, numbers),
        lens=_lens(screen, numbers),
        lens_worked=_lens_worked(screen, numbers),
    )


def heat_map(screen: Screen) -> HeatMap:
    """The class's count table around the word the step reads (its row highlighted), each cell shaded by its count."""
    model = screen.model
    counting = model.class_model if isinstance(model, MixedBigram) else model
    ids = screen.result.context_ids
    prev = ids[-1] if ids else counting.start_id
    row = counting.counted(ids).counts  # [n_vocab] what followed prev
    followers = [int(i) for i in np.argsort(-row, kind="stable")[:HEAT_FOLLOWERS] if row[i] > 0]
    n_words = HEAT_WORDS_PROJECTED if screen.state.present else HEAT_WORDS
    table = count_table(counting, n_words, include=[prev, *followers])  # the row read, and where its counts are
    labels = screen.labels
    words = tuple(labels[i] for i in table.ids)
    top = max((c for row in table.counts for c in row), default=0) or 1
    rows = tuple(
        HeatRow(word=word, read=i == prev, cells=tuple(HeatCell(thousands(c), heat_level(c, top)) for c in row))
        for i, word, row in zip(table.ids, words, table.counts, strict=True)
    )
    return HeatMap(
        intro=_("Counted in our sentences. The model reads the row of the word before the next one, '%(word)s' "
                "(highlighted): the more often a word came after it, the more likely it comes next.",
                word=labels[prev]),
        words=words,
        rows=rows,
        mixed=_("In the mix these counts give our part of the probability; Jane Austen's novels give the rest.")
        if counting is not model else None,
    )


def heat_level(count: int, top: int) -> int:
    """A cell's shade: 0 for a count of 0, else 1 to HEAT_LEVELS - 1 by its share of the table's largest count.

    >>> [heat_level(c, 8) for c in (0, 1, 2, 4, 8)]
    [0, 1, 1, 2, 4]
    """
    return 0 if count == 0 else max(1, round((HEAT_LEVELS - 1) * count / top))


def _counts(screen: Screen, numbers: InsideNumbers) -> BigramCounts:
    v, labels, row_of = numbers.view, screen.labels, screen.result.row_of
    return BigramCounts(
        word=labels[v.prev_id],
        row_total=v.row_total,
        row_total_text=thousands(v.row_total),
        n_seen=thousands(v.n_seen),
        rows=tuple(CountRow(label=labels[i], count=thousands(c), prob=pct(p), logit=num(row_of(i).logit))
                   for i, c, p in zip(v.ids, v.counts, v.probs, strict=True)),
        more=ngettext("and %(num)s more token", "and %(num)s more tokens", v.n_more, num=thousands(v.n_more))
        if v.n_more else None,
        more_count=thousands(v.more_count),
    )


def _bigram_worked(screen: Screen, numbers: InsideNumbers, counts: BigramCounts) -> BigramWorked:
    v = numbers.view
    return BigramWorked(
        fold=fold_view(screen, "worked-inside-bigram", "worked", _("Worked example")),
        first=counts.rows[0] if counts.rows else None,
        word=counts.word,
        vocab=thousands(v.n_vocab),
        k=general(v.k),
        total=counts.row_total_text,
        made_up=readable(v.made_up),
    )


def _layers(screen: Screen, numbers: InsideNumbers) -> Layers:
    v = numbers.view
    return Layers(
        read=_read(len(v.ids), v.window_start),
        n_layer=v.n_layer,
        n_head=v.n_head,
        positions_cut=bool(numbers.n_hidden_positions),
        n_positions=len(numbers.positions),
        fields=tuple(screen.links.fields()),
    )


def _read(n: int, window_start: int) -> Markup:
    """How many tokens the model read, and how many its window left out, if any."""
    if window_start:
        return ngettext(
            "The model read %(num)s token (its window: the first %(outside)s tokens of the text are outside it, "
            "not read).",
            "The model read %(num)s tokens (its window: the first %(outside)s tokens of the text are outside it, "
            "not read).",
            n,
            outside=thousands(window_start),
        )
    return ngettext("The model read %(num)s token.", "The model read %(num)s tokens.", n)


def _embeddings(screen: Screen, numbers: InsideNumbers) -> Embeddings:
    v, labels, short = numbers.view, screen.labels, screen.short_labels(10)
    rows = numbers.strips()
    scale = strip_scale(rows)
    return Embeddings(
        n_embd=v.embeddings.shape[1],
        n_dims=numbers.n_dims,
        first_position=numbers.positions.start,
        strips=tuple(
            Strip(position=pos, label=short[v.ids[pos]], near=pos == numbers.near, cells=strip_cells(values, scale))
            for pos, values in zip(numbers.positions, rows, strict=True)
        ),
        near_label=labels[numbers.near_id],
        neighbours=tuple((labels[n.id], fixed(n.similarity, 3)) for n in numbers.neighbours(screen.model)),
    )


def strip_scale(rows: list[list[float]]) -> float:
    """The largest |value| of the strips, which gets full colour: [[0.5, -2.0], [1.0]] -> 2.0; all 0 -> 1.0."""
    return max((abs(x) for row in rows for x in row), default=0.0) or 1.0


def strip_cells(values: list[float], scale: float) -> tuple[tuple[int, str, float], ...]:
    """Each dimension's cell: [0.5, -2.0, 3.0] over 2.0 -> ((0, 'p', 0.25), (1, 'n', 1.0), (2, 'p', 1.0))."""
    return tuple((d, "p" if x >= 0 else "n", round(min(1.0, abs(x) / scale), 2)) for d, x in enumerate(values))


def _lens(screen: Screen, numbers: InsideNumbers) -> Lens:
    v, short = numbers.view, screen.short_labels(10)
    marked = v.picked_id if screen.taken else None  # the token the lens marks: the pick, once there is one
    rows = tuple(_lens_row(row, v.n_layer, short, marked) for row in v.lens)
    return Lens(
        taken=screen.taken,
        picked_label=screen.labels[v.picked_id],
        picked_short=short[v.picked_id],
        rows=rows[::-1] if screen.state.present else rows,  # on a projector the last layers come first
    )


def _lens_row(row: LensRow, n_layer: int, short: tuple[Markup, ...], marked: int | None) -> LayerGuess:
    last = row.layer == n_layer
    return LayerGuess(
        last=last,
        heading=_("%(layer)s = logits", layer=row.layer) if last else row.layer,
        tokens=tuple((short[i], i == marked, pct(p)) for i, p in zip(row.ids, row.probs, strict=True)),
        picked_rank=thousands(row.picked_rank),
        picked_prob=pct(row.picked_prob),
    )


def _lens_worked(screen: Screen, numbers: InsideNumbers) -> LensWorked:
    row = numbers.view.lens[numbers.layer]
    return LensWorked(
        fold=fold_view(screen, "worked-inside-lens", "worked", _("Worked example")),
        layer=row.layer,
        token=screen.labels[row.ids[0]],
        z=num(row.logits[0]),
        vocab=thousands(screen.model.n_vocab),
        total=num(row.total, 4),
        p=pct(row.probs[0]),
    )
