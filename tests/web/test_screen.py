"""The rules a screen computes for its templates, tested directly: which row is picked, chosen, beyond
the table or offers "choose", and whether the teacher typed r (the text's pieces: test_stage_decode.py)."""

from __future__ import annotations

import math

import pytest

from webapp.fetch import SOURCES, fetchable
from webapp.inference import run_step_table
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .markup import logits_rows, parse
from .seeded import BASE, PROMPT, SETTINGS, joined, other_than, page


def screen_of(app, **params):
    models = app.extensions["models"]
    return build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"]))


def test_an_earlier_step_viewed_again_is_not_appended(client, three):
    def note(**params) -> str:
        doc = page(client, **BASE, ids=joined(three), **params)
        return " ".join(doc.by_id("text").find("p", "panel-note").text().split())

    latest, earlier = note(), note(at="0")
    assert "appended to the text. The next step reads it too." in latest
    assert "appended" not in earlier and "generated token 1 of 3: every step after it read it too." in earlier


def test_before_a_step_nothing_is_picked_and_every_row_can_be_chosen(app):
    screen = screen_of(app, **BASE)
    rows = screen.result.rows
    assert not any(screen.picked(row) for row in rows) and not screen.picked_beyond
    assert all(screen.choosable(row) for row in rows)
    assert not any(screen.chosen_instead(row) or screen.beyond(row) for row in rows)


def test_after_a_step_the_pick_is_the_one_picked_row(app, model, three):
    screen = screen_of(app, **BASE, ids=joined(three))
    pick = run_step_table(model, PROMPT, three[:2], SETTINGS).chosen
    assert [row.id for row in screen.result.rows if screen.picked(row)] == [pick.id]
    assert [row.id for row in screen.result.rows if not screen.choosable(row)] == [three[2]]
    assert not any(screen.chosen_instead(row) for row in screen.result.rows)


def test_a_forced_token_is_chosen_instead_and_not_offered_again(app, model, three):
    token = other_than(model, three, 2)
    screen = screen_of(app, **BASE, ids=joined([*three[:2], token]), src="s,s,f")
    chosen = [row.id for row in (*screen.result.rows, *screen.rows_below) if screen.chosen_instead(row)]
    assert chosen == [token]
    assert not screen.choosable(screen.text_row)
    assert screen.picked(screen.result.chosen) and screen.result.chosen.id != token


def test_a_pick_below_the_table_gets_its_own_row_and_the_rest_leaves_it_out(app, model):
    screen = screen_of(app, prompt=PROMPT, model="austen-bigram", temperature="5", seed="0", ids="")
    ids = [screen.result.chosen.id]
    screen = screen_of(app, prompt=PROMPT, model="austen-bigram", temperature="5", seed="0", ids=joined(ids))
    result = screen.result
    assert result.chosen.rank > result.n_top, "the seed picks below the table"
    assert screen.beyond(result.chosen) and screen.picked_beyond
    assert screen.rows_below == (result.chosen,) == result.rows[result.n_top :]
    assert not any(screen.beyond(row) for row in result.rows[: result.n_top])
    assert len(result.rows) + result.rest.count == screen.model.n_vocab
    assert math.fsum([*(row.prob for row in result.rows), result.rest.prob]) == pytest.approx(1.0, abs=1e-12)
    (a, b), (c, d) = result.rest.ranges  # the pick's range sits between the rest's two pieces
    assert (b, c) == (result.chosen.lo, result.chosen.hi) and d == 1.0


def test_the_table_shows_the_rules_the_screen_computes(app, client, model, three):
    """The template only shows what the screen says: one row class per rule."""
    token = other_than(model, three, 2)
    params = {**BASE, "ids": joined([*three[:2], token]), "src": "s,s,f", "top_k": "3"}
    screen = screen_of(app, **params)
    rows = {row.id: row for row in logits_rows(page(client, **params))}
    for row in (*screen.result.rows, *screen.rows_below):
        classes = rows[str(row.id)].classes
        assert ("picked" in classes) == screen.picked(row)
        assert ("forced" in classes) == screen.chosen_instead(row)
        assert ("cut" in classes) == row.cut
        assert ("beyond" in classes) == screen.beyond(row)
        assert (rows[str(row.id)].prob_kept is not None) == screen.renormalised(row)
    assert any(row.cut for row in screen.result.rows), "top-k 3 cuts rows of the table"
    assert any(screen.renormalised(row) for row in screen.result.rows), "and renormalises the 3 it keeps"


def test_without_truncation_no_row_is_renormalised(app, three):
    screen = screen_of(app, **BASE, ids=joined(three))
    assert screen.result.n_kept == screen.model.n_vocab
    assert not any(screen.renormalised(row) for row in (*screen.result.rows, *screen.rows_below))


def test_fetchable_names_the_models_fetch_model_knows_and_the_app_has_not_loaded():
    assert fetchable([]) == list(SOURCES)
    assert fetchable(["austen-bigram"]) == list(SOURCES)
    assert fetchable(SOURCES) == []


def test_the_more_models_hint_names_what_fetch_model_can_fetch(client, app, monkeypatch):
    hint = parse(client.get("/").data).find("p", "more-models")
    names = fetchable(app.extensions["models"])
    if not names:
        assert hint is None
    else:
        assert [c.text() for c in hint.find_all("code")] == [f"token-by-token fetch-model {n}" for n in names]
    monkeypatch.setitem(SOURCES, "tiny-test-model", SOURCES["smollm2-135m"])
    codes = [c.text() for c in parse(client.get("/?seed=2").data).find("p", "more-models").find_all("code")]
    assert codes[-1] == "token-by-token fetch-model tiny-test-model"
