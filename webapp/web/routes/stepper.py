"""The stepper's pages and fragments: show a state, step, go back, reset, choose, share, export."""

from __future__ import annotations

from dataclasses import replace

import segno
from flask import Blueprint, current_app, redirect, render_template, request, url_for

from ...inference import UnknownModel, get_model
from ...inference.derived.export import chain_to_csv, rows_to_csv, run_to_csv, trace_to_dict
from ...inference.derived.vocab_search import search_vocab
from ...inference.errors import N_
from ..i18n.translations import DEFAULT_LANGUAGE, current_language
from ..serving import fetched
from ..serving.budget import budget_seconds, within_deadline
from ..serving.htmx import is_htmx
from ..serving.policy import Cache, Extra, Work, answers_with_screen, costs, from_query
from ..stages import chrome, folds, panels
from ..stages.page import screen_context
from ..stages.screen import build_screen, n_rows, take_step
from ..url import share
from ..url.links import public_url, share_url
from ..url.parse import model_name, parse_search, parse_token
from ..url.state import FORCED, InvalidInput, State, state_model

bp = Blueprint("stepper", __name__)


def models():
    return current_app.extensions["models"]


bp.add_app_template_global(chrome.languages_here)  # the language switcher of a page without a screen


def read_state() -> State:
    """The request's state; a link to a model this server does not have says how to get it.

    A language the browser chose (no `lang=` in the URL) goes into the state unless it is English,
    so that the screen's links keep it; an English screen's links stay as they always were.
    """
    try:
        state = from_query()  # read once: the answer cache and the work budget have read it already
    except UnknownModel as e:  # fetched.register has already looked for one fetched meanwhile
        raise fetched.not_here(model_name(request.args, current_app.config["DEFAULT_MODEL"]), e) from None
    language = current_language()
    return state if state.lang or language == DEFAULT_LANGUAGE else replace(state, lang=language)


def render_screen(state: State, step=None, animate: bool = False, asked: State | None = None):
    """The whole page, or for htmx the panels that can differ from the screen's as out-of-band fragments.

    `asked` is the state the request carried (the screen's, for an action), if not `state` itself.
    """
    screen = build_screen(models(), state, step)
    template = "fragments.html" if is_htmx() else "page.html"
    sent = panels.panels_to_send(request.args.get("shown"), asked or state, state)
    html = render_template(
        template,
        **screen_context(screen),
        animate=animate and not screen.hidden,
        panels=panels.templates_of(sent),
    )
    response = current_app.make_response(html)
    response.headers["HX-Push-Url"] = public_url(state)
    response.headers["X-History-Entry"] = state.history_entry  # the same entry: classroom.js replaces it
    return response


def moved_to(state: State, asked: State, step=None, animate: bool = False):
    """After an action: fragments for htmx, else a redirect to the new state's own URL.

    A hidden pick is shown where it was taken, without a redirect: the address that names it
    would give the answer away (see public_url).
    """
    if answers_with_screen(state):
        return render_screen(state, step, animate, asked)
    return redirect(state.url(url_for(".show")), code=303)


def back_from(state: State) -> State:
    """Back: the text without its last token, showing the step before."""
    return state.truncated(len(state.ids) - 1)


def reset_from(state: State) -> State:
    """Reset: no generated tokens, the prompt and settings kept."""
    return state.truncated(0)


def chosen_from(state: State) -> State:
    """Choose: the token in the query at the step on screen instead of the pick; what came after it is dropped."""
    token = parse_token(request.args, state_model(models(), state).tokenizer)
    i = len(state.ids) if state.on_screen is None else state.on_screen
    return state.branched(i, token, FORCED)


# `shown`: what the screen shows of a few panels, which an htmx answer then leaves out (panels.py)
@bp.get("/")
@costs(Work.SCREEN, cache=Cache.SHARED, reads=("shown",))
def show():
    """Show the screen for the state in the query string."""
    return render_screen(read_state())


@bp.get("/step")
@costs(Work.STEP, cache=Cache.SHARED, reads=("shown",))
def step():
    """Take one step: draw r (or take the teacher's), pick a token, append it."""
    asked = read_state()
    state, result = take_step(models(), asked)
    return moved_to(state, asked, step=result, animate=True)


@bp.get("/back")
@costs(Work.ACTION, moves_to=back_from, cache=Cache.SHARED, reads=("shown",))
def back():
    """Remove the last generated token and show the step before."""
    state = read_state()
    return moved_to(back_from(state), state)


