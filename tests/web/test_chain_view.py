"""The sampler chain's cards: a stage that passes on what it saw draws no chart, one that changes it keeps
every figure of its chart."""

from __future__ import annotations

from urllib.parse import urlencode

from webapp.web.stages.chain_view import N_BARS, Button, buttons

from .markup import parse, pct, words
from .models import bigram


def test_the_first_and_last_cards_have_no_button_past_the_end_and_each_leads_to_its_chain():
    chain = ("penalties", "top_k", "temperature")
    first, middle, last = (buttons(chain, i) for i in range(3))
    assert first == (Button("later", "top_k,penalties,temperature"), Button("out", "top_k,temperature"))
    assert [b.set_chain for b in middle] == [
        "top_k,penalties,temperature",
        "penalties,temperature,top_k",
        "penalties,temperature",
    ]
    assert [b.kind for b in last] == ["earlier", "out"]


def chain_cards(client, **params) -> list:
    response = client.get(f"/?{urlencode(bigram(prompt='Mr. Darcy said', seed='7', ids='5,263', **params))}")
    assert response.status_code == 200
    return parse(response.data).by_id("chain").find_all("li", "chain-card")


def api_stages(client, **params) -> list[dict]:
    query = urlencode(bigram(prompt="Mr. Darcy said", seed="7", ids="5", **params))
    return client.get(f"/api/step?{query}").get_json()["stages"]


def test_the_default_chain_draws_no_chart_and_says_what_each_stage_did(client):
    cards = chain_cards(client)
    assert len(cards) == 5
    assert all(card.find("svg") is None and card.find("p", "band-legend") is None for card in cards)
    assert all("unchanged" in words(cards[i].find("p", "stage-sentence")) for i in (0, 2, 3, 4))
    assert "T = 1 kept the" in words(cards[1].find("p", "stage-sentence"))
    assert all(len(card.find_all("button")) >= 2 for card in cards)  # every card keeps its buttons


def test_a_stage_that_cuts_draws_its_chart_and_the_stages_that_pass_it_on_do_not(client):
    cards = chain_cards(client, top_k="10")
    stages = api_stages(client, top_k="10")
    drawn = [card.attrs["data-stage"] for card in cards if card.find("svg", "stage-chart") is not None]
    assert drawn == [s["stage"] for s in stages if s["n_cut"]] == ["top_k"]
    top_k = cards[2]
    assert f"kept {pct(stages[2]['mass_kept'])}" in words(top_k.find("p", "band-legend"))
    rows = top_k.find("svg", "stage-chart").find_all("svg", "stage-bar")
    assert len(rows) == N_BARS and sum("cut" in row.classes for row in rows) == 0  # the top 8 of 10 kept


def test_a_changed_cards_chart_shows_the_twins_probabilities_of_the_top_tokens(client):
    """Top-k at T = 1 passes the kept tokens on renormalised (the table's 'kept' figures), 'cut' for the rest."""
    cards = chain_cards(client, top_k="3")
    query = urlencode(bigram(prompt="Mr. Darcy said", seed="7", ids="5", top_k="3"))
    rows = client.get(f"/api/step?{query}").get_json()["rows"][:N_BARS]
    bars = cards[2].find("svg", "stage-chart").find_all("svg", "stage-bar")
    values = [words(bar.find("text", "value")) for bar in bars]
    assert values == [pct(row["prob_kept"]) if row["kept"] else "cut" for row in rows]
    assert ["cut" in bar.classes for bar in bars] == [not row["kept"] for row in rows]


def test_every_stage_that_changes_something_keeps_its_chart(client):
    params = {
        "top_k": "40",
        "top_p": "0.9",
        "temperature": "0.7",
        "repetition_penalty": "1.3",
        "chain": "penalties,top_k,top_p,min_p,temperature",
    }
    cards = chain_cards(client, **params)
    stages = api_stages(client, **params)
    for card, stage in zip(cards, stages, strict=True):
        moved = stage["n_cut"] > 0 or stage["top_in"] != stage["top_out"]
        assert (card.find("svg", "stage-chart") is not None) == moved, stage["stage"]
