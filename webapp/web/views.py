"""The stepper's pages and fragments: show a state, step, go back, reset."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from ..inference import get_model, run_step
from .screen import build_screen
from .state import State, parse_state

bp = Blueprint("stepper", __name__)


def models():
    return current_app.extensions["models"]


@bp.app_context_processor
def model_menu():
    return {"models_list": list(models().values())}


def read_state() -> State:
    return parse_state(request.args, models(), current_app.config["DEFAULT_MODEL"])


def is_htmx() -> bool:
    """An htmx request wants fragments; a history restore (the browser's Back) wants the page."""
    headers = request.headers
    return headers.get("HX-Request") == "true" and headers.get("HX-History-Restore-Request") != "true"


def render_screen(state: State, shown=None, animate: bool = False):
    """The whole page, or for htmx the panels as out-of-band fragments."""
    screen = build_screen(models(), state, shown)
    template = "fragments.html" if is_htmx() else "page.html"
    response = current_app.make_response(render_template(template, screen=screen, animate=animate))
    response.headers["HX-Push-Url"] = url_for(".show", **state.query())
    response.vary.add("HX-Request")
    return response


def moved_to(state: State, shown=None, animate: bool = False):
    """After an action: fragments for htmx, else a redirect to the new state's own URL."""
    if is_htmx():
        return render_screen(state, shown, animate)
    return redirect(url_for(".show", **state.query()), code=303)


@bp.get("/")
def show():
    """Show the screen for the state in the query string."""
    return render_screen(read_state())


@bp.get("/step")
def step():
    """Take one step: draw r, pick a token, append it."""
    state = read_state()
    result = run_step(get_model(models(), state.model), state.prompt, state.ids, state.settings)
    return moved_to(state.with_ids((*state.ids, result.chosen.id)), shown=result, animate=True)


@bp.get("/back")
def back():
    """Remove the last generated token and show the step before."""
    state = read_state()
    return moved_to(state.with_ids(state.ids[:-1]))


@bp.get("/reset")
def reset():
    """Clear the generated tokens, keeping the prompt and settings."""
    return moved_to(read_state().with_ids(()))


@bp.get("/healthz")
def healthz():
    """Answer that the server is up."""
    return {"status": "ok"}
