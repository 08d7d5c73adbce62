"""Whether a request comes from htmx: it then wants the panels as fragments, not the whole page."""

from __future__ import annotations

from flask import request


def is_htmx() -> bool:
    """An htmx request wants fragments; a history restore (the browser's Back) wants the page."""
    headers = request.headers
    return headers.get("HX-Request") == "true" and headers.get("HX-History-Restore-Request") != "true"
