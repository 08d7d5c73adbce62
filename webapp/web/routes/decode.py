"""GET /decode: greedy, beam search and the stepper's sampled text side by side, with the tree of beams drawn on
the server and stepped through one level at a time (`level`), all in the URL like the stepper's state."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request, url_for

from ...inference.errors import InferenceError
from ..i18n.translations import gettext as _
from ..serving.policy import Work, costs, from_query
from ..stages import decoding_view
from ..url.state import state_model

bp = Blueprint("decode", __name__)


def budget_seconds() -> float:
    """The work budget a request may ask for (serving/budget.py)."""
    return current_app.extensions["budget"].seconds


def page_work():
    """The page's searches for the budget, before they run (none for a bad request: the view says why)."""
    models = current_app.extensions["models"]
    try:
        state = from_query()
        model = state_model(models, state)
        width, _penalty, n_new, _shortened = decoding_view.page_settings(model, state, models, budget_seconds())
    except InferenceError:
        return None
    work = decoding_view.work(model, state, width, n_new) + decoding_view.example_work(models)
    return work, _("greedy and beam search")


@bp.get("/decode")
@costs(Work.DECODE, reads=("width", "length_penalty", "max_new_tokens", "level"), estimate=page_work)
def decode_page():
    state = from_query()
    model = state_model(current_app.extensions["models"], state)
    view = decoding_view.page(model, state, current_app.extensions["models"], budget_seconds())
    args = request.args.to_dict()

    def at(level: int) -> str:
        return url_for(".decode_page", **{**args, "level": str(level)})

    kept = {k: v for k, v in args.items() if k not in ("width", "length_penalty", "max_new_tokens", "level")}
    return render_template("decode.html", view=view, state=state, model_name=model.name, kept=kept,
                           example=url_for(".decode_page", **view.example.query) if view.example else None,
                           previous=at(view.level - 1) if view.level > 0 else None,
                           next=at(view.level + 1) if view.level < view.n_levels else None,
                           stepper=state.url(url_for("stepper.show")))
