"""History and branching: show an earlier step, choose another token there, go back and reset,
with the token sources in the URL kept in step with the ids."""

from __future__ import annotations

import pytest

from webapp.inference import run_step_table

from .markup import HTMX, ids_of, label, logits_rows, parse, query_of
from .seeded import BASE, PROMPT, SETTINGS, error_text, joined, other_than, page, url


def test_at_shows_an_earlier_step(client, model, three):
    doc = page(client, **BASE, ids=joined(three), at="1")
    step1 = run_step_table(model, PROMPT, three[:1], SETTINGS)
    assert doc.by_id("range-bar").attrs["data-step"] == "1"
    assert [row.id for row in logits_rows(doc)][: len(step1.rows)] == [str(r.id) for r in step1.rows]
    tokens = doc.by_id("text").find_all("button", "gen")
    assert [b.attrs.get("aria-current") for b in tokens] == [None, "step", None]
    assert "gen-shown" in tokens[1].classes
    assert [(b.attrs["name"], b.attrs["value"]) for b in tokens] == [("at", "0"), ("at", "1"), ("at", "2")]
    fields = {i.attrs["name"]: i.attrs["value"] for i in doc.by_id("text").find_all("input")}
    assert "at" not in fields and [int(i) for i in fields["ids"].split(",")] == three, "the state, once"


def test_choose_forces_the_token_at_the_shown_step_and_drops_the_later_ones(client, model, three):
    token = other_than(model, three, 1)
    response = client.get(url("/choose", **BASE, ids=joined(three), at="1", token=str(token)))
    assert response.status_code == 303
    q = query_of(response.headers["Location"])
    assert ids_of(response.headers["Location"]) == [three[0], token]
    assert q["src"] == "s,f"
    assert "at" not in q and "r" not in q


def test_choose_without_at_replaces_the_last_token(client, model, three):
    token = other_than(model, three, 2)
    location = client.get(url("/choose", **BASE, ids=joined(three), src="0.5,s,s", token=str(token))).headers[
        "Location"]
    assert ids_of(location) == [*three[:2], token]
    assert query_of(location)["src"] == "0.5,s,f"


def test_choose_before_any_step_appends(client, model):
    token = other_than(model, [], 0)
    location = client.get(url("/choose", **BASE, token=str(token))).headers["Location"]
    assert ids_of(location) == [token]
    assert query_of(location)["src"] == "f"


def test_a_forced_token_is_shown_as_chosen(client, model, three):
    token = other_than(model, three, 2)
    doc = parse(client.get(url("/choose", **BASE, ids=joined(three), token=str(token)), follow_redirects=True).data)
    pick = run_step_table(model, PROMPT, three[:2], SETTINGS).chosen

    rows = {row.id: row for row in logits_rows(doc)}
    assert "forced" in rows[str(token)].classes and "chosen" in rows[str(token)].badges
    assert "picked" in rows[str(pick.id)].classes and "r picked" in rows[str(pick.id)].badges
    last = doc.by_id("text").find_all("button", "gen")[-1]
    assert {"gen-forced", "gen-shown", "gen-new"} <= last.classes
    assert last.attrs["aria-current"] == "step"
    assert "chosen by hand" in last.attrs["title"]
    token_text = label(model.tokenizer.token_text(token))
    assert f"The teacher chose '{token_text}' instead of the pick" in " ".join(doc.by_id("ranges").text().split())
    assert f"; the teacher chose '{token_text}' instead" in doc.by_id("announce").text()
    # no "choose" button on the row the text already has
    buttons = [b.attrs["aria-label"] for b in doc.find("table", "logits-table").find_all("button")]
    assert f"Choose '{token_text}' instead" not in buttons
    assert f"Choose '{label(pick.token)}' instead" in buttons


def test_a_step_after_a_forced_token_continues_from_it(client, model, three):
    token = other_than(model, three, 1)
    location = client.get(url("/step", **BASE, ids=joined([three[0], token]), src="s,f")).headers["Location"]
    expected = run_step_table(model, PROMPT, [three[0], token], SETTINGS).chosen.id
    assert ids_of(location) == [three[0], token, expected]
    assert query_of(location)["src"] == "s,f,s"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "token must be a token id, not ''"),
        ("abc", "token must be a token id, not 'abc'"),
        ("-1", "token must be a token id, not '-1'"),
        ("1.5", "token must be a token id, not '1.5'"),
        ("5000", "token id 5000 is not in the vocabulary (0 to 4999)"),
        ("99999999999999999999", "is not in the vocabulary"),
        ("\N{SUPERSCRIPT TWO}", "token must be a token id"),
    ],
)
def test_choose_refuses_a_bad_token(client, three, token, message):
    response = client.get(url("/choose", **BASE, ids=joined(three), token=token))
    assert response.status_code == 400
    assert message in error_text(response)


@pytest.mark.parametrize(
    ("path", "keep"),
    [("/back", 2), ("/reset", 0)],
)
def test_back_and_reset_keep_src_aligned(client, three, path, keep):
    location = client.get(url(path, **BASE, ids=joined(three), src="f,0.5,s", at="1")).headers["Location"]
    q = query_of(location)
    assert ids_of(location) == three[:keep]
    assert q.get("src") == ("f,0.5" if keep == 2 else None)
    assert "at" not in q
    assert client.get(location).status_code == 200


def test_back_to_only_seeded_tokens_drops_src(client, three):
    location = client.get(url("/back", **BASE, ids=joined(three), src="s,s,f")).headers["Location"]
    assert ids_of(location) == three[:2] and "src" not in query_of(location)


@pytest.mark.parametrize("path", ["/step", "/back", "/reset", "/choose"])
def test_htmx_actions_push_the_url_the_redirect_names(client, model, three, path):
    params = {**BASE, "ids": joined(three), "src": "s,f,0.5"}
    if path == "/choose":
        params["token"] = str(other_than(model, three, 2))
    plain = client.get(url(path, **params))
    htmx = client.get(url(path, **params), headers=HTMX)
    assert htmx.status_code == 200
    assert htmx.headers["HX-Push-Url"] == plain.headers["Location"]
    announce = parse(htmx.data).by_id("announce")
    assert announce is not None and announce.attrs["hx-swap-oob"] == "innerHTML"
