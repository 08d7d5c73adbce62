"""The JSON twin of the page: the same numbers, as data."""

from __future__ import annotations

from flask import Blueprint, current_app, request

from ..inference import get_model, run_step
from ..inference.derived.export import step_to_dict
from .state import parse_state

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/step")
def step():
    """Return the step after the given ids: logits, probabilities, ranges, r and the pick."""
    models = current_app.extensions["models"]
    state = parse_state(request.args, models, current_app.config["DEFAULT_MODEL"])
    model = get_model(models, state.model)
    result = run_step(model, state.prompt, state.ids, state.settings, r=state.next_r)
    result = result.showing([result.chosen.id])  # as the page shows the step once it is taken
    return step_to_dict(model, result, full=request.args.get("full") == "1")


@bp.get("/models")
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
