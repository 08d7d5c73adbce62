"""Turn bad input into a clear 400 (an error fragment, page or JSON), never a 500 with a trace."""

from __future__ import annotations

from flask import Flask, render_template, request
from werkzeug.exceptions import HTTPException

from ..inference import InferenceError

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def error_response(message: str, status: int, headers: dict | None = None):
    headers = dict(headers or {})
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

    @app.after_request
    def security_headers(response):
        csp = (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            f"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors {app.config['FRAME_ANCESTORS']}"
        )
        response.headers.setdefault("Content-Security-Policy", csp)
        response.vary.add("HX-Request")  # most URLs answer a page or a fragment by this header
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response
