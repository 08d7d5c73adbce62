"""The stepper's pages and fragments: show a state, step, go back, reset, choose, share, export."""

from __future__ import annotations

import io
from urllib.parse import urlsplit

import segno
from flask import Blueprint, current_app, redirect, render_template, request, url_for

from ..fetch import fetchable
from ..inference import get_model, run_step
from ..inference.derived.export import chain_to_csv, rows_to_csv, trace_to_dict
from ..inference.derived.vocab_search import search_vocab
from .screen import build_screen, n_rows
from .state import FORCED, SEEDED, SHARE_SAFE, InvalidInput, State, parse_search, parse_state, parse_token, state_model

bp = Blueprint("stepper", __name__)

LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")


def models():
    return current_app.extensions["models"]


@bp.app_context_processor
def model_menu():
    """The models to choose from, and those that `python -m webapp fetch-model NAME` would add."""
    return {"models_list": list(models().values()), "fetchable": fetchable(models())}


def read_state() -> State:
    return parse_state(request.args, models(), current_app.config["DEFAULT_MODEL"])


def is_htmx() -> bool:
    """An htmx request wants fragments; a history restore (the browser's Back) wants the page."""
    headers = request.headers
    return headers.get("HX-Request") == "true" and headers.get("HX-History-Restore-Request") != "true"


def share_url(state: State) -> str:
    """The screen's link for students: by the LAN address when the teacher is on localhost."""
    base = request.host_url
    if urlsplit(base).hostname in LOOPBACK and current_app.config.get("LAN_URL"):
        base = current_app.config["LAN_URL"]
    return base.rstrip("/") + state.url("/", safe=SHARE_SAFE)


def state_links(state: State):
    """A function for templates: link("stepper.show", at=3) is this state's URL with at=3 (None drops a key)."""
    paths: dict[str, str] = {}

    def link(endpoint: str, **changes) -> str:
        if endpoint not in paths:
            paths[endpoint] = url_for(endpoint)
        return state.url(paths[endpoint], **changes)

    return link


def render_screen(state: State, shown=None, animate: bool = False):
    """The whole page, or for htmx the panels as out-of-band fragments."""
    screen = build_screen(models(), state, shown)
    template = "fragments.html" if is_htmx() else "page.html"
    link = state_links(state)
    html = render_template(template, screen=screen, animate=animate and not screen.hidden,
                           share_url=share_url(state), link=link)
    response = current_app.make_response(html)
    response.headers["HX-Push-Url"] = link("stepper.show")
    return response


def moved_to(state: State, shown=None, animate: bool = False):
    """After an action: fragments for htmx, else a redirect to the new state's own URL."""
    if is_htmx():
        return render_screen(state, shown, animate)
    return redirect(state.url(url_for(".show")), code=303)


@bp.get("/")
def show():
    """Show the screen for the state in the query string."""
    return render_screen(read_state())


@bp.get("/step")
def step():
    """Take one step: draw r (or take the teacher's), pick a token, append it."""
    state = read_state()
    model = state_model(models(), state)
    result = run_step(model, state.prompt, state.ids, state.settings, r=state.next_r, n_rows=n_rows(state))
    source = SEEDED if state.next_r is None else state.next_r
    return moved_to(state.branched(len(state.ids), result.chosen.id, source), shown=result, animate=True)


@bp.get("/back")
def back():
    """Remove the last generated token and show the step before."""
    state = read_state()
    return moved_to(state.truncated(len(state.ids) - 1))


@bp.get("/reset")
def reset():
    """Clear the generated tokens, keeping the prompt and settings."""
    return moved_to(read_state().truncated(0))


@bp.get("/choose")
def choose():
    """Force a token at the shown step instead of the pick; what came after it is dropped."""
    state = read_state()
    token = parse_token(request.args, state_model(models(), state).tokenizer)
    i = len(state.ids) if state.shown is None else state.shown
    return moved_to(state.branched(i, token, FORCED))


@bp.get("/export.json")
def export_json():
    """Download every step of the text so far as JSON."""
    state = read_state()
    trace = trace_to_dict(state_model(models(), state), state.prompt, state.ids, state.sources, state.settings)
    response = current_app.json.response(trace)
    response.headers["Content-Disposition"] = 'attachment; filename="trace.json"'
    return response


@bp.get("/export.csv")
def export_csv():
    """Download the logits table on screen as CSV."""
    screen = build_screen(models(), read_state())
    response = current_app.make_response(rows_to_csv(screen.result))
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="logits-step-{screen.result.step}.csv"'
    return response


@bp.get("/export-chain.csv")
def export_chain_csv():
    """Download the sampler chain of the step on screen as CSV: each stage's figures, the range order, uncertainty."""
    screen = build_screen(models(), read_state())
    response = current_app.make_response(chain_to_csv(screen.result))
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="chain-step-{screen.result.step}.csv"'
    return response


@bp.get("/qr.svg")
def qr_code():
    """A QR code of this screen's link, for students' phones."""
    try:
        qr = segno.make(share_url(read_state()), error="l")
    except segno.DataOverflowError:
        raise InvalidInput("this screen's link is too long for a QR code; shorten the prompt") from None
    svg = io.BytesIO()
    qr.save(svg, kind="svg", scale=5, border=2, xmldecl=False, title="QR code of this screen's link")
    response = current_app.make_response(svg.getvalue())
    response.headers["Content-Type"] = "image/svg+xml"
    return response


@bp.get("/vocab")
def vocabulary():
    """Search the model's vocabulary: id, token and, where known, how often it occurred."""
    name, query = parse_search(request.args, current_app.config["DEFAULT_MODEL"])
    model = get_model(models(), name)
    entries, n_found = search_vocab(model, query)
    template = "panels/_vocab_results.html" if is_htmx() else "vocab.html"
    return render_template(template, model=model, query=query, entries=entries, n_found=n_found)


@bp.get("/healthz")
def healthz():
    """Answer that the server is up."""
    return {"status": "ok"}
