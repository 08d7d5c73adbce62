"""The sampler chain on the page: its order, penalties and range order in the URL, a card per stage that
agrees with the JSON twin, the buttons that reorder it, the article model, sample-many and surprise."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

import pytest

from webapp.inference.chain import DEFAULT_CHAIN, LLAMA_CPP_CHAIN

from .markup import HTMX, hidden_fields, parse, pct, query_of, unfold, words
from .models import bigram
from .seeded import error_text

CHAINED = bigram(
    prompt="Mr. Darcy said",
    seed="7",
    ids="5,263",
    top_k="40",
    top_p="0.9",
    temperature="0.7",
    repetition_penalty="1.3",
    presence_penalty="0.4",
    chain="penalties,top_k,top_p,min_p,temperature",
)


def get(client, path: str = "/", headers=None, **params):
    response = client.get(f"{path}?{urlencode(params)}", headers=headers or {})
    assert response.status_code in (200, 303), error_text(response)
    return response


def api(client, **params) -> dict:
    return get(client, "/api/step", **params).get_json()


def cards(doc) -> list:
    return doc.by_id("chain").find_all("li", "chain-card")


# --- the URL -----------------------------------------------------------------------------------


def test_the_default_chain_stays_out_of_the_url(client):
    push = get(client, headers=HTMX, **bigram(prompt="Mr. Darcy")).headers["HX-Push-Url"]
    assert "chain" not in query_of(push)


def test_chain_penalties_range_order_many_and_surprise_survive_the_url(client):
    params = {**CHAINED, "range_order": "vocabulary", "many": "100", "surprise": "1"}
    push = query_of(get(client, headers=HTMX, **params).headers["HX-Push-Url"])
    for name in ("chain", "repetition_penalty", "presence_penalty", "range_order", "many", "surprise"):
        assert push[name] == params[name]
    fields = hidden_fields(parse(get(client, **params).data))  # the form carries them to the next Step
    assert fields["chain"] == params["chain"] and fields["many"] == "100" and fields["surprise"] == "1"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"chain": "top_k,top_q"}, "no stage 'top_q'"),
        ({"chain": "top_k,top_k"}, "twice"),
        ({"repetition_penalty": "0"}, "repetition penalty"),
        ({"presence_penalty": "3"}, "presence penalty"),
        ({"frequency_penalty": "nan"}, "frequency-penalty"),
        ({"range_order": "alphabetical"}, "range order"),
        ({"many": "7"}, "many must be one of"),
        ({"model": "article", "scores": "0.1,0.2"}, "one score per token"),
        ({"model": "article", "vocab": "A,A,B"}, "differ"),
        ({"model": "article", "scores": "0.1,x,0.7"}, "must be a number"),
    ],
)
def test_bad_chain_settings_get_a_clear_400(client, params, message):
    for path in ("/", "/api/step"):
        response = client.get(f"{path}?{urlencode(bigram(prompt='Mr. Darcy', **params))}")
        assert response.status_code == 400
        text = response.get_json()["error"] if path == "/api/step" else error_text(response)
        assert message in text


# --- the cards -----------------------------------------------------------------------------------


def test_a_card_per_stage_in_the_chains_order_with_the_json_twins_figures(client):
    doc = parse(get(client, **CHAINED).data)
    step = api(client, **{**CHAINED, "ids": "5"})  # the page shows the step that picked the last id
    shown = cards(doc)
    assert [c.attrs["data-stage"] for c in shown] == [s["stage"] for s in step["stages"]]
    for card, stage in zip(shown, step["stages"], strict=True):
        sentence = words(card.find("p", "stage-sentence"))
        if stage["stage"] in ("top_k", "top_p", "min_p") and stage["on"]:
            assert f"kept {stage['n_kept']:,} token" in sentence
            assert f"{pct(stage['mass_kept'])} of the probability" in sentence
        if stage["stage"] == "penalties":
            assert f"changed {stage['n_changed']} score" in sentence
    assert "top-p 0.9 keeps" in words(shown[2]).lower()


def test_the_cards_buttons_lead_to_the_moved_chain(client):
    doc = parse(get(client, **CHAINED).data)
    temperature = cards(doc)[-1]
    values = {b.attrs["aria-label"]: b.attrs["value"] for b in temperature.find_all("button")}
    assert values == {
        "Move Temperature earlier": "penalties,top_k,top_p,temperature,min_p",
        "Leave Temperature out": "penalties,top_k,top_p,min_p",
    }
    presets = {words(b): b.attrs["value"] for b in doc.by_id("chain").find_all("button", "preset")}
    assert presets == {"Hugging Face": ",".join(DEFAULT_CHAIN), "llama.cpp": ",".join(LLAMA_CPP_CHAIN)}


def test_set_chain_reorders_the_chain_and_the_url_says_so(client):
    moved = get(client, headers=HTMX, **{**CHAINED, "set_chain": "penalties,top_k,top_p,temperature,min_p"})
    assert query_of(moved.headers["HX-Push-Url"])["chain"] == "penalties,top_k,top_p,temperature,min_p"
    preset = get(client, headers=HTMX, **{**CHAINED, "set_chain": ",".join(DEFAULT_CHAIN)})
    assert "chain" not in query_of(preset.headers["HX-Push-Url"])  # back to the default: an old link again


def test_a_chain_without_a_stage_offers_to_add_it_and_does_not_apply_it(client):
    params = {**CHAINED, "chain": "top_k,temperature"}
    doc = parse(get(client, **params).data)
    added = {words(b): b.attrs["value"] for b in doc.by_id("chain").find("p", "chain-left-out").find_all("button")}
    assert added["+ Penalties"] == "top_k,temperature,penalties"
    step = api(client, **params)
    assert [s["stage"] for s in step["stages"]] == ["top_k", "temperature"]
    assert step["n_kept"] == 40  # top-p 0.9 is set, but left out


def test_the_same_settings_keep_different_tokens_in_hugging_faces_and_llama_cpps_order(client):
    base = bigram(prompt="Mr. Darcy said", seed="7", temperature="1.5", top_p="0.5")
    hugging_face = api(client, **base)
    llama_cpp = api(client, **base, chain=",".join(LLAMA_CPP_CHAIN))
    assert hugging_face["n_kept"] > llama_cpp["n_kept"]  # T = 1.5 flattens before top-p: more tokens reach 0.5


# --- the article, range order, sample many, surprise ----------------------------------------------


def test_the_article_model_lays_out_the_articles_ranges(client):
    doc = unfold(client, parse(get(client, model="article", range_order="vocabulary").data))
    worked = words(doc.by_id("worked-sampling"))
    assert "0.000 to 0.100 → 'A'; 0.100 to 0.300 → 'B'; 0.300 to 1.000 → 'C'" in worked
    assert doc.by_id("article-scores").attrs["value"] == "0.1,0.2,0.7"


def test_the_page_says_when_the_other_range_order_would_pick_another_token(client):
    doc = parse(get(client, model="article", ids="0", src="0.05", view="teacher").data)  # r = 0.05, largest first: 'C'
    note = words(doc.find("p", "other-order-note"))
    assert "in vocabulary order would pick 'A' instead" in note


def test_article_scores_typed_as_logits(client):
    step = api(client, model="article", vocab="yes,no,maybe", scores="2,1,0", scores_as="logits")
    assert [r["token"] for r in step["rows"]] == ["yes", "no", "maybe"]
    assert step["rows"][0]["logit"] == 2.0


def test_sample_many_shows_a_histogram_that_adds_up(client):
    doc = parse(get(client, **bigram(prompt="Mr. Darcy said", seed="7", top_k="5", many="1000")).data)
    rows = doc.by_id("many").find("table").find("tbody").find_all("tr")
    assert len(rows) == 5
    assert sum(int(words(r.find_all("td")[1])) for r in rows) == 1000


def test_surprise_colouring_toggles_and_shows_both_perplexities(client):
    params = bigram(prompt="Mr. Darcy said", seed="7", ids="5,263,22")
    off = parse(get(client, **params).data)
    assert off.by_id("surprise-legend") is None
    on = parse(get(client, **params, surprise="1").data)
    gens = on.find("p", "text-so-far").find_all("button", "gen")
    assert all(any(c.startswith("surprise-") for c in g.classes) for g in gens)
    legend = words(on.by_id("surprise-legend"))
    assert "the sampling distribution" in legend and "the model at T = 1" in legend


def test_the_chain_csv_has_a_line_per_stage_and_the_uncertainty(client):
    response = get(client, "/export-chain.csv", **CHAINED)
    lines = list(csv.reader(io.StringIO(response.data.decode())))
    assert lines[0][0] == "stage" and [line[0] for line in lines[1:6]] == CHAINED["chain"].split(",")
    assert ["range_order", "probability"] in lines and any(line[0] == "entropy_bits" for line in lines)


def test_the_article_model_has_no_forward_pass_to_open(client):
    response = client.get("/api/inside?model=article")
    assert response.status_code == 400 and "no forward pass" in response.get_json()["error"]
    doc = parse(get(client, model="article", inside="1", ids="1").data)
    assert "no forward pass" in words(doc.by_id("inside"))