@bp.get("/reset")
@costs(Work.ACTION, moves_to=reset_from, cache=Cache.SHARED, reads=("shown",))
def reset():
    """Clear the generated tokens, keeping the prompt and settings."""
    state = read_state()
    return moved_to(reset_from(state), state)


@bp.get("/choose")
@costs(Work.ACTION, moves_to=chosen_from, cache=Cache.SHARED, reads=("token", "shown"))
def choose():
    """Force a token at the step on screen instead of the pick; what came after it is dropped."""
    state = read_state()
    return moved_to(chosen_from(state), state)


@bp.get("/fold/<name>")
@costs(Work.SCREEN, cache=Cache.SHARED)
def fold(name: str):
    """One folded section of the screen (a worked example, the chart's numbers): its body for htmx, else a page."""
    section = folds.find(name)
    state = read_state()
    screen = build_screen(models(), state)
    if not folds.on_screen(name, screen):
        raise InvalidInput(folds.refusal(name), name=name)
    context = screen_context(screen)  # one screen's views, for the fold and its page
    if is_htmx():
        return folds.render_fold(section, "body", **context)
    body = folds.render_fold(section, "open", **context)
    return render_template("fold.html", body=body, **context)


@bp.get("/export.json")
@costs(Work.EXPORT, cache=Cache.SHARED)
def export_json():
    """Download every step of the text so far as JSON."""
    state = read_state()
    trace = trace_to_dict(
        state_model(models(), state),
        state.text_prompt,
        state.ids,
        state.settings,
        given_rs=state.given_rs,
        forced=state.forced,
        n_rows=n_rows(state),
        seconds=budget_seconds(),
        go_on=within_deadline,
    )
    response = current_app.json.response(trace)
    response.headers["Content-Disposition"] = 'attachment; filename="trace.json"'
    return response


@bp.get("/export.csv")
@costs(Work.SCREEN, extras=Extra.NONE, cache=Cache.SHARED)
def export_csv():
    """Download the logits table on screen as CSV."""
    screen = build_screen(models(), read_state())
    response = current_app.make_response(rows_to_csv(screen.result, taken=screen.taken))
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="logits-step-{screen.result.step}.csv"'
    return response


@bp.get("/export-chain.csv")
@costs(Work.SCREEN, extras=Extra.NONE, cache=Cache.SHARED)
def export_chain_csv():
    """Download the sampler chain of the step on screen as CSV: each stage's figures, the range order, uncertainty."""
    screen = build_screen(models(), read_state())
    response = current_app.make_response(chain_to_csv(screen.result))
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="chain-step-{screen.result.step}.csv"'
    return response


@bp.get("/export-run.csv")
@costs(Work.EXPORT, cache=Cache.SHARED)
def export_run_csv():
    """Download the whole run as CSV: one line per generated token, with its r, how it was picked, the settings."""
    state = read_state()
    model = state_model(models(), state)
    csv_text = run_to_csv(
        model,
        state.text_prompt,
        state.ids,
        state.settings,
        given_rs=state.given_rs,
        forced=state.forced,
        seconds=budget_seconds(),
        go_on=within_deadline,
    )
    response = current_app.make_response(csv_text)
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = 'attachment; filename="run.csv"'
    return response


@bp.get("/qr.svg")
@costs(Work.NONE, cache=Cache.SHARED)
def qr_code():
    """A QR code of this screen's link, for students' phones."""
    try:
        return share.qr_code(share_url(read_state()), title="QR code of this screen's link")
    except segno.DataOverflowError:
        raise InvalidInput(N_("this screen's link is too long for a QR code; shorten the prompt")) from None


@bp.get("/vocab")
@costs(Work.NONE, cache=Cache.SHARED, state=None, reads=("model", "q"))
def vocabulary():
    """Search the model's vocabulary: id, token and, where known, how often it occurred."""
    name, query = parse_search(request.args, current_app.config["DEFAULT_MODEL"])
    model = get_model(models(), name)
    entries, n_found = search_vocab(model, query)
    template = "panels/_vocab_results.html" if is_htmx() else "vocab.html"
    return render_template(template, model=model, query=query, entries=entries, n_found=n_found)


@bp.get("/healthz")
@costs(Work.NONE)
def healthz():
    """Answer that the server is up."""
    return {"status": "ok"}
