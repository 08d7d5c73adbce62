"""The worked examples on the page state the step's own figures, rounded as the page rounds them.

Each state is rendered as a page and asked of the JSON twin; the sentences of each worked example are
read back and compared with the twin's numbers (formatted by markup.pct / markup.num, written
independently of the app's filters) and, where the page does arithmetic in prose, redone here.
"""

from __future__ import annotations

import math
import re
from urllib.parse import urlencode

import numpy as np
import pytest

from .markup import Element, digits, label, logits_rows, num, parse, pct, pick_digits, read_number, unfold, words
from .models import BIGRAM_MODEL, TRANSFORMER, bigram

MINUS = "\N{MINUS SIGN}"


# (settings, how many steps to take first)
STATES = {
    "default-no-ids": (bigram(prompt="Mr. Darcy said", seed="3"), 0),
    "sharp": (bigram(prompt="Mr. Darcy said", temperature="0.8", seed="3"), 2),
    "flat": (bigram(prompt="She looked at the", temperature="1.7", seed="8"), 1),
    "very-sharp-shifted": (bigram(prompt="It is a truth", temperature="0.01", seed="1"), 1),
    "greedy": (bigram(prompt="Mr. Darcy said", temperature="0", seed="5"), 2),
    "all-truncations": (
        bigram(prompt="Mr. Darcy zyxwvut", temperature="0.8", top_k="50", top_p="0.9", min_p="0.02", seed="3"),
        2,
    ),
    "top-k-5": (bigram(prompt="The girl saw a", top_k="5", seed="7"), 1),
    "top-p": (bigram(prompt="The girl saw a", temperature="1.3", top_p="0.8", seed="42"), 0),
    "min-p": (bigram(prompt="She smiled", min_p="0.05", seed="3"), 3),
    "unk-prompt": (bigram(prompt="Mr. Darcy looked at the xylophone", seed="2"), 2),
    "only-unk": (bigram(prompt="Xylophone", seed="2"), 0),
    "empty-prompt": (bigram(prompt="", temperature="0.5", seed="12"), 1),
    "transformer-sharp": ({"model": TRANSFORMER, "prompt": "Mr. Darcy zyxwvut", "temperature": "0.8", "seed": "3"}, 2),
    "transformer-truncated": (
        {
            "model": TRANSFORMER,
            "prompt": "She smiled",
            "temperature": "1.2",
            "top_p": "0.9",
            "min_p": "0.01",
            "seed": "4",
        },
        1,
    ),
}


