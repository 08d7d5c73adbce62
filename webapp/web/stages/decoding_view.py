"""The decoding page: greedy, beam search and the stepper's sampled text side by side, and the tree of beams.

Every figure is computed here from the search (inference/decoding.py); the template only draws. The tree is one
column per step: the prompt first, then each step's candidates (each beam followed by its likeliest tokens), the
kept ones going on to the next column, the pruned ones greyed, the finished ones (an end-of-sequence) marked.
"""

from __future__ import annotations

import math
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
# the example every course wants: greedy's first token leads to a less probable text than beam search finds
EXAMPLE = {"model": "austen-transformer", "prompt": "We had", "width": 2, "max_new_tokens": 3}
PAGE_NEW = 6  # the page's default: a tree a projector can show
PRESENT_LEVELS = 3  # the projector shows the last three steps up to the one shown, in type the back row reads
COLUMN = 170  # the tree's geometry, in SVG units
ROW = 26
NODE_W = 150
NODE_H = 22
LABEL_CHARS = 12  # a node's token, cut with "…" beyond this, so that it never runs into the total beside it


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


def page_settings(model: LanguageModel, state: State, models, budget_seconds: float) -> tuple[int, float, int, bool]:
    """The page's settings. Without max_new_tokens in the query: the most new tokens, up to PAGE_NEW, whose work
    (with the example's) fits the budget, and whether that is fewer than PAGE_NEW (SmolLM2's beams cost more)."""
    width, length_penalty, n_new = settings(PAGE_NEW)
    if request.args.get("max_new_tokens", "").strip():
        return width, length_penalty, n_new, False
    extra = example_work(models).seconds
    fits = [n for n in range(1, PAGE_NEW + 1) if work(model, state, width, n).seconds + extra <= budget_seconds]
    n_new = max(fits, default=1)
    return width, length_penalty, n_new, n_new < PAGE_NEW


def work(model: LanguageModel, state: State, width: int, n_new: int) -> cost.Work:
    """The search's work, and the sampled text's steps scored again (the example's search is counted by the page)."""
    n_prompt = len(context_ids(model, encode_prompt(model, state.text_prompt)))
    return cost.decoding_work(model, n_prompt, width, n_new) + sum(cost.steps_work(model, n_prompt, len(state.ids)),
                                                                   cost.Work())


def example_work(models) -> cost.Work:
    """The guide's example: its own small search on the model it names."""
    model = models.get(EXAMPLE["model"])
    if model is None:
        return cost.Work()
    n_prompt = len(context_ids(model, encode_prompt(model, EXAMPLE["prompt"])))
    return cost.decoding_work(model, n_prompt, EXAMPLE["width"], EXAMPLE["max_new_tokens"])


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
class Example:
    """The guide's example, its arithmetic written out from the model's own figures."""

    query: dict  # the page's settings that show it
    sentences: tuple[str, ...]


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
    example: Example | None
    shows_example: bool  # the page is the example's own
    has_end: bool  # a text in the tree ended with the end-of-sequence token
    length_penalty_value: str  # as the form's field holds it
    shortened: bool  # fewer new tokens than the page's default, to fit the server's work budget


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


def tree(model: LanguageModel, search: decoding.Search, level: int, first: int = 0) -> Tree:
    """Levels first.. up to `level` as columns of nodes, each candidate placed under the beam it follows. The first
    column is the prompt, or, from a later level, the beams that level started from ("… deal")."""

    def label(token_id: int) -> str:
        text = model.tokenizer.token_text(token_id)
        return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"

    if first == 0:
        starts = [(0, (), _("the prompt"), "0")]
    else:
        starts = [(y * ROW, b.ids, "… " + label(b.ids[-1]), fixed(b.total, 2))
                  for y, b in enumerate(search.levels[first].beams)]
    nodes = [Node(x=0, y=y, label=text, total=total, fate="prompt" if first == 0 else "kept")
             for y, _ids, text, total in starts]
    place = {ids: (0, y) for y, ids, _text, _total in starts}  # a beam's ids -> where its node is
    edges = []
    rows = len(starts)
    for depth, lvl in enumerate(search.levels[first:level], start=1):
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
    n_columns = level - first
    return Tree(width=n_columns * COLUMN + NODE_W + 2, height=rows * ROW + 4, nodes=tuple(nodes), edges=tuple(edges))


