"""Models fetched while the server runs: picked up by the next page, without a restart.

`token-by-token fetch-model smollm2-135m` writes the model into the user's model folder (the folder:
app.config["USER_MODELS_DIR"], else user_models_dir()). Before a request, at most once a second
(LOOK_EVERY), ahead of the response cache, each server process looks there (a stat per model) for
the models it offers to fetch
(fetch.fetchable), loads each once, and then forgets the answers it kept, as their model menus are
out of date. The models dictionary is replaced, never changed in place, so a request that is
reading it meanwhile keeps a whole one.
"""

from __future__ import annotations

import copy
import threading
import time
from pathlib import Path

from flask import Flask

from ...fetch import SOURCES, fetchable
from ...inference import UnknownModel
from ...inference.errors import N_
from ...inference.machinery.registry import load_model
from ...inference.machinery.user_models import user_models_dir
from ..url.state import InvalidInput

FETCH_COMMAND = "token-by-token fetch-model"  # the console script pip installs; works from any folder
LOOK_EVERY = 1.0  # seconds between two looks: a stat per request would cost a class's every cached screen
_loading = threading.Lock()


def fetch_command(name: str) -> str:
    """The command that fetches a model: 'token-by-token fetch-model smollm2-135m'."""
    return f"{FETCH_COMMAND} {name}"


def pick_up(app: Flask) -> None:
    """Load any model fetched since start-up that this process does not have yet."""
    folder = Path(app.config.get("USER_MODELS_DIR") or user_models_dir())
    for name in fetchable(app.extensions["models"]):
        if not (folder / name / "config.json").is_file():
            continue
        with _loading:
            if name in app.extensions["models"]:
                continue  # another thread loaded it meanwhile
            try:
                model = load_model(folder / name)
            except Exception:  # noqa: BLE001 - a download still being written: try again next time
                app.logger.warning("could not load the fetched model in %s yet", folder / name)
                continue
            models = copy.copy(app.extensions["models"])  # the same kind of mapping (class_access.ModelShelf)
            models[model.name] = model
            app.extensions["models"] = models
            if "response_cache" in app.extensions:
                app.extensions["response_cache"].clear()  # every kept page has the old model menu


def register(app: Flask) -> None:
    """Look for fetched models before requests, ahead of the response cache (register this first)."""
    last_look = [-LOOK_EVERY]

    def look() -> None:
        now = time.monotonic()
        if now - last_look[0] >= LOOK_EVERY or app.testing:  # tests fetch and then ask at once
            last_look[0] = now
            pick_up(app)

    app.before_request(look)


def not_here(name: str, error: UnknownModel) -> InvalidInput | UnknownModel:
    """The error for a link to a model this server does not have: how to get it, if it can be fetched."""
    if name not in SOURCES:
        return error
    return InvalidInput(N_("this server does not have the model %(name)s yet. To get it, run %(command)s in a "
                           "terminal on the server's computer (it downloads about 100 MB), then reload this page."),
                        name=name, command=fetch_command(name))
