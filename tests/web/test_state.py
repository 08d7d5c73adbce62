"""Reading the state from the query string: the parameters, their defaults, and a 400 naming a bad one;
the hidden fields that carry it through the controls form; the other parameters a view reads."""

from __future__ import annotations

import re

import pytest

from webapp.inference import InvalidSetting, InvalidTokenIds
from webapp.inference.settings import MAX_SEED
from webapp.inference.step import MAX_PROMPT_CHARS
from webapp.web.url.parse import check_prompt, parse_search, parse_state, parse_token
from webapp.web.url.state import MAX_QUERY_CHARS, InvalidInput, State

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
    assert state.on_screen == 1
    assert state.given_r(2) == 0.25 and state.given_r(0) is None
    assert (state.given_rs, state.forced) == ((None, None, 0.25), (False, True, False))  # as the exports read it


def test_defaults_are_seeded_sources_and_no_flags(app, three):
    state = read(app, **BASE, ids=joined(three))
    assert state.sources == ("s", "s", "s")
    assert (state.at, state.next_r, state.predict, state.revealed, state.present) == (None, None, False, False, False)
    assert state.on_screen == 2


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
        ({"at": "one"}, "at must be a whole number, not 'one'"),
        ({"at": "1.5"}, "at must be a whole number, not '1.5'"),
        ({"top_k": "1.5"}, "top-k must be a whole number, not '1.5'"),
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


# --- the hidden fields: the state the controls form carries besides its visible controls -----------


def form_values(doc) -> dict[str, str]:
    """What the controls form submits, as a browser would: each named control of #controls, or of form="controls"."""
    values = {}
    for e in doc.iter():
        if e.tag not in ("input", "textarea", "select") or not e.attrs.get("name"):
            continue
        if e.tag == "textarea":
            values[e.attrs["name"]] = e.text().removeprefix("\n")
        elif e.tag == "select":
            chosen = [o for o in e.find_all("option") if "selected" in o.attrs]
            values[e.attrs["name"]] = chosen[0].attrs["value"]
        elif e.attrs.get("type") != "checkbox" or "checked" in e.attrs:
            values[e.attrs["name"]] = e.attrs.get("value") or ""
    return values


@pytest.mark.parametrize(
    "params",
    [
        pytest.param({}, id="no-ids"),
        pytest.param({"src": "s,f,0.25", "at": "1"}, id="forced-typed-at"),
        pytest.param({"predict": "1", "reveal": "1", "present": "1", "r": "0.5"}, id="flags-and-r"),
        pytest.param({"temperature": "0.35", "top_k": "7", "top_p": "0.9", "min_p": "0.05"}, id="settings"),
    ],
)
def test_the_form_sends_back_the_state_it_shows(app, client, three, params):
    """Hidden fields and visible controls together read back as the screen's state (guided mode aside)."""
    query = {**BASE, **({"ids": joined(three)} if params else {}), **params}
    state = read(app, **query)
    doc = parse(client.get(url("/", **query)).data)
    sent = form_values(doc.by_id("controls-panel")) | form_values(doc.by_id("prompt-panel"))
    assert read(app, **sent) == state


def test_guided_mode_is_not_carried_by_the_form(app, three):
    assert "guide" not in dict(read(app, **BASE, ids=joined(three), guide="1").hidden_fields())


def test_hidden_fields_are_the_state_no_visible_control_holds(app, three):
    state = read(app, **BASE, ids=joined(three), src="s,f,0.25", at="1", reveal="1", present="1", predict="1",
                 r="0.5", top_k="5")
    assert state.hidden_fields() == [("ids", joined(three)), ("src", "s,f,0.25"), ("at", "1"), ("reveal", "1"),
                                     ("present", "1")]
    assert read(app, **BASE).hidden_fields() == [("ids", "")], "ids is always sent, empty before a Step"


# --- the other parameters a view reads ------------------------------------------------------------


@pytest.mark.parametrize(("text", "token"), [("17", 17), (" 0 ", 0), ("4999", 4999)])
def test_parse_token_reads_a_token_id(model, text, token):
    assert parse_token({"token": text}, model.tokenizer) == token


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("", InvalidInput, "token must be a token id, not ''"),
        ("-1", InvalidInput, "not '-1'"),
        ("\N{SUPERSCRIPT TWO}", InvalidInput, "token must be a token id"),
        ("5000", InvalidTokenIds, "is not in the vocabulary"),
    ],
)
def test_parse_token_refuses_what_is_not_a_token_of_the_model(text, error, message, app):
    vocabulary = app.extensions["models"]["austen-bigram"].tokenizer
    with pytest.raises(error, match=re.escape(message)):
        parse_token({"token": text}, vocabulary)


def test_parse_search_reads_the_model_and_the_search():
    assert parse_search({"model": " austen-bigram ", "q": " Darcy"}, "x") == ("austen-bigram", " Darcy")
    assert parse_search({}, "the-default") == ("the-default", "")
    assert parse_search({"q": "a" * MAX_QUERY_CHARS}, "m")[1] == "a" * MAX_QUERY_CHARS
    with pytest.raises(InvalidInput, match="the search has 101 characters; the limit is 100"):
        parse_search({"q": "a" * 101}, "m")


def test_check_prompt_is_the_one_prompt_length_check(client):
    assert check_prompt("x" * MAX_PROMPT_CHARS) == "x" * MAX_PROMPT_CHARS
    with pytest.raises(InvalidInput, match="the prompt has 2,001 characters; the limit is 2,000"):
        check_prompt("x" * (MAX_PROMPT_CHARS + 1))
    # the query-size guard and the state both use it, so the two say the same
    short_query, long_query = "x" * (MAX_PROMPT_CHARS + 1), "word " * 20_480
    for prompt in (short_query, long_query):
        response = client.get(url("/api/step", prompt=prompt))
        assert response.status_code == 400
        assert response.json["error"] == f"the prompt has {len(prompt):,} characters; the limit is 2,000"


@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1)])
def test_the_seed_range_is_checked_once_by_the_settings(app, seed):
    with pytest.raises(InvalidSetting, match=f"seed must be a whole number from 0 to {MAX_SEED}"):
        read(app, **{**BASE, "seed": seed})
    assert read(app, **{**BASE, "seed": str(MAX_SEED)}).settings.seed == MAX_SEED
