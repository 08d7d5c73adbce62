"""The browser's history: Step, Back, Reset, choose and viewing another step add an entry; a setting replaces it.

The server names each screen's entry (State.history_entry) in the X-History-Entry header and in the
state fields; classroom.js replaces the current entry when an answer's entry is the one on screen.
"""

from __future__ import annotations

import pytest

from webapp.web.url.parse import parse_state

from .markup import HTMX, parse
from .seeded import BASE, joined, url


def state_of(app, **params):
    return parse_state(params, app.extensions["models"], app.config["DEFAULT_MODEL"])


def test_the_history_entry_is_the_text_and_the_step_on_screen(app, three):
    before = state_of(app, **BASE, ids=joined(three))
    assert before.history_entry == f"{joined(three)}@2"
    assert state_of(app, **BASE).history_entry == "@"
    assert state_of(app, **BASE, ids=joined(three), at="0").history_entry == f"{joined(three)}@0"
    for setting in ({"temperature": "0.4", "top_k": "5"}, {"present": "1"}, {"seed": "9", "predict": "1"}):
        assert state_of(app, **{**BASE, **setting}, ids=joined(three)).history_entry == before.history_entry


@pytest.mark.parametrize(
    ("path", "extra", "same_entry"),
    [
        ("/", {"temperature": "0.3"}, True),
        ("/", {"top_p": "0.9", "seed": "8"}, True),
        ("/", {"at": "1"}, False),
        ("/step", {}, False),
        ("/back", {}, False),
        ("/choose", {"token": "5"}, False),
    ],
)
def test_an_answer_names_its_entry_and_the_page_the_one_on_screen(client, three, path, extra, same_entry):
    on_screen = parse(client.get(url("/", **BASE, ids=joined(three))).data).by_id("state-fields")
    response = client.get(url(path, **{**BASE, **extra}, ids=joined(three)), headers=HTMX)
    assert response.status_code == 200 and "HX-Push-Url" in response.headers
    assert (response.headers["X-History-Entry"] == on_screen.attrs["data-history-entry"]) == same_entry
    fields = parse(response.data).by_id("state-fields")
    assert fields.attrs["data-history-entry"] == response.headers["X-History-Entry"]