def words(model: LanguageModel, beam: decoding.Beam) -> str:
    """A text's tokens, quoted, as one piece of text."""
    return "“" + " ".join(model.tokenizer.token_text(i) for i in beam.ids) + "”"


def sum_of(log_probs) -> str:
    """-2.251 + (-1.833) + (-0.384): the sum written out."""
    return " + ".join(fixed(p, 3) if n == 0 or p >= 0 else f"({fixed(p, 3)})" for n, p in enumerate(log_probs))


def example(models) -> Example | None:
    """On the model EXAMPLE names: greedy's first token against beam search's, and the two texts' arithmetic."""
    model = models.get(EXAMPLE["model"])
    if model is None:
        return None
    prompt_ids = context_ids(model, encode_prompt(model, EXAMPLE["prompt"]))
    n_new, width = EXAMPLE["max_new_tokens"], EXAMPLE["width"]
    g = decoding.greedy(model, prompt_ids, n_new, eos_id=model.eos_id)
    b = decoding.beam_search(model, prompt_ids, width, n_new, eos_id=model.eos_id).best
    if b.ids[0] == g.ids[0] or b.total <= g.total:
        return None  # a model trained again may no longer make the point (tests/web/test_decode_page.py checks)
    label = model.tokenizer.token_text
    sentences = (
        _("On %(model)s, after “%(prompt)s”: greedy takes “%(g)s”, the most probable first token (log-probability "
          "%(lg)s, p = %(pg)s), rather than “%(b)s” (log-probability %(lb)s, p = %(pb)s).", model=model.name,
          prompt=EXAMPLE["prompt"], g=label(g.ids[0]), lg=fixed(g.log_probs[0], 3),
          pg=fixed(math.exp(g.log_probs[0]), 3), b=label(b.ids[0]), lb=fixed(b.log_probs[0], 3),
          pb=fixed(math.exp(b.log_probs[0]), 3)),
        _("Greedy's text %(text)s: %(sum)s = %(total)s.", text=words(model, g), sum=sum_of(g.log_probs),
          total=fixed(g.total, 3)),
        _("Beam search with width %(width)s keeps “%(b)s” as a second beam and finds %(text)s: %(sum)s = %(total)s.",
          width=width, b=label(b.ids[0]), text=words(model, b), sum=sum_of(b.log_probs), total=fixed(b.total, 3)),
        _("%(total_b)s − (%(total_g)s) = %(diff)s, and e to the power %(diff)s is %(factor)s: %(best)s is %(factor)s "
          "times as probable as %(greedy)s, though its first token was less probable.", total_b=fixed(b.total, 3),
          total_g=fixed(g.total, 3), diff=fixed(b.total - g.total, 3), factor=fixed(math.exp(b.total - g.total), 1),
          best=words(model, b), greedy=words(model, g)),
    )
    return Example(query={k: str(v) for k, v in EXAMPLE.items()}, sentences=sentences)


def page(model: LanguageModel, state: State, models, budget_seconds: float) -> DecodingPage:
    """The page for the model and state; `models` for the guide's example, `budget_seconds` for its default length."""
    width, length_penalty, n_new, shortened = page_settings(model, state, models, budget_seconds)
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
    shown = example(models)
    best = search.best
    worked = _("Greedy's text: %(greedy)s = %(g_total)s. Beam search's best: %(best)s = %(b_total)s. The best "
               "beam's text is %(factor)s times as probable as greedy's (e to the power of the difference).",
               greedy=sum_of(greedy.log_probs), g_total=fixed(greedy.total, 3),
               best=sum_of(best.log_probs), b_total=fixed(best.total, 3),
               factor=fixed(math.exp(best.total - greedy.total), 2))
    these = {"model": model.name, "prompt": state.text_prompt, "width": width, "max_new_tokens": n_new}
    return DecodingPage(lines=tuple(lines), level=level,
                        tree=tree(model, search, level, max(0, level - PRESENT_LEVELS) if state.present else 0),
                        n_levels=len(search.levels), width=width, length_penalty=fixed(length_penalty, 2),
                        n_new=n_new, worked=worked, example=shown,
                        shows_example=shown is not None and these == EXAMPLE,
                        has_end=any(c.fate == "finished" for lvl in search.levels for c in lvl.candidates),
                        length_penalty_value=f"{length_penalty:g}", shortened=shortened)
