"""Where a class model's sentences are kept, and how the app finds its model by name.

A class model is named in URLs as 'class:' and the id of its sentences' file (inference/class_text.py),
kept in the room store's shelf of texts: a room's sentences for as long as a room is kept after its last
change (ROOM_IDLE_SECONDS after the model was last opened), a pasted text for CLASS_KEEP_SECONDS after it was
last opened. A room's model can be saved as its file and opened again at /build. The store keeps at most
CLASS_MAX_KEPT files of at most 64 KB (a few MB in all), and one network may keep CLASS_KEEPS_PER_HOUR
new ones an hour (the same text again costs nothing).

The app's models (app.extensions["models"]) are a ModelShelf: the bundled models by name, and any
'class:ID' read from the store on demand, once per request, and counted once per process.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from flask import Flask, abort, current_app, g

from ...inference.class_bigram import ClassBigram
from ...inference.class_text import ID_CHARS, MODEL_PREFIX, ClassText, is_class_model, parse
from ...inference.errors import N_, UnknownModel
from ..classroom import room_access as access
from ..i18n.translations import gettext as _

CLASS = MODEL_PREFIX
DEFAULTS = {
    "CLASS_MAX_KEPT": 1000,  # at most 64 KB each: 64 MB at worst
    "CLASS_KEEP_SECONDS": 90 * 86400,  # a term
    "CLASS_KEEPS_PER_HOUR": 60,
}
COUNTED_PER_PROCESS = 32  # models counted and kept by each process: a few hundred KB each at most

_counted: OrderedDict[str, ClassBigram] = OrderedDict()
_counting = Lock()


def configure(app: Flask) -> None:
    for key, value in DEFAULTS.items():
        app.config.setdefault(key, value)
    app.extensions["models"] = ModelShelf(app.extensions["models"])


def is_text_id(text: str) -> bool:
    """'k3v7a2q9xm' yes; 'Austen' or '../x' no."""
    return len(text) == ID_CHARS and text.isascii() and text.isalnum() and text.islower()


class ModelShelf(dict):
    """The app's models by name; a class model ('class:ID') is found in the store when asked for by name."""

    def __missing__(self, name: str):
        if not is_class_model(name):
            raise KeyError(name)
        return class_model(name[len(CLASS):])


def found_text(text_id: str) -> ClassText:
    """The class's sentences kept under text_id, read once per request; UnknownModel if none (or expired)."""
    found = g.setdefault("class_texts", {})
    if text_id not in found:
        store = access.store()
        text = store.kept_text(text_id, access.now(), room_seconds()) if is_text_id(text_id) else None
        if text is None:
            raise UnknownModel(N_("there is no class model at this address: it may have expired (a class's "
                                  "sentences are kept %(days)s days after they were last opened). Build it again "
                                  "from its sentences."), days=round(seconds() / 86400))
        found[text_id] = parse(text)
        if found[text_id].pasted:  # a room's model lives as long as a room is kept after its last change
            store.kept_text(text_id, access.now(), seconds())
    return found[text_id]


def class_model(text_id: str) -> ClassBigram:
    """The model counted from the sentences kept under text_id, at the default k."""
    text = found_text(text_id)
    with _counting:
        model = _counted.get(text_id)
        if model is not None:
            _counted.move_to_end(text_id)
            return model
    model = text.model(name=CLASS + text_id)
    with _counting:
        _counted[text_id] = model
        while len(_counted) > COUNTED_PER_PROCESS:
            _counted.popitem(last=False)
    return model


def keep(text: ClassText, seconds_kept: float | None = None) -> str:
    """Keep the sentences in the store; the model's name. 429 if this network kept too many, 503 if the store is
    full (nothing spent)."""
    data, text_id = text.dumps(), text.id
    seconds_kept = seconds() if seconds_kept is None else seconds_kept
    store = access.store()
    if store.kept_text(text_id, access.now(), seconds_kept) is None:
        per_hour = current_app.config["CLASS_KEEPS_PER_HOUR"]
        allowance = access.Allowance("class texts", per_hour, per_hour / 3600)
        if not access.take(allowance):
            abort(429, description=_("too many texts have been counted from this network in the last hour; "
                                     "wait a few minutes."))
        if not store.keep_text(text_id, data, access.now(), current_app.config["CLASS_MAX_KEPT"], seconds_kept):
            access.take(allowance, -1)
            abort(503, description=_("the server keeps as many class models as it may; try again later."))
    g.setdefault("class_texts", {})[text_id] = text
    return CLASS + text_id


def seconds() -> float:
    """How long a pasted text is kept after it was last opened."""
    return float(current_app.config["CLASS_KEEP_SECONDS"])


def room_seconds() -> float:
    """How long a room's model is kept after it was last opened: as long as a room after its teacher's last change."""
    return float(current_app.config["ROOM_IDLE_SECONDS"])
