"""The app's paths, each built once per request: a Step's panels ask for the path of '/' some forty times.

url_for builds a path from the app's routes each time it is called (about 5 µs). A path without
values (`url_for('stepper.show')` -> '/') is the same for the whole request, so the templates' url_for
remembers it for the request; a call with values (a filename, a room's code) is built as before.
"""

from __future__ import annotations

from flask import Flask, g, url_for


def path_for(endpoint: str) -> str:
    """url_for(endpoint), built once per request: 'stepper.show' -> '/'."""
    paths = g.get("paths")
    if paths is None:
        paths = g.paths = {}
    path = paths.get(endpoint)
    if path is None:
        path = paths[endpoint] = url_for(endpoint)
    return path


def template_url_for(endpoint: str, **values) -> str:
    """The templates' url_for: a path without values from path_for, any other as url_for builds it."""
    return url_for(endpoint, **values) if values else path_for(endpoint)


def register(app: Flask) -> None:
    app.jinja_env.globals["url_for"] = template_url_for
