"""The Vary header: which request headers choose between the answers one URL gives."""

from __future__ import annotations

from werkzeug.wrappers import Response


def add_vary(response: Response, name: str) -> None:
    """Add name to the response's Vary header, once: 'HX-Request' -> 'HX-Request, Accept-Language'.

    What `response.vary.add(name)` does, without parsing the header into a set and writing it back
    (every answer passes here two or three times).
    """
    vary = response.headers.get("Vary")
    if not vary:
        response.headers["Vary"] = name
    elif name.lower() not in {part.strip().lower() for part in vary.split(",")}:
        response.headers["Vary"] = f"{vary}, {name}"
