"""The decoding page: greedy, beam search and the stepper's sampled text side by side, and the tree of beams.

Every figure is computed here from the search (inference/decoding.py); the template only draws. The tree is one
column per step: the prompt first, then each step's candidates (each beam followed by its likeliest tokens), the
kept ones going on to the next column, the pruned ones greyed, the finished ones (an end-of-sequence) marked.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import request

from ...inference import decoding
from ...inference.errors import N_
from ...inference.machinery import cost
from ...inference.model import LanguageModel
from ...inference.step import context_ids, encode_prompt
from ..i18n.filters import fixed
from ..i18n.translations import gettext as _
from ..url.state import InvalidInput, State

MAX_WIDTH = 8
MAX_NEW = 20
PAGE_NEW = 6  # the page's default: a tree a projector can show
COLUMN = 170  # the tree's geometry, in SVG units
ROW = 26
NODE_W = 150
NODE_H = 22


def number(name: str, kind, default):
    text = request.args.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise InvalidInput(N_("%(name)s must be a number, not %(value)s"), name=name, value=repr(text[:40])) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise InvalidInput(N_("%(name)s must be a finite number, not %(value)s"), name=name, value=repr(text[:40]))
    return value


def settings(default_new: int = 10) -> tuple[int, float, int]:
    """The search's width (1 to 8), length penalty (from -2 to 5) and most new tokens (1 to 20), from the query."""
    width = number("width", int, 4)
    length_penalty = number("length_penalty", float, 1.0)
    n_new = number("max_new_tokens", int, default_new)
    if not 1 <= width <= MAX_WIDTH:
        raise InvalidInput(N_("width must be a whole number from 1 to %(max)s, not %(value)s"), max=MAX_WIDTH,
                           value=str(width))
    if not -2 <= length_penalty <= 5:
        raise InvalidInput(N_("length_penalty must be from -2 to 5, not %(value)s"), value=str(length_penalty))
    if not 1 <= n_new <= MAX_NEW:
        raise InvalidInput(N_("max_new_tokens must be a whole number from 1 to %(max)s, not %(value)s"), max=MAX_NEW,
                           value=str(n_new))
    return width, length_penalty, n_new


def work(model: LanguageModel, state: State, width: int, n_new: int) -> cost.Work:
    """The search's work, and the sampled text's steps scored again."""
    n_prompt = len(context_ids(model, encode_prompt(model, state.text_prompt)))
    return cost.decoding_work(model, n_prompt, width, n_new) + sum(cost.steps_work(model, n_prompt, len(state.ids)),
                                                                   cost.Work())


@dataclass(frozen=True)
class Line:
    """One way's text: its tokens with their log-probabilities, its total and its score."""

    name: str
    tokens: tuple[tuple[str, str], ...]  # (token, its log-probability)
    total: str
    score: str
    best: bool = False


@dataclass(frozen=True)
class Node:
    x: int
    y: int
    label: str
    total: str
    fate: str  # 'prompt', 'kept', 'finished' or 'pruned'


@dataclass(frozen=True)
class Edge:
    x1: int
    y1: int
    x2: int
    y2: int
    fate: str


@dataclass(frozen=True)
class Tree:
    width: int
    height: int
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


@dataclass(frozen=True)
class DecodingPage:
    lines: tuple[Line, ...]
    tree: Tree
    level: int
    n_levels: int
    width: int
    length_penalty: str
    n_new: int
    worked: str  # the best beam's arithmetic against greedy's


def line(model: LanguageModel, name: str, beam: decoding.Beam, length_penalty: float, best: bool = False) -> Line:
    label = model.tokenizer.token_text
    return Line(name=name, tokens=tuple((label(i), fixed(p, 3)) for i, p in zip(beam.ids, beam.log_probs, strict=True)),
                total=fixed(beam.total, 3), score=fixed(beam.score(length_penalty), 3) if beam.ids else "–", best=best)


def scored(model: LanguageModel, prompt_ids: list[int], ids: tuple[int, ...]) -> decoding.Beam:
    """The stepper's text with each token's log-probability at T = 1 (what sampling drew from before its chain)."""
    beam = decoding.Beam((), ())
    for token in ids:
        beam = beam.then(token, float(decoding.log_softmax(model.logits([*prompt_ids, *beam.ids]))[token]))
    return beam


def tree(model: LanguageModel, search: decoding.Search, level: int) -> Tree:
    """The levels up to `level` as columns of nodes: each candidate placed under the beam it follows."""
    label = model.tokenizer.token_text
    nodes = [Node(x=0, y=0, label=_("the prompt"), total="0", fate="prompt")]
    place = {(): (0, 0)}  # a beam's ids -> where its node is
    edges = []
    rows = 1
    for depth, lvl in enumerate(search.levels[:level], start=1):
        x = depth * COLUMN
        for row, c in enumerate(lvl.candidates):
            parent = lvl.beams[c.beam].ids
            y = row * ROW
            nodes.append(Node(x=x, y=y, label=label(c.id), total=fixed(c.total, 2), fate=c.fate))
            px, py = place[parent]
            edges.append(Edge(px + NODE_W, py + NODE_H // 2, x, y + NODE_H // 2, c.fate))
            if c.fate == "kept":
                place[(*parent, c.id)] = (x, y)
        rows = max(rows, len(lvl.candidates))
    return Tree(width=level * COLUMN + NODE_W + 2, height=rows * ROW + 4, nodes=tuple(nodes), edges=tuple(edges))


def page(model: LanguageModel, state: State) -> DecodingPage:
    width, length_penalty, n_new = settings(PAGE_NEW)
    prompt_ids = context_ids(model, encode_prompt(model, state.text_prompt))
    search = decoding.beam_search(model, prompt_ids, width, n_new, length_penalty, eos_id=model.eos_id)
    greedy = decoding.greedy(model, prompt_ids, n_new, eos_id=model.eos_id)
    level = number("level", int, len(search.levels))
    if not 0 <= level <= len(search.levels):
        raise InvalidInput(N_("level must be a whole number from 0 to %(max)s, not %(value)s"),
                           max=len(search.levels), value=str(level))
    lines = [line(model, _("Greedy"), greedy, length_penalty)]
    lines += [line(model, _("Beam %(n)s", n=i), b, length_penalty, best=i == 1)
              for i, b in enumerate(search.finished, 1)]
    if state.ids:
        lines.append(line(model, _("Sampled (the stepper's text)"), scored(model, prompt_ids, state.ids),
                          length_penalty))
    best = search.best
    worked = _("Greedy's text: %(greedy)s = %(g_total)s. Beam search's best: %(best)s = %(b_total)s. The best "
               "beam's text is %(factor)s times as probable as greedy's (e to the power of the difference).",
               greedy=" + ".join(fixed(p, 3) for p in greedy.log_probs), g_total=fixed(greedy.total, 3),
               best=" + ".join(fixed(p, 3) for p in best.log_probs), b_total=fixed(best.total, 3),
               factor=fixed(2.718281828459045 ** (best.total - greedy.total), 2))
    return DecodingPage(lines=tuple(lines), tree=tree(model, search, level), level=level,
                        n_levels=len(search.levels), width=width, length_penalty=fixed(length_penalty, 2),
                        n_new=n_new, worked=worked)
