"""Security headers on every response, a bound on the URL's length, and the frame policy.

The page needs no inline script or style and no eval (htmx is configured for that in base.html),
so the Content-Security-Policy allows scripts and styles from this server only. Who may show the
app inside a frame is the one setting: FRAME_ANCESTORS, a list of CSP sources such as
"'self' https://*.school.example" (`python -m webapp --frame-ancestors ...`).
"""

from __future__ import annotations

import re

from flask import Flask, abort, request

from ..i18n.filters import thousands
from ..i18n.translations import gettext as _
from ..url.parse import check_prompt
from .vary import add_vary

# The longest query string the page can make: a 2,000-character prompt, percent-encoded (up to 12
# bytes a character), plus up to 1,023 ids of "%2C" and 4 digits, comes to about 31 KB. Twice that
# is refused (414, or 400 naming the prompt if that is what is too long). The server in front
# refuses what is longer still: waitress answers 431 beyond 256 KiB of request line and headers.
MAX_QUERY_BYTES = 64 * 1024
_CONTROL_BYTES = re.compile(rb"[\x00-\x1f\x7f]")

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}

_KEYWORDS = {"'self'", "'none'"}
_SCHEME = r"[a-zA-Z][a-zA-Z0-9+.\-]*:"
_HOST = r"(\*|(\*\.)?[a-zA-Z0-9\-]+(\.[a-zA-Z0-9\-]+)*|\[[0-9a-fA-F:.]+\])"
_SOURCE = re.compile(rf"^({_SCHEME}|({_SCHEME}//)?{_HOST}(:(\d{{1,5}}|\*))?(/[^\s;,']*)?)$")


def check_frame_ancestors(sources: str) -> str:
    """Return sources, normalised to single spaces, if it is a valid CSP frame-ancestors list.

    "'self'  https://*.school.example" -> "'self' https://*.school.example"; "'none'" -> "'none'";
    "x; script-src *" -> ValueError (a semicolon would start a new directive).
    """
    if any(not (c.isascii() and (c.isprintable() or c == "\t")) for c in sources):
        raise ValueError("frame ancestors must be printable ASCII on one line, e.g. 'self' https://school.example")
    words = sources.split()
    if not words:
        raise ValueError("frame ancestors must name at least one source, e.g. 'self' or 'none'")
    if "'none'" in words and len(words) > 1:
        raise ValueError("'none' cannot be combined with other frame ancestors")
    for word in words:
        if word not in _KEYWORDS and not _SOURCE.match(word):
            raise ValueError(
                f"{word!r} is not a frame source: use 'self', 'none', a scheme such as "
                "https:, or an origin such as https://*.school.example"
            )
    return " ".join(words)


def content_security_policy(frame_ancestors: str) -> str:
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors {frame_ancestors}"
    )


def frame_options(frame_ancestors: str) -> str | None:
    """X-Frame-Options for old browsers, where it can say the same as frame-ancestors."""
    return {"'self'": "SAMEORIGIN", "'none'": "DENY"}.get(frame_ancestors)


def check_requests(app: Flask) -> None:
    """Refuse a request whose body or address is too big, or whose address is not UTF-8, before anything
    reads it. Register before the answer cache: such a request is never answered from it."""

    @app.before_request
    def check_the_request_size():
        """No page sends a body: one over MAX_CONTENT_LENGTH is refused before anything reads it,
        whichever server runs the app and whatever the route."""
        length, limit = request.content_length, app.config["MAX_CONTENT_LENGTH"]
        if length is not None and limit is not None and length > limit:
            abort(
                413,
                description=_(
                    "the request body is too large (%(n)s bytes; the limit is %(limit)s).",
                    n=thousands(length),
                    limit=thousands(limit),
                ),
            )

    @app.before_request
    def check_the_query_string():
        query = request.query_string
        try:  # werkzeug decodes the raw query strictly: a stray byte such as 0xFF would be a 500
            query.decode("utf-8")
        except UnicodeDecodeError:
            abort(
                400,
                description=_(
                    "the address has characters that are not UTF-8 text; "
                    "type the prompt in the box instead of the address bar."
                ),
            )
        if _CONTROL_BYTES.search(query):  # a browser sends them escaped (%0D); raw, a redirect could not carry them
            abort(
                400,
                description=_(
                    "the address has control characters that are not escaped; "
                    "type the prompt in the box instead of the address bar."
                ),
            )
        if len(query) > MAX_QUERY_BYTES:
            check_prompt(request.args.get("prompt", ""))  # the usual culprit: say so, as reading the state would
            abort(
                414,
                description=_(
                    "the address is too long (%(n)s bytes; the limit is %(limit)s). Shorten the prompt or press Reset.",
                    n=thousands(len(query)),
                    limit=thousands(MAX_QUERY_BYTES),
                ),
            )


def register(app: Flask) -> None:
    """Check FRAME_ANCESTORS now (a bad value stops start-up), then put the headers on every response."""
    frame_ancestors = check_frame_ancestors(app.config["FRAME_ANCESTORS"])
    headers = {"Content-Security-Policy": content_security_policy(frame_ancestors), **SECURITY_HEADERS}
    if xfo := frame_options(frame_ancestors):
        headers["X-Frame-Options"] = xfo

    names = {name.lower(): name for name in headers}

    @app.after_request
    def security_headers(response):
        add_vary(response, "HX-Request")  # most URLs answer a page or a fragment by this header
        present = {name.lower() for name, _value in response.headers}  # a header the answer set stays
        response.headers.extend([(name, headers[name]) for key, name in names.items() if key not in present])
        return response
