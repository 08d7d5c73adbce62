"""GET /decode: greedy, beam search and the stepper's sampled text side by side, with the tree of beams drawn on
the server and stepped through one level at a time (`level`), all in the URL like the stepper's state."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request, url_for

from ..serving.policy import Work, costs, from_query
from ..stages import decoding_view
from ..url.state import state_model
from .api import decode_work

bp = Blueprint("decode", __name__)


@bp.get("/decode")
@costs(Work.DECODE, reads=("width", "length_penalty", "max_new_tokens", "level"), estimate=decode_work)
def decode_page():
    state = from_query()
    model = state_model(current_app.extensions["models"], state)
    view = decoding_view.page(model, state)
    args = request.args.to_dict()

    def at(level: int) -> str:
        return url_for(".decode_page", **{**args, "level": str(level)})

    return render_template("decode.html", view=view, state=state, model_name=model.name,
                           previous=at(view.level - 1) if view.level > 0 else None,
                           next=at(view.level + 1) if view.level < view.n_levels else None,
                           stepper=state.url(url_for("stepper.show")))
