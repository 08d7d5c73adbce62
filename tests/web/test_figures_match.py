"""The figures a panel writes beside a picture or a sentence are the figures of that very thing.

Each test reads the rendered HTML and recomputes the figures in the test from the model's own output
(its logits, its count table), independently of the app's code: a sampler chain card's labels are the
probabilities its stage passed on; the bigram's count rows add up to the total the panel says, and each
probability is (count + k) / (total + k × V); the softmax worked example writes its numbers as a pupil
reads them, without e+ notation.
"""

from __future__ import annotations

import math
import re
from urllib.parse import urlencode

import numpy as np
import pytest

from webapp.inference.step import encode_prompt
from webapp.web.stages.chain_view import N_BARS

from .markup import parse, pct, read_number, unfold, words
from .models import BIGRAM_MODEL, TRANSFORMER

PROMPT = "It is a truth"
CHAIN = ("penalties", "temperature", "top_k", "top_p", "min_p")
LLAMA_CPP = ("penalties", "top_k", "top_p", "min_p", "temperature")


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x[np.isfinite(x)].max())
    return e / e.sum()


def by_probability(p: np.ndarray) -> np.ndarray:
    """Ids, most probable first, ties to the smaller id."""
    return np.lexsort((np.arange(len(p)), -p))


def reference_chain(z: np.ndarray, window: list[int], s: dict) -> tuple[dict, np.ndarray]:
    """Each stage's (probabilities in, probabilities out), written out from the definitions; the logits at the end."""
    z, t, keep = z.astype(np.float64), 1.0, np.ones(len(z), dtype=bool)
    p, out = softmax(z), {}
    for name in s["chain"]:
        p_in = p
        if name == "penalties" and s.get("repetition_penalty"):
            theta, seen = s["repetition_penalty"], np.unique(window)
            z = z.copy()
            z[seen] = np.where(z[seen] > 0, z[seen] / theta, z[seen] * theta)
            p = softmax(np.where(keep, z, -np.inf) / t)
        elif name == "temperature" and s.get("temperature", 1) != 1:
            t = s["temperature"]
            p = softmax(np.where(keep, z, -np.inf) / t)
        elif name in ("top_k", "top_p", "min_p") and s.get(name) is not None:
            order = by_probability(p)
            if name == "top_k":
                chosen = order[: s["top_k"]]
            elif name == "top_p":
                chosen = order[: int(np.argmax(np.cumsum(p[order]) >= s["top_p"] - 1e-12)) + 1]
            else:
                chosen = np.flatnonzero(p >= s["min_p"] * p.max())
            mask = np.zeros(len(p), dtype=bool)
            mask[chosen] = True
            keep &= mask & (p > 0)
            p = np.where(keep, p, 0.0) / np.where(keep, p, 0.0).sum()
        out[name] = (p_in, p)
    return out, z


SETTINGS = [
    {"temperature": 0.5},
    {"temperature": 0.5, "top_p": 0.5},
    {"temperature": 0.5, "top_k": 3, "chain": LLAMA_CPP},
    {"temperature": 1.3, "min_p": 0.05},
    {"temperature": 0.8, "top_k": 40, "top_p": 0.9},
    {"repetition_penalty": 1.5, "top_k": 10},
]


@pytest.mark.parametrize("model_name", [BIGRAM_MODEL, TRANSFORMER])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items() if k != "chain"))
def test_each_chain_cards_labels_are_the_probabilities_its_stage_passed_on(app, client, model_name, settings):
    if model_name not in app.extensions["models"]:
        pytest.skip(f"{model_name} is not bundled")
    model = app.extensions["models"][model_name]
    s = {"chain": CHAIN, **settings}
    params = {"model": model_name, "prompt": PROMPT, "ids": "21", "seed": "7", "guide": "0",
              **{k: str(v) for k, v in settings.items() if k != "chain"}}
    if "chain" in settings:
        params["chain"] = ",".join(settings["chain"])
    doc = parse(client.get("/?" + urlencode(params)).data)
    context = [t.id for t in encode_prompt(model, PROMPT)]  # ids=21 is the pick of the step shown
    window = context[max(0, len(context) - model.n_ctx):]
    stages, z = reference_chain(np.asarray(model.logits(context), dtype=np.float64), window, s)
    shown = by_probability(z)[:N_BARS]  # the table's top rows: by logit after the penalties
    charted = 0
    for card in doc.by_id("chain").find_all("li", "chain-card"):
        chart = card.find("svg", "stage-chart")
        if chart is None:
            continue
        charted += 1
        p_in, p_out = stages[card.attrs["data-stage"]]
        values = [words(bar.find("text", "value")) for bar in chart.find_all("svg", "stage-bar")]
        expected = ["cut" if p_in[j] > 0 and p_out[j] == 0 else pct(p_out[j]) for j in shown]
        assert values == expected, card.attrs["data-stage"]
        if card.attrs["data-stage"] == "temperature":  # the sentence's 'the top one has X' is the top label
            assert f"the top one has {pct(p_out.max())}" in words(card.find("p", "stage-sentence"))
            assert values[0] == pct(p_out.max())
    assert charted