def api(client, params: dict, ids: list[int]) -> dict:
    query = {**params, **({"ids": ",".join(map(str, ids))} if ids else {})}
    response = client.get(f"/api/step?{urlencode(query)}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.json


@pytest.fixture(scope="module", params=list(STATES), ids=list(STATES))
def state(request, app):
    """(settings, generated ids, the twin's JSON of the step on display, the page's tree)."""
    client = app.test_client()
    params, n = STATES[request.param]
    if params["model"] not in app.extensions["models"]:
        pytest.skip(f"{params['model']} is not bundled")
    ids: list[int] = []
    for _ in range(n):
        ids.append(api(client, params, ids)["chosen"]["id"])
    shown = api(client, params, ids[:-1])  # with ids, the page shows the step that picked the last one
    query = {**params, **({"ids": ",".join(map(str, ids))} if ids else {})}
    response = client.get(f"/?{urlencode(query)}")
    assert response.status_code == 200
    return params, ids, shown, unfold(client, parse(response.data))


def worked(doc: Element, name: str) -> str:
    details = doc.by_id(f"worked-{name}")
    assert details is not None and details.tag == "details" and "worked" in details.classes
    assert words(details.find("summary")) == "Worked example"
    return words(details)


def test_encode_names_a_known_word_an_unknown_one_and_the_ids(state):
    _, _, step, doc = state
    text = worked(doc, "encode")
    tokens = step["prompt_tokens"]
    known = next((t for t in tokens if not t["unk"]), None)
    unknown = next((t for t in tokens if t["unk"]), None)
    assert f"the model's vocabulary of {step['n_vocab']:,} and replaced by its id" in text
    if known and unknown:
        assert (
            f"'{known['source']}' is id {known['id']} in the vocabulary; '{unknown['source']}' is not in it, "
            f"so it becomes <unk> (id {unknown['id']})."
        ) in text
    elif known:
        assert f"'{known['source']}' is id {known['id']} in the vocabulary." in text
    elif unknown:
        assert f"'{unknown['source']}' is not in the vocabulary, so it becomes <unk> (id {unknown['id']})." in text
    if tokens:
        ids = ", ".join(str(t["id"]) for t in tokens[:12])
        assert f"only the ids: [{ids}{', …' if len(tokens) > 12 else ''}]." in text
    else:
        assert "only the ids" not in text


def test_encode_of_an_unknown_word_is_unk_with_id_0(client):
    doc = unfold(client, parse(client.get("/?" + urlencode(bigram(prompt="Mr. Darcy looked at the xylophone"))).data))
    text = worked(doc, "encode")
    assert "'Mr' is id 42 in the vocabulary; 'xylophone' is not in it, so it becomes <unk> (id 0)." in text
    assert "only the ids: [42, 3, 271, " in text and text.endswith(", 0]. Look through the whole vocabulary.")


def test_logits_names_the_two_highest_scores(state):
    _, _, step, doc = state
    text = worked(doc, "logits")
    first, second = step["rows"][:2]
    assert (
        f"The model scored all {step['n_vocab']:,} possible next tokens. The highest score is "
        f"'{label(first['token'])}' with {num(first['logit'])}, then '{label(second['token'])}' with "
        f"{num(second['logit'])}."
    ) in text


def test_with_penalties_logits_names_the_models_own_highest_scores(client):
    """The table ranks after the penalties; the forward pass's example speaks of the model's own logits."""
    plain = bigram(prompt="Mr", seed="1")
    ids = [api(client, plain, [])["rows"][0]["id"], 42]  # "Mr . Mr": the favourite after "Mr" generated once
    model_order = api(client, plain, ids)["rows"]  # no penalty: ranked by the model's logits
    penalised = {**plain, "presence_penalty": "2", "frequency_penalty": "2"}
    assert api(client, penalised, ids)["rows"][0]["id"] != model_order[0]["id"], "the penalties reorder the table"
    shown = [*ids, model_order[0]["id"]]  # a page shows the step that picked its last id
    doc = unfold(client, parse(client.get("/?" + urlencode({**penalised, "ids": ",".join(map(str, shown))})).data))
    first, second = model_order[:2]
    assert (
        f"The highest score is '{label(first['token'])}' with {num(first['logit'])}, then '{label(second['token'])}' "
        f"with {num(second['logit'])}."
    ) in worked(doc, "logits")


BIGRAM = re.compile(
    r"This bigram model scores each word by how often it followed the previous word in its training text\. "
    r"After '(?P<prev>.+?)' \(seen (?P<prev_count>[\d,]+) times before another token\), '(?P<token>.+?)' came "
    r"(?P<pair>[\d,]+) times?\. A word that never followed must still have a small chance, so the model adds a "
    r"made-up (?P<k>[\d.]+) to the count of each of its (?P<n>[\d,]+) words \(this is called smoothing\): "
    r"(?P<k4>[\d.]+) for each of (?P<n3>[\d,]+) words makes (?P<made_up>[\d,.]+) made-up counts, almost all of "
    r"them shared by the words that never followed\. "
    r"p = \((?P<pair3>[\d,]+) \+ (?P<k5>[\d.]+)\) / \((?P<prev3>[\d,]+) \+ (?P=made_up)\) = (?P<p>\S+ %) "
    r"That is its probability at T = 1; its logit is the log of it: "
    r"z = log\(\((?P<pair2>[\d,]+) \+ (?P<k2>[\d.]+)\) / \((?P<prev2>[\d,]+) \+ (?P<k3>[\d.]+) × (?P<n2>[\d,]+)\)\) "
    r"= (?P<z>\S+)$"
)


def test_logits_shows_the_bigram_formula_with_this_steps_counts(state, app):
    params, ids, step, doc = state
    text = worked(doc, "logits")
    if params["model"] != BIGRAM_MODEL:
        assert "bigram" not in text and "z = log" not in text
        return
    m = BIGRAM.search(text)
    assert m, text
    model = app.extensions["models"][BIGRAM_MODEL]
    context = [t["id"] for t in step["prompt_tokens"]] + ids[:-1]
    prev = context[-1] if context else model.tokenizer.vocab.index("<p>")
    top = step["rows"][0]
    lo, hi = int(model.indptr[prev]), int(model.indptr[prev + 1])
    row = dict(zip(model.indices[lo:hi].tolist(), model.counts[lo:hi].tolist(), strict=True))
    assert (m["prev"], m["token"]) == (label(model.tokenizer.vocab[prev]), label(top["token"]))
    assert m["pair"] == m["pair2"] == m["pair3"] == f"{row.get(top['id'], 0):,}"
    assert m["prev_count"] == m["prev2"] == m["prev3"] == f"{sum(row.values()):,}"
    assert m["k"] == m["k2"] == m["k3"] == m["k4"] == m["k5"] == str(model.k)
    assert m["n"] == m["n2"] == m["n3"] == f"{step['n_vocab']:,}"
    assert m["made_up"] == f"{model.k * step['n_vocab']:g}"
    pair, total = int(m["pair"].replace(",", "")), int(m["prev_count"].replace(",", ""))
    p = (pair + model.k) / (total + model.k * step["n_vocab"])
    assert m["p"] == pct(p) == pct(top["prob_t1"])
    assert m["z"] == num(math.log(p)) == num(top["logit"])


SOFTMAX = re.compile(
    r"For '(?P<token>.+?)':"
    r"(?: z / T = (?P<z>\S+) / (?P<t>\S+) = (?P<scaled>\S+);"
    r"| ez / T would be too large or too small for a computer here, so the largest logit \((?P<zmax>\S+)\) is "
    r"subtracted first, which leaves every probability the same: \(z − (?P=zmax)\) / T = "
    r"\((?P<z2>\S+) − (?P=zmax)\) / (?P<t2>\S+) = (?P<shifted>\S+);)"
    r" e(?P<power>\S+) = (?P<exp>[^;]+); divided by the sum over all (?P<n>[\d,]+) tokens \((?P<total>[^)]+)\) "
    r"= (?P<prob>\S+ %)\."
)


def test_softmax_works_the_top_tokens_probability_out(state):
    params, _, step, doc = state
    text = worked(doc, "softmax")
    top = step["rows"][0]
    t = step["temperature"]
    if t == 0:
        assert text.endswith(
            f"T = 0 is greedy: there is no division. The highest logit, '{label(top['token'])}', "
            "gets 100 % and every other token 0 %."
        )
        return
    assert f"p(token) = ez / T / Σ ez / T over all {step['n_vocab']:,} tokens" in text
    m = SOFTMAX.search(text)
    assert m, text
    scaled = np.array([row["scaled"] for row in step["rows"]])
    if m["zmax"] is None:
        assert (m["token"], m["z"], m["t"], m["scaled"]) == (
            label(top["token"]),
            num(top["logit"]),
            f"{t:g}",
            num(top["scaled"]),
        )
        assert m["power"] == num(top["scaled"])
        assert read_number(m["exp"]) == pytest.approx(math.exp(top["scaled"]), rel=5e-4)
    else:
        # The top row has the largest logit, so it is what is subtracted, and e^0 = 1.
        assert (m["token"], m["z2"], m["t2"]) == (label(top["token"]), num(top["logit"]), f"{t:g}")
        assert m["zmax"] == num(top["logit"]) and m["shifted"] == m["power"] == "0.000" and m["exp"] == "1"
    assert (m["t"] or m["t2"]) == (params.get("temperature", "1"))
    assert scaled.max() == top["scaled"]
    # 4 significant figures each: the quotient is the probability within about 1e-3.
    assert read_number(m["exp"]) / read_number(m["total"]) == pytest.approx(top["prob"], rel=1.5e-3)
    assert m["prob"] == pct(top["prob"]) == logits_rows(doc)[0].prob
    if t < 1:
        assert (
            f"T = {t:g} is below 1, so the distribution is sharper: the top token has {pct(top['prob'])} "
            f"instead of {pct(top['prob_t1'])} at T = 1."
        ) in text
    elif t > 1:
        assert (
            f"T = {t:g} is above 1, so the distribution is flatter: the top token has {pct(top['prob'])} "
            f"instead of {pct(top['prob_t1'])} at T = 1."
        ) in text
    else:
        assert "At T = 1 the logits are used as they are." in text


def test_softmax_shifts_only_when_e_to_the_z_over_t_would_overflow(client):
    def shifted(temperature: str) -> bool:
        doc = unfold(
            client, parse(client.get("/?" + urlencode(bigram(prompt="It is a truth", temperature=temperature))).data)
        )
        return "the largest logit" in worked(doc, "softmax") and "is subtracted first" in worked(doc, "softmax")

    assert not shifted("1")
    assert shifted("0.01")  # z / T down to about -1,500


def test_sampling_writes_out_the_first_three_ranges_and_where_r_lands(state):
    _, ids, step, doc = state
    text = worked(doc, "sampling")
    kept = [row for row in step["rows"] if row["kept"]][:3]
    d = digits(step, bool(ids))
    ranges = "; ".join(f"{row['lo']:.{d}f} to {row['hi']:.{d}f} → '{label(row['token'])}'" for row in kept)
    more = "; … up to 1.000" if step["n_kept"] > len(kept) else ""
    assert f"The kept tokens are laid end to end on [0, 1), largest first: {ranges}{more}." in text
    assert kept[0]["lo"] == 0 and all(a["hi"] == b["lo"] for a, b in zip(kept, kept[1:], strict=False))
    rng = f"numpy.random.default_rng([{step['seed']}, {step['step']}]).random()"
    if not ids:
        assert f"Step draws r = {rng} and picks the range it falls in." in text
        return
    r, chosen = step["r"], step["chosen"]
    assert np.random.default_rng([step["seed"], step["step"]]).random() == r  # the r the page names
    assert chosen["lo"] <= r < chosen["hi"]
    d = pick_digits(step)
    assert (
        f"r = {r:.{d}f} ({rng}). It is at least {chosen['lo']:.{d}f} and below {chosen['hi']:.{d}f}, "
        f"so it lands in the range of '{label(chosen['token'])}'"
    ) in text


def test_decode_names_the_id_and_the_token_appended(state):
    _, ids, step, doc = state
    text = worked(doc, "decode")
    if not ids:
        assert "After Step, the picked id becomes text again and is appended" in text
        return
    assert step["chosen"]["id"] == ids[-1]
    assert f"id {ids[-1]} → '{label(step['chosen']['token'])}', appended to the text." in text
    start = 0 if step["prompt_tokens"] else 1  # an empty prompt's text starts with <p>, fed back at every step
    n, n_ctx = start + len(step["prompt_tokens"]) + len(ids), step["n_ctx"]
    fed = f"all {n} ids" if n <= n_ctx else f"the last {n_ctx} of the {n} ids (its context window)"
    assert f"The next step feeds {fed} back into the model." in text


CUT = re.compile(r"(Top-k|Top-p|Min-p) = (\S+) cut ([\d,]+) tokens? with (\S+ %|<0\.1 %) of the probability[;.]")
KEPT = re.compile(r"The ([\d,]+) kept tokens? \((\S+ %)\) were renormalised to add up to 100 %\.")


def test_truncation_sentence_states_the_counts_and_masses(state):
    params, _, step, doc = state
    note = doc.find("p", "truncation-note")
    rules = [(name, key) for name, key in (("Top-k", "top_k"), ("Top-p", "top_p"), ("Min-p", "min_p")) if key in params]
    if not rules:
        assert note is None
        return
    text = words(note)
    cuts = CUT.findall(text)
    assert [(rule, setting) for rule, setting, _, _ in cuts] == [(n, params[k]) for n, k in rules]
    n_cut = [int(count.replace(",", "")) for _, _, count, _ in cuts]
    kept = KEPT.search(text)
    assert kept, text
    assert kept[1] == f"{step['n_kept']:,}" and kept[2] == pct(step["kept_mass"])
    assert sum(n_cut) == step["n_vocab"] - step["n_kept"]  # every token has p > 0 at these temperatures
    if rules[0][0] == "Top-k":  # the first rule sees the whole vocabulary
        assert n_cut[0] == step["n_vocab"] - int(params["top_k"])
    masses = [0.0 if mass == "<0.1 %" else float(mass.removesuffix(" %")) for _, _, _, mass in cuts]
    rounding = 0.05 * (len(masses) + 1)
    assert sum(masses) + float(kept[2].removesuffix(" %")) == pytest.approx(100, abs=rounding)


def test_truncation_sentence_for_top_k_5(client):
    doc = unfold(client, parse(client.get("/?" + urlencode(bigram(prompt="The girl saw a", top_k="5"))).data))
    step = client.get("/api/step?" + urlencode(bigram(prompt="The girl saw a", top_k="5"))).json
    text = words(doc.find("p", "truncation-note"))
    cut = 1 - sum(row["prob"] for row in step["rows"][:5])
    assert text == (
        f"Top-k = 5 cut 4,995 tokens with {pct(cut)} of the probability. "
        f"The 5 kept tokens ({pct(step['kept_mass'])}) were renormalised to add up to 100 %."
    )


def test_a_tiny_temperature_is_not_a_500(client):
    assert client.get("/?model=austen-bigram&prompt=Mr.+Darcy&temperature=1e-320").status_code in (200, 400)


def test_a_tiny_temperature_with_positive_logits_gives_finite_arithmetic(app, client):
    if TRANSFORMER not in app.extensions["models"]:
        pytest.skip(f"{TRANSFORMER} is not bundled")
    query = urlencode({"model": TRANSFORMER, "prompt": "Mr. Darcy", "temperature": "1e-308"})
    response = client.get("/?" + query)  # under filterwarnings = error, numpy's overflow warning is a 500
    assert response.status_code == 200
    text = worked(unfold(client, parse(response.data)), "softmax")
    assert "inf" not in text and "∞" not in text
