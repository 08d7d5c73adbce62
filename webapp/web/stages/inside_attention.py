"""The attention pictures of the panel "Inside the forward pass": every head at a glance, and one enlarged.

Part of the panel's presenter (stages/inside.py), which hands these to its template: the overview
(a strip per layer and head, how much the predicted position looks at each shown key), the enlarged
head's matrix (each shown query over the keys it may read), and its largest weight written out. Each
cell's place and opacity and each sentence are written here; the weights come from
stages/inside_numbers.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...inference.derived.inside import LayersView
from ..i18n.filters import num, pct
from ..i18n.translations import template_gettext as _
from .folds import FoldView, fold_view
from .inside_numbers import InsideNumbers
from .screen import Screen

N_STRONGEST = 4  # keys the sentence under the enlarged head names
MATRIX_MARGIN = 5.8  # the matrix's room for its labels, in cells: it starts at -5.6 and ends 0.2 past the last cell
CELL_PIXELS = 22


@dataclass(frozen=True)
class HeadCell:
    """One head in the overview: a button that enlarges it, drawn as its strip of weights."""

    shown: bool  # the head enlarged below
    value: str  # what its button sets: 'layer,head'
    label: Markup  # "Layer 2, head 1: looks most at 'the'"
    shades: tuple[tuple[int, float], ...]  # (x, opacity) of each shown key


@dataclass(frozen=True)
class HeadsRow:
    layer: int
    cells: tuple[HeadCell, ...]


@dataclass(frozen=True)
class Attention:
    """Every layer's heads, from the position being predicted."""

    grouped: bool  # grouped-query attention: fewer key/value heads than query heads
    n_head: int
    n_head_kv: int
    kv_groups: Markup | None  # grouped: 'heads 0–2 read key/value head 0; heads 3–5 read key/value head 1; …'
    n_positions: int  # keys each strip shows
    heads: tuple[int, ...]  # the columns' numbers
    rows: tuple[HeadsRow, ...]


@dataclass(frozen=True)
class MatrixCell:
    """A query's weight on one key, or a key after the query (masked: never read)."""

    x: int
    masked: bool
    opacity: str | None  # the weight itself, '0.412'
    key: Markup | None  # the key's token, for the cell's title
    weight: str | None  # the weight as a percentage


@dataclass(frozen=True)
class MatrixRow:
    y: int
    label_y: str  # the baseline of its label
    label: Markup  # the query's token, short
    query: Markup  # the query's token, for its cells' titles
    cells: tuple[MatrixCell, ...]


@dataclass(frozen=True)
class EnlargedHead:
    """The chosen head's matrix over the shown positions, and the keys the last position weighs most."""

    title: Markup  # 'Layer 4, head 0', with its key/value head under grouped-query attention
    layer: int
    head: int
    size: str  # the picture's width and height in cells, labels included
    pixels: int  # the same in pixels
    rows: tuple[MatrixRow, ...]
    columns: tuple[tuple[str, Markup], ...]  # (x of the key's label, its short token)
    strongest: tuple[Markup, ...]  # "'the' 41.2 %", largest first


@dataclass(frozen=True)
class AttentionWorked:
    """The enlarged head's largest weight from the last position, written out from its query and keys."""

    fold: FoldView
    layer: int
    head: int
    token: Markup
    dot: str
    dims: int
    s: str
    keys: int
    top: str
    exp: str
    total: str
    weight: str


def grouped(view: LayersView) -> bool:
    """Whether the model shares key/value heads among its query heads (grouped-query attention)."""
    return view.n_head_kv < view.n_head


def attention(screen: Screen, numbers: InsideNumbers) -> Attention:
    """The overview: a row per layer, a strip per head."""
    v = numbers.view
    # Translated once, each cell's figures put in below (a large model has hundreds of heads).
    label = _("Layer %(layer)s, head %(head)s: looks most at '%(token)s'",
              layer="%(layer)s", head="%(head)s", token="%(token)s")
    return Attention(
        grouped=grouped(v),
        n_head=v.n_head,
        n_head_kv=v.n_head_kv,
        kv_groups=_kv_groups(numbers) if grouped(v) else None,
        n_positions=len(numbers.positions),
        heads=tuple(range(v.n_head)),
        rows=tuple(_heads_row(screen, numbers, layer, label) for layer in range(1, v.n_layer + 1)),
    )


def _kv_groups(numbers: InsideNumbers) -> Markup:
    return Markup("; ").join(
        _("heads %(first)s–%(last)s read key/value head %(kv)s", first=heads[0], last=heads[-1], kv=kv)
        for kv, heads in numbers.kv_groups
    )


