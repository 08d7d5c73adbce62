"""A class model's panels: the worked example, the share column, the count table, the controls and the JSON twin.

Every figure is recomputed here from the sentences with a plain count (split on spaces: each sentence's words
are written with spaces around them), and Austen's part of a mix from the austen-bigram's counts file, never
from the app's tables.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest

from webapp.inference.class_text import from_room
from webapp.web.class_model import class_access

from .markup import HTMX, parse, pct, query_of, words

SENTENCES = [("ana", "We like lunch ."), ("ben", "We like school ."), ("ana", "Lunch is good ."),
             ("cy", "We eat lunch at school ."), ("dan", "School is fun at lunch ."), ("ben", "We like it .")]
TOPIC = "school lunch"
AUSTEN_DIR = Path(__file__).resolve().parents[2] / "webapp" / "models" / "austen-bigram"


@pytest.fixture(scope="module")
def name(app) -> str:
    with app.test_request_context("/"):
        return class_access.keep(from_room(SENTENCES, TOPIC))


def pairs_of(sentences) -> Counter:
    pairs: Counter = Counter()
    for sentence in sentences:
        tokens = ["<s>", *sentence.split(), "<s>"]
        pairs.update(zip(tokens, tokens[1:], strict=False))
    return pairs


PAIRS = pairs_of(s for _, s in SENTENCES)
VOCAB = ["<unk>", "<p>", "<s>", *dict.fromkeys(w for _, s in SENTENCES for w in s.split())]


def n_prev(prev: str) -> int:
    return sum(n for (p, _), n in PAIRS.items() if p == prev)


def p_class(prev: str, nxt: str, k: float) -> float:
    return (PAIRS[prev, nxt] + k) / (n_prev(prev) + k * len(VOCAB))


def p_austen(prev: str) -> dict[str, float]:
    """Austen's bigram over the class's words, from its counts file: its <p> for <s>, its <unk> for a word it lacks,
    shared by the class's words that map to one of its tokens, then renormalised over the class's words."""
    austen_vocab = json.loads((AUSTEN_DIR / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    k = json.loads((AUSTEN_DIR / "config.json").read_text(encoding="utf-8"))["k"]
    with np.load(AUSTEN_DIR / "counts.npz") as arrays:
        indptr, indices, counts_of = arrays["indptr"], arrays["indices"], arrays["counts"]
    index = {w: i for i, w in enumerate(austen_vocab)}
    as_austen = {w: "<p>" if w == "<s>" else w if w in index else "<unk>" for w in VOCAB}
    row = index[as_austen[prev]]
    lo, hi = indptr[row], indptr[row + 1]
    counts = dict(zip(indices[lo:hi].tolist(), counts_of[lo:hi].tolist(), strict=True))
    total = sum(counts.values())
    sharing = Counter(as_austen.values())
    q = {w: (counts.get(index[a], 0) + k) / (total + k * len(austen_vocab)) / sharing[a] for w, a in as_austen.items()}
    return {w: x / sum(q.values()) for w, x in q.items()}


def page(client, name, **params):
    response = client.get("/?" + urlencode({"model": name, "guide": "1", **params}))
    assert response.status_code == 200, response.get_data(as_text=True)
    return parse(response.data)


def formulas(doc) -> list[str]:
    return [words(p) for p in doc.by_id("logits").find_all("p", "formula")]


@pytest.mark.parametrize("prompt", ["We like", "We", "", "Lunch is"])
@pytest.mark.parametrize("k", [0.01, 0.5])
def test_the_worked_example_counts_the_top_word_in_the_sentences(client, name, prompt, k):
    doc = page(client, name, prompt=prompt, k=k)
    prev = prompt.split()[-1] if prompt else "<s>"
    text = words(doc.by_id("logits"))
    expected = {w: p_class(prev, w, k) for w in VOCAB}
    best = max(expected.values())
    if prev == "<s>":
        token, count, total = re.search(r"'(\S+)' began (\d+) of our (\d+) sentences", text).groups()
        seen = total
    else:
        p = re.escape(prev)
        token, count, total, seen = re.search(
            rf"'(\S+)' followed '{p}' (\d+) times? in our (\d+) sentences; '{p}' appeared (\d+) times?", text).groups()
    assert math.isclose(expected[token], best)  # the example is the top token
    assert int(count) == PAIRS[prev, token] and int(total) == len(SENTENCES) and int(seen) == n_prev(prev)
    k_text = f"{k:g}"
    assert f"k = {k_text}" in text and f"V = {len(VOCAB)} words" in text
    assert (f"p = ({count} + k) / ({seen} + k × V) = ({count} + {k_text}) / ({seen} + {k_text} × {len(VOCAB)}) "
            f"= {pct(best)}") in formulas(doc)
    assert f"z = log({best:.4f}) = {'−' if best < 1 else ''}{abs(math.log(best)):.3f}" in formulas(doc)


@pytest.mark.parametrize("w", [0.7, 0.25])
def test_the_mixed_worked_example_writes_out_both_parts_and_the_class_share(client, name, w):
    doc = page(client, name, prompt="We like", mix=w)
    austen = p_austen("like")
    mixed = {t: w * p_class("like", t, 0.01) + (1 - w) * austen[t] for t in VOCAB}
    top = max(mixed, key=lambda t: (mixed[t], -VOCAB.index(t)))
    ours, hers = p_class("like", top, 0.01), austen[top]
    f = formulas(doc)
    assert any(line.endswith(f"= {pct(ours)}") and line.startswith("pours =") for line in f), f
    assert (f"p = w × pours + (1 − w) × pAusten = {w:g} × {pct(ours)} + {1 - w:g} × {pct(hers)} "
            f"= {pct(mixed[top])}") in f
    assert f"{pct(w * ours / mixed[top])} of this probability came from our sentences." in words(doc.by_id("logits"))


def test_each_row_of_a_mixed_table_says_its_share_from_the_sentences(client, name):
    w = 0.6
    doc = page(client, name, prompt="We like", mix=w)
    austen = p_austen("like")
    rows = doc.by_id("logits").find("tbody").find_all("tr")
    assert len(rows) == len(VOCAB)
    for row in rows:
        token = words(row.find_all("td")[1].find("span", "tok"))
        token = {"¶": "<p>"}.get(token, token)
        ours = w * p_class("like", token, 0.01)
        share = ours / (ours + (1 - w) * austen[token])
        assert words(row.find("span", "class-share")) == f"{100 * share:.0f} % ours", token
    # the class's counts alone have no share to give
    assert page(client, name, prompt="We like").by_id("logits").find("span", "class-share") is None


@pytest.mark.parametrize(("prompt", "prev"), [("We like", "like"), ("", "<s>"), ("We eat lunch at", "at")])
@pytest.mark.parametrize("mix", [1, 0.5])
def test_the_count_table_shows_the_pair_counts_and_highlights_the_row_the_step_reads(client, name, prompt, prev, mix):
    doc = page(client, name, prompt=prompt, inside="1", mix=mix)
    table = doc.by_id("inside").find("table", "heat-map")
    columns = [words(th) for th in table.find("thead").find_all("th")[1:]]
    rows = table.find("tbody").find_all("tr")
    assert [words(tr.find("th")) for tr in rows] == columns and len(columns) >= 8 and prev in columns
    written = Counter(nxt for (_, nxt) in PAIRS.elements())  # how often each word was written (and <s>: ended)
    left_out = [w for w in written if w not in columns]
    followers = {w for w in written if PAIRS[prev, w] > 0}
    most = max((PAIRS[prev, w] for w in followers), default=0)
    assert all(w in columns for w in followers if PAIRS[prev, w] == most)  # where the row read has its largest count
    others = [c for c in columns if c != prev and c not in followers]
    assert all(written[c] >= written[w] for c in others for w in left_out)  # the most written words
    for tr in rows:
        row_word = words(tr.find("th"))
        assert [int(words(td)) for td in tr.find_all("td")] == [PAIRS[row_word, col] for col in columns]
        assert ("heat-read" in tr.classes) == (row_word == prev)
        for td, col in zip(tr.find_all("td"), columns, strict=True):
            assert ("heat-0" in td.classes) == (PAIRS[row_word, col] == 0)


def test_the_controls_name_the_class_model_and_keep_k_and_mix_in_the_url(client, name):
    doc = page(client, name, prompt="We like", k="0.5", mix="0.7")
    options = doc.by_id("model").find_all("option")
    assert [o.attrs["value"] for o in options if "selected" in o.attrs] == [name]
    assert [o.attrs["value"] for o in options if o.attrs["value"].startswith("class:")] == [name]
    form = doc.by_id("controls")
    assert form.by_id("class-k").attrs["value"] == "0.5" and form.by_id("class-k").attrs["name"] == "k"
    assert form.by_id("class-mix").attrs["value"] == "0.7" and form.by_id("class-mix").attrs["name"] == "mix"
    assert words(doc.by_id("class-mix-shares")) == "From our sentences: 70 % · from Jane Austen's novels: 30 %"
    assert words(doc.find("p", "model-description")).startswith(
        f"Counted from our {len(SENTENCES)} sentences (topic: {TOPIC}).")
    # a Step sends the form: k and the mix come back in the address
    stepped = client.get("/step?" + urlencode({"model": name, "prompt": "We like", "k": "0.5", "mix": "0.7"}),
                         headers=HTMX)
    pushed = query_of(stepped.headers["HX-Push-Url"])
    assert pushed["k"] == "0.5" and pushed["mix"] == "0.7"
    # another model leaves the class's out of its menu
    assert not [o for o in page(client, "austen-bigram").by_id("model").find_all("option")
                if o.attrs["value"].startswith("class:")]


def test_the_stepper_links_to_the_models_own_page_but_not_on_the_projector(client, name):
    link = page(client, name, lang="de").find("p", "class-page-link").find("a")
    assert link.attrs["href"] == f"/class/{name.split(':')[1]}?lang=de"
    assert client.get(link.attrs["href"]).status_code == 200
    assert page(client, name, present="1").find("p", "class-page-link") is None


def test_a_change_of_mix_sends_the_description_again(client, name):
    doc = page(client, name, prompt="We like")
    shown = next(i.attrs["value"] for i in doc.by_id("controls").find_all("input") if i.attrs.get("name") == "shown")
    answer = client.get("/?" + urlencode({"model": name, "prompt": "We like", "mix": "0.4", "shown": shown}),
                        headers=HTMX)
    fragment = parse(answer.data)
    assert words(fragment.by_id("class-mix-shares")) == "From our sentences: 40 % · from Jane Austen's novels: 60 %"


@pytest.mark.parametrize("bad", ["k=0", "k=1.5", "k=-1", "k=inf", "mix=2", "mix=-0.5", "mix=nan"])
def test_a_bad_k_or_mix_is_a_400_that_changes_nothing(client, name, bad):
    response = client.get(f"/step?model={name}&prompt=We&{bad}", headers=HTMX)
    assert response.status_code == 400
    assert "HX-Push-Url" not in response.headers and "HX-Replace-Url" not in response.headers
    doc = parse(response.data)
    assert doc.by_id("logits") is None and doc.find("p", "error-message") is not None
    assert client.get(f"/api/step?model={name}&prompt=We&{bad}").status_code == 400


def test_sentence_words_and_the_topic_are_escaped_in_every_panel(client, app):
    with app.test_request_context("/"):
        evil = class_access.keep(from_room([("a", "<b>x</b> is <i>bold</i> ."), ("b", "x is '\"&amp; ok .")],
                                           "<b>topic</b>"))
    for params in ({"prompt": "", "inside": "1"}, {"prompt": "x is", "inside": "1", "mix": "0.5"}):
        response = client.get("/?" + urlencode({"model": evil, "guide": "1", **params}))
        assert response.status_code == 200
        doc = parse(response.data)
        assert not doc.find_all("b") and not doc.find_all("i")
        assert "<b>topic</b>" in words(doc.find("p", "model-description"))
        for panel in ("logits", "inside", "tokens", "text"):
            assert doc.by_id(panel) is not None, panel
        heat = doc.by_id("inside").find("table", "heat-map")
        assert "<" in [words(th) for th in heat.find("thead").find_all("th")]  # the sentence's '<' as a word


def test_the_json_twin_gives_the_row_read_and_every_probability_follows_from_it(client, name):
    for prompt, prev in (("We like", "like"), ("", "<s>")):
        step = client.get("/api/step?" + urlencode({"model": name, "prompt": prompt, "k": "0.5"})).json
        c = step["class"]
        assert c["prev"] == prev and c["n_prev"] == n_prev(prev) and c["n_sentences"] == len(SENTENCES)
        assert c["k"] == 0.5 and c["n_vocab"] == len(VOCAB) and c["w"] == 1.0
        assert c["counts"] == {nxt: n for (p, nxt), n in PAIRS.items() if p == prev}
        for row in step["rows"]:
            token = row["token"]
            assert math.isclose(row["prob"], p_class(prev, token, 0.5), rel_tol=1e-12)
            from_json = (c["counts"].get(token, 0) + c["k"]) / (c["n_prev"] + c["k"] * c["n_vocab"])
            assert math.isclose(row["prob"], from_json, rel_tol=1e-12)
        assert "p_class" not in c


def test_the_mixed_json_twin_gives_both_parts_of_each_row(client, name):
    w = 0.7
    step = client.get("/api/step?" + urlencode({"model": name, "prompt": "We like", "mix": w})).json
    c = step["class"]
    austen = p_austen("like")
    assert c["w"] == w and set(c["p_class"]) == {row["token"] for row in step["rows"]}
    for row in step["rows"]:
        token = row["token"]
        assert math.isclose(c["p_class"][token], p_class("like", token, 0.01), rel_tol=1e-12)
        assert math.isclose(c["p_other"][token], austen[token], rel_tol=1e-9)
        assert math.isclose(row["prob"], w * c["p_class"][token] + (1 - w) * c["p_other"][token], rel_tol=1e-12)
