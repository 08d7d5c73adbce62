"""The JSON twin of the page: the same numbers, as data."""

from __future__ import annotations

import math

from flask import Blueprint, current_app, request

from ...inference import InferenceError, decoding, run_step_table
from ...inference.derived.export import step_to_dict
from ...inference.derived.inside import BigramView
from ...inference.errors import N_
from ...inference.machinery import cost
from ...inference.step import context_ids, encode_prompt
from ..i18n.translations import gettext as _
from ..serving.policy import Cache, Extra, Work, costs, from_query
from ..stages.inside_numbers import build_numbers
from ..url.state import InvalidInput, state_model

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/step")
@costs(Work.STEP, extras=Extra.NONE, cache=Cache.SHARED, reads=("full",))
def step():
    """Return the step after the given ids: logits, probabilities, ranges, r and the pick."""
    models = current_app.extensions["models"]
    state = from_query()
    model = state_model(models, state)
    result = run_step_table(model, state.text_prompt, state.ids, state.settings, r=state.next_r)
    result = result.showing([result.chosen.id])  # as the page shows the step once it is taken
    return step_to_dict(model, result, full=request.args.get("full") == "1")


@bp.get("/inside")
@costs(Work.STEP, extras=Extra.WINDOW, cache=Cache.SHARED)
def inside():
    """Return the panel's numbers: neighbours, attention per layer and head, and the lens, for the step after ids."""
    models = current_app.extensions["models"]
    state = from_query()
    model = state_model(models, state)
    result = run_step_table(model, state.text_prompt, state.ids, state.settings, r=state.next_r)
    p = build_numbers(model, result, state)
    v = p.view
    if isinstance(v, BigramView):
        return {"model": v.model, "layers": 0, "prev_id": v.prev_id, "row_total": v.row_total, "k": v.k,
                "followers": [{"id": i, "count": c} for i, c in zip(v.ids, v.counts, strict=True)],
                "n_seen": v.n_seen}
    return {
        "model": v.model, "layers": v.n_layer, "n_head": v.n_head, "n_head_kv": v.n_head_kv, "ids": list(v.ids),
        "window_start": v.window_start, "picked": v.picked_id,
        "near": {"position": p.near, "id": p.near_id,
                 "neighbours": [{"id": n.id, "token": n.token, "similarity": n.similarity}
                                for n in p.neighbours(model)]},
        "attention": [[w[h, -1].tolist() for h in range(v.n_head)] for w in v.attention],
        "head": {"layer": p.layer, "head": p.head, "weights": v.attention[p.layer - 1][p.head].tolist()},
        "lens": [{"layer": row.layer, "ids": list(row.ids), "probs": list(row.probs), "logits": list(row.logits),
                  "picked_rank": row.picked_rank, "picked_prob": row.picked_prob} for row in v.lens],
    }


@bp.get("/models")
@costs(Work.NONE, cache=Cache.SHARED, state=None)
def list_models():
    """List the models with their vocabulary and context sizes."""
    models = current_app.extensions["models"]
    return {
        "default": current_app.config["DEFAULT_MODEL"],
        "models": [
            {"name": m.name, "description": m.description, "n_vocab": m.n_vocab, "n_ctx": m.n_ctx}
            for m in models.values()
        ],
    }


MAX_WIDTH = 8
MAX_NEW = 20


def decode_settings() -> tuple[int, float, int]:
    """The search's width (2 to 8), length penalty (from -2 to 5) and most new tokens (1 to 20), from the query."""
    width = number("width", int, 4)
    length_penalty = number("length_penalty", float, 1.0)
    n_new = number("max_new_tokens", int, 10)
    if not 1 <= width <= MAX_WIDTH:
        raise InvalidInput(N_("width must be a whole number from 1 to %(max)s, not %(value)s"), max=MAX_WIDTH,
                           value=str(width))
    if not -2 <= length_penalty <= 5:
        raise InvalidInput(N_("length_penalty must be from -2 to 5, not %(value)s"), value=str(length_penalty))
    if not 1 <= n_new <= MAX_NEW:
        raise InvalidInput(N_("max_new_tokens must be a whole number from 1 to %(max)s, not %(value)s"), max=MAX_NEW,
                           value=str(n_new))
    return width, length_penalty, n_new


def number(name: str, kind, default):
    text = request.args.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise InvalidInput(N_("%(name)s must be a number, not %(value)s"), name=name, value=repr(text[:40])) from None
    if not math.isfinite(value):
        raise InvalidInput(N_("%(name)s must be a finite number, not %(value)s"), name=name, value=repr(text[:40]))
    return value


def decode_work():
    """The search's work for the budget, before it runs (none for a bad request: the view says why)."""
    try:
        state = from_query()
        model = state_model(current_app.extensions["models"], state)
        width, _penalty, n_new = decode_settings()
    except InferenceError:
        return None
    n_prompt = len(context_ids(model, encode_prompt(model, state.prompt)))
    return cost.decoding_work(model, n_prompt, width, n_new), _("greedy and beam search")


@bp.get("/decode")
@costs(Work.DECODE, cache=Cache.SHARED, reads=("width", "length_penalty", "max_new_tokens"), estimate=decode_work)
def decode():
    """Greedy and beam search from the prompt, at T = 1 without truncation: every beam, every level's candidates."""
    models = current_app.extensions["models"]
    state = from_query()
    model = state_model(models, state)
    width, length_penalty, n_new = decode_settings()
    prompt_ids = context_ids(model, encode_prompt(model, state.text_prompt))
    eos_id = getattr(model, "eos_id", None)  # the Austen models have none: their texts run to max_new_tokens
    search = decoding.beam_search(model, prompt_ids, width, n_new, length_penalty, eos_id)
    labels = model.tokenizer.token_text

    def beam(b: decoding.Beam) -> dict:
        return {"ids": list(b.ids), "tokens": [labels(i) for i in b.ids], "log_probs": list(b.log_probs),
                "total": b.total, "score": b.score(length_penalty), "ended": b.ended}

    return {
        "model": model.name, "prompt": state.text_prompt, "prompt_ids": prompt_ids, "width": width,
        "length_penalty": length_penalty, "max_new_tokens": n_new, "eos_id": eos_id, "temperature": 1.0,
        "truncation": None,
        "greedy": beam(decoding.greedy(model, prompt_ids, n_new, eos_id)),
        "beams": [beam(b) for b in search.finished],
        "levels": [{"beams": [list(b.ids) for b in level.beams],
                    "candidates": [{"beam": c.beam, "id": c.id, "token": labels(c.id), "log_prob": c.log_prob,
                                    "total": c.total, "fate": c.fate} for c in level.candidates]}
                   for level in search.levels],
    }
