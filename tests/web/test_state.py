"""Reading the state from the query string: the parameters, their defaults, and a 400 naming a bad one."""

from __future__ import annotations

import pytest

from webapp.web.state import State, parse_state

from .markup import HTMX, parse
from .seeded import BASE, error_text, joined, url


def read(app, **params) -> State:
    return parse_state(params, app.extensions["models"], app.config["DEFAULT_MODEL"])


def test_src_at_r_and_the_flags_are_read(app, three):
    state = read(app, **BASE, ids=joined(three), src="s, f,0.25", at="1", r="0.5", predict="1", reveal="on",
                 present="true")
    assert state.sources == ("s", "f", 0.25)
    assert (state.at, state.next_r) == (1, 0.5)
    assert (state.predict, state.revealed, state.present) == (True, True, True)
    assert state.shown == 1
    assert state.given_r(2) == 0.25 and state.given_r(0) is None


def test_defaults_are_seeded_sources_and_no_flags(app, three):
    state = read(app, **BASE, ids=joined(three))
    assert state.sources == ("s", "s", "s")
    assert (state.at, state.next_r, state.predict, state.revealed, state.present) == (None, None, False, False, False)
    assert state.shown == 2


@pytest.mark.parametrize("value", ["", "0", "false", "FALSE", " 0 "])
def test_flags_can_be_switched_off(app, value):
    state = read(app, **BASE, predict=value, reveal=value, present=value)
    assert (state.predict, state.revealed, state.present) == (False, False, False)


@pytest.mark.parametrize(
    "state",
    [
        pytest.param({"src": "s,f,0.999", "at": "0", "r": "0.25"}, id="typed-forced-at-r"),
        pytest.param({"src": "f,f,f", "predict": "1", "reveal": "1", "present": "1"}, id="flags"),
        pytest.param({"src": "0.1,0.30000000000000004,1e-05"}, id="awkward-floats"),
        pytest.param({"r": "0.999999"}, id="r-only"),
    ],
)
def test_the_state_survives_its_own_url(app, three, state):
    first = read(app, **BASE, ids=joined(three), **state)
    again = read(app, **first.query())
    assert again == first


def test_all_seeded_sources_stay_out_of_the_url(app, three):
    assert "src" not in read(app, **BASE, ids=joined(three), src="s,s,s").query()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"src": "s,f"}, "src must have one entry per generated id (3), not 2"),
        ({"src": "s,f,s,s"}, "src must have one entry per generated id (3), not 4"),
        ({"src": "s,x,s"}, "each src entry must be s (seeded), f (forced) or an r in [0, 1), not 'x'"),
        ({"src": "s,S,s"}, "not 'S'"),
        ({"src": "s,1,s"}, "not '1'"),
        ({"src": "s,-0.1,s"}, "not '-0.1'"),
        ({"src": "s,nan,s"}, "not 'nan'"),
        ({"src": "s,,s"}, "not ''"),
        ({"at": "3"}, "at must be the index of a generated token, from 0 to 2; not 3"),
        ({"at": "-1"}, "at must be the index of a generated token, from 0 to 2; not -1"),
        ({"at": "one"}, "at must be a number, not 'one'"),
        ({"at": "1.5"}, "at must be a number, not '1.5'"),
        ({"r": "1"}, "r must be a number in [0, 1), not 1"),
        ({"r": "-0.5"}, "r must be a number in [0, 1), not -0.5"),
        ({"r": "nan"}, "r must be a finite number, not 'nan'"),
        ({"r": "inf"}, "r must be a finite number, not 'inf'"),
        ({"r": "half"}, "r must be a number, not 'half'"),
        ({"predict": "yes"}, "predict must be 1 or 0, not 'yes'"),
        ({"reveal": "2"}, "reveal must be 1 or 0, not '2'"),
        ({"present": "maybe"}, "present must be 1 or 0, not 'maybe'"),
    ],
)
@pytest.mark.parametrize("path", ["/", "/step", "/back", "/reset", "/choose", "/export.json", "/export.csv", "/qr.svg"])
def test_bad_state_values_get_a_400_with_a_message(client, three, params, message, path):
    extra = {"token": "5"} if path == "/choose" else {}
    response = client.get(url(path, **BASE, ids=joined(three), **params, **extra))
    assert response.status_code == 400
    assert message in error_text(response)
    htmx = client.get(url(path, **BASE, ids=joined(three), **params, **extra), headers=HTMX)
    assert htmx.status_code == 400
    assert message in " ".join(parse(htmx.data).text().split())


def test_at_without_generated_tokens_is_refused(client):
    response = client.get(url("/", **BASE, at="0"))
    assert response.status_code == 400
    assert "at must be the index of a generated token" in error_text(response)