RULES = {
    "top_k": "Top-k 3 keeps the 3 most likely tokens and cuts the rest.",
    "top_p": "Top-p 0.5 keeps the most likely tokens, largest first, until their probabilities add up to at "
    "least 0.5 (50.0 %), and cuts the rest.",
    "min_p": "Min-p 0.1 keeps every token at least 0.1 times as likely as the most likely one",
}


def test_each_truncation_card_states_its_rule_before_what_it_did(client):
    params = {"model": BIGRAM_MODEL, "prompt": PROMPT, "ids": "21", "seed": "7", "top_k": "3", "top_p": "0.5",
              "min_p": "0.1", "repetition_penalty": "1.3"}
    doc = parse(client.get("/?" + urlencode(params)).data)
    cards = {card.attrs["data-stage"]: words(card.find("p", "stage-sentence"))
             for card in doc.by_id("chain").find_all("li", "chain-card")}
    for stage, rule in RULES.items():
        assert cards[stage].startswith(rule), cards[stage]
        assert re.search(r"This time it kept [\d,]+ tokens?, [\d.]+ % of the probability", cards[stage])
    assert cards["penalties"].startswith("Penalties change the scores of tokens the text already has")


E_NOTATION = re.compile(r"\de[+−-]?\d")  # '3.364e+05', '1.2e−07'


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
@pytest.mark.parametrize(
    ("model_name", "temperature"),
    [(TRANSFORMER, "0.5"), (TRANSFORMER, "1"), (BIGRAM_MODEL, "0.1"), (BIGRAM_MODEL, "0.01"), (BIGRAM_MODEL, "2")],
)
def test_the_softmax_worked_example_writes_big_and_small_numbers_as_a_pupil_reads_them(
    app, client, model_name, temperature, lang
):
    if model_name not in app.extensions["models"]:
        pytest.skip(f"{model_name} is not bundled")
    params = {"model": model_name, "prompt": PROMPT, "temperature": temperature, "seed": "7", "lang": lang}
    doc = unfold(client, parse(client.get("/?" + urlencode(params)).data))
    text = words(doc.by_id("worked-softmax"))
    assert "e+" not in text and not E_NOTATION.search(text), text
    if lang == "en":  # the power of e and its value, read back
        m = re.search(r" e(?P<power>\S+) = (?P<exp>[^;]+);", text)
        assert read_number(m["exp"]) == pytest.approx(math.exp(read_number(m["power"])), rel=5e-4)


def count_row(model, prev: int) -> dict[int, int]:
    """The corpus counts of the words that followed prev, read straight off the model's count table."""
    lo, hi = int(model.indptr[prev]), int(model.indptr[prev + 1])
    return dict(zip(model.indices[lo:hi].tolist(), model.counts[lo:hi].tolist(), strict=True))


def number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.parametrize("prompt", ["It is a truth", "She looked at the", "the man", "I assure", "I belong"])
def test_the_bigrams_count_rows_add_up_to_the_total_it_says_and_each_probability_is_smoothed(app, client, prompt):
    model = app.extensions["models"][BIGRAM_MODEL]
    params = {"model": BIGRAM_MODEL, "prompt": prompt, "inside": "1", "guide": "1"}
    doc = parse(client.get("/?" + urlencode(params)).data)
    panel = doc.by_id("inside")
    note = words(panel.find("p", "panel-note"))
    m = re.search(r"was followed by another token ([\d,]+) times?, by ([\d,]+) different ones", note)
    total, n_seen = number(m[1]), number(m[2])
    prev = [t.id for t in encode_prompt(model, prompt)][-1]
    row = count_row(model, prev)
    assert (total, n_seen) == (sum(row.values()), len(row))
    table = panel.find("table", "inside-counts")
    shown = [[words(td) for td in tr.find_all("td")] for tr in table.find("tbody").find_all("tr")]
    counts = [number(cells[1]) for cells in shown]
    more = table.find("tr", "more")
    if len(row) > len(shown):
        n_more = len(row) - len(shown)
        assert words(more.find("th")) == f"and {n_more:,} more token{'s' if n_more > 1 else ''}"
        counts.append(number(words(more.find("td"))))
    else:
        assert more is None
    assert sum(counts) == total
    k, n_vocab = model.k, model.n_vocab
    assert sorted(row.values(), reverse=True)[: len(shown)] == [number(cells[1]) for cells in shown]
    for cells in shown:
        assert cells[2] == pct((number(cells[1]) + k) / (total + k * n_vocab))
    worked = words(panel.by_id("worked-inside-bigram"))
    made_up = f"{k * n_vocab:,.0f}"
    assert f"{k:g} for each of {n_vocab:,} words makes {made_up} made-up counts" in worked
    top = max(row.values())
    assert f"= ({top:,} + {k:g}) / ({total:,} + {made_up}) = {pct((top + k) / (total + k * n_vocab))}" in worked
