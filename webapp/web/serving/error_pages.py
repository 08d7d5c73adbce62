"""Turn bad input into a clear 400 (an error fragment, page or JSON), never a 500 with a trace.

A room store that is not answering is a 503 with Retry-After, said the same three ways, and logged
once per outage by the store's breaker (webapp/room/breaker.py), not once per request.
"""

from __future__ import annotations

from flask import Flask, g, render_template, request
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from ...inference import InferenceError
from ...inference.errors import N_
from ...room.store import StoreUnavailable
from ..i18n.translations import error_message
from ..i18n.translations import gettext as _

MAX_MESSAGE_CHARS = 240
# werkzeug's own descriptions of the errors it raises itself (a mistyped address, a POST to a page),
# marked here so that the catalogs translate them; the app's own aborts say more, in the page's language.
HTTP_MESSAGES = (
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_("The requested URL was not found on the server. If you entered the URL manually please check your "
       "spelling and try again."),
    N_("The method is not allowed for the requested URL."),
    N_("The data value transmitted exceeds the capacity limit."),
)


def brief(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Cut the middle out of a long message (one that quotes a long input), keeping how it ends.

    "there is no model named 'word word ... word'; the models are: a, b" keeps its head and its
    tail, "the models are: a, b", joined by " … ".
    """
    if len(message) <= limit:
        return message
    tail = limit // 3
    return message[: limit - tail - 3] + " … " + message[-tail:]


def wants_json(path: str) -> bool:
    """The JSON twin (/api/...) and the room's data (/room/CODE/results.json) answer errors in JSON; an export
    (/export.json) is a download from a page, which shows its error as a page."""
    return path.startswith("/api/") or (path.startswith("/room/") and path.endswith(".json"))


def asks_for_json() -> bool:
    """A script that asks for JSON (Accept: application/json) gets its error so: the lesson editor reading a
    file shows the message in its page. A browser's page, and htmx, ask for HTML."""
    return request.accept_mimetypes.best == "application/json"


def refuse_with_lead(lead: Markup) -> None:
    """Open this request's refusal with `lead` instead of the words for a screen ("Not changed:", "Could not show
    this screen:"): a vote's says what became of the vote ("Your vote was not counted:")."""
    g.refusal_lead = lead


def error_response(message: str, status: int, headers: dict | None = None):
    headers = dict(headers or {})
    message = brief(message)
    if wants_json(request.path) or asks_for_json():
        return {"error": message}, status, headers
    lead = g.get("refusal_lead")
    if request.headers.get("HX-Request") == "true":
        headers |= {"HX-Retarget": "#error", "HX-Reswap": "innerHTML"}
        return render_template("panels/_error_message.html", message=message, lead=lead), status, headers
    return render_template("error.html", message=message, back=sent_from(), lead=lead), status, headers


def sent_from() -> str | None:
    """The screen a refused form was sent from, if it names one of this site's (the Start a class room form's
    `from`): the error page links back to it. Another site's address, or a scheme, is not one."""
    try:
        path = request.form.get("from", "") if request.method == "POST" else ""
    except (HTTPException, ValueError):  # a body too large, or cut short: nothing to go back to
        return None
    if not path.startswith("/") or path.startswith(("//", "/\\")) or not path.isprintable():
        return None
    return path


def register(app: Flask) -> None:
    @app.errorhandler(InferenceError)
    def bad_input(e: InferenceError):
        return error_response(error_message(e), 400)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        allow = {"Allow": e.valid_methods and ", ".join(e.valid_methods)} if hasattr(e, "valid_methods") else {}
        return error_response(http_message(e), e.code or 500, allow)

    @app.errorhandler(StoreUnavailable)
    def store_unavailable(e: StoreUnavailable):
        message = _("the class room's store (where the room and its votes are kept) is not answering; "
                    "try again in a moment.")
        return error_response(message, 503, {"Retry-After": str(e.retry_seconds)})

    @app.errorhandler(Exception)
    def unexpected(e: Exception):
        app.logger.exception("unexpected error")
        return error_response(_("Something went wrong on the server; the screen was left as it was."), 500)


def http_message(e: HTTPException) -> str:
    """The error's description in the page's language (the app's own aborts are written in it already)."""
    return _(e.description) if e.description in HTTP_MESSAGES else e.description or e.name

