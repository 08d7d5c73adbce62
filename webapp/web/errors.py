"""Turn bad input into a clear 400 (an error fragment, page or JSON), never a 500 with a trace."""

from __future__ import annotations

from flask import Flask, render_template, request
from werkzeug.exceptions import HTTPException

from ..inference import InferenceError

MAX_MESSAGE_CHARS = 240


def brief(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Cut the middle out of a long message (one that quotes a long input), keeping how it ends.

    "there is no model named 'word word ... word'; the models are: a, b" keeps its head and its
    tail, "the models are: a, b", joined by " … ".
    """
    if len(message) <= limit:
        return message
    tail = limit // 3
    return message[: limit - tail - 3] + " … " + message[-tail:]


def error_response(message: str, status: int, headers: dict | None = None):
    headers = dict(headers or {})
    message = brief(message)
    if request.path.startswith("/api/"):
        return {"error": message}, status, headers
    if request.headers.get("HX-Request") == "true":
        headers |= {"HX-Retarget": "#error", "HX-Reswap": "innerHTML"}
        return render_template("panels/_error_message.html", message=message), status, headers
    return render_template("error.html", message=message), status, headers


def register(app: Flask) -> None:
    @app.errorhandler(InferenceError)
    def bad_input(e: InferenceError):
        return error_response(str(e), 400)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        allow = {"Allow": e.valid_methods and ", ".join(e.valid_methods)} if hasattr(e, "valid_methods") else {}
        return error_response(e.description or e.name, e.code or 500, allow)

    @app.errorhandler(Exception)
    def unexpected(e: Exception):
        app.logger.exception("unexpected error")
        return error_response("Something went wrong on the server; the screen was left as it was.", 500)