def _heads_row(screen: Screen, numbers: InsideNumbers, layer: int, label: Markup) -> HeadsRow:
    ids, labels, start = numbers.view.ids, screen.labels, numbers.positions.start
    strongest = numbers.strongest_keys(layer)
    cells = tuple(
        HeadCell(
            shown=(layer, head) == (numbers.layer, numbers.head),
            value=f"{layer},{head}",
            label=label % {"layer": layer, "head": head, "token": labels[ids[strongest[head]]]},
            shades=shades(weights[start:]),
        )
        for head, weights in enumerate(numbers.last_weights(layer))
    )
    return HeadsRow(layer=layer, cells=cells)


def shades(weights: list[float]) -> tuple[tuple[int, float], ...]:
    """Each key's opacity in a strip: its weight over the strip's largest, so that no strip is blank.

    [0.1, 0.4, 0.2] -> ((0, 0.25), (1, 1.0), (2, 0.5))
    """
    top = max(weights) or 1.0
    return tuple((x, round(w / top, 2)) for x, w in enumerate(weights))


def enlarged_head(screen: Screen, numbers: InsideNumbers) -> EnlargedHead:
    """The chosen head, enlarged: its matrix, and what the last position weighs most."""
    ids, short = numbers.view.ids, screen.short_labels(10)
    weights = numbers.head_weights()  # [n_shown][n_shown]
    size = len(weights) + MATRIX_MARGIN
    return EnlargedHead(
        title=_head_title(numbers),
        layer=numbers.layer,
        head=numbers.head,
        size=str(size),
        pixels=int(round(size * CELL_PIXELS, 0)),  # as Jinja's `round | int`: half to even
        rows=_matrix(screen, numbers, weights),
        columns=tuple((str(x + 0.75), short[ids[pos]]) for x, pos in enumerate(numbers.positions)),
        strongest=_strongest(screen, numbers, weights[-1]),
    )


def _head_title(numbers: InsideNumbers) -> Markup:
    v, layer, head = numbers.view, numbers.layer, numbers.head
    if grouped(v):
        return _("Layer %(layer)s, head %(head)s (key/value head %(kv)s)", layer=layer, head=head, kv=v.kv_head(head))
    return _("Layer %(layer)s, head %(head)s", layer=layer, head=head)


def _matrix(screen: Screen, numbers: InsideNumbers, weights: list[list[float]]) -> tuple[MatrixRow, ...]:
    ids, labels, short = numbers.view.ids, screen.labels, screen.short_labels(10)
    keys = [labels[ids[pos]] for pos in numbers.positions]
    return tuple(
        MatrixRow(y=y, label_y=str(y + 0.75), label=short[ids[q]], query=labels[ids[q]],
                  cells=matrix_cells(row, y, keys))
        for y, (q, row) in enumerate(zip(numbers.positions, weights, strict=True))
    )


def matrix_cells(weights: list[float], y: int, keys: list[Markup]) -> tuple[MatrixCell, ...]:
    """Query y's row: its weight on each key up to itself (the diagonal), the keys after it masked.

    ([0.25, 0.75, 0.0], 1, keys) -> cells 0 and 1 with opacities '0.250', '0.750'; cell 2 masked.
    """
    return tuple(
        MatrixCell(x=x, masked=True, opacity=None, key=None, weight=None) if x > y
        else MatrixCell(x=x, masked=False, opacity=f"{w:.3f}", key=key, weight=pct(w))
        for x, (w, key) in enumerate(zip(weights, keys, strict=True))
    )


def strongest(weights: list[float], n: int = N_STRONGEST) -> list[int]:
    """The places of the n largest weights, largest first, ties in order: [0.1, 0.5, 0.1, 0.3] -> [1, 3, 0, 2]."""
    return sorted(range(len(weights)), key=weights.__getitem__, reverse=True)[:n]


def _strongest(screen: Screen, numbers: InsideNumbers, last_row: list[float]) -> tuple[Markup, ...]:
    ids, labels, start = numbers.view.ids, screen.labels, numbers.positions.start
    return tuple(_("'%(token)s' %(p)s", token=labels[ids[start + x]], p=pct(last_row[x])) for x in strongest(last_row))


def attention_worked(screen: Screen, numbers: InsideNumbers) -> AttentionWorked:
    """The figures of the enlarged head's worked example (inference/derived/inside.py's attention_example)."""
    ex, ids = numbers.example, numbers.view.ids
    return AttentionWorked(
        fold=fold_view(screen, "worked-inside-attention", "worked", _("Worked example")),
        layer=ex.layer,
        head=ex.head,
        token=screen.labels[ids[ex.key]],
        dot=num(ex.dot),
        dims=ex.head_dim,
        s=num(ex.score),
        keys=len(ids),
        top=num(ex.top_score),
        exp=num(ex.exp, 4),
        total=num(ex.total, 4),
        weight=pct(ex.weight),
    )
