"""The JSON twin: its fields, its random number, and that the page shows exactly its figures."""

from __future__ import annotations

from itertools import pairwise
from urllib.parse import urlencode

import numpy as np
import pytest

from webapp.inference import Row

from .markup import digits, label, logits_rows, num, parse, pct, pick_digits, pick_sentence, rest_row, span, unfold

ROW_FIELDS = {"rank", "id", "token", "logit", "scaled", "prob", "kept", "lo", "hi"}
TOP_FIELDS = {
    "prompt_tokens",
    "generated",
    "temperature",
    "top_k",
    "top_p",
    "min_p",
    "seed",
    "step",
    "r",
    "chosen",
    "rows",
    "rest",
    "text",
}

# (settings, how many steps to take first): one state per temperature and truncation worth seeing.
STATES = {
    "default-no-ids": ({}, 0),
    "greedy": ({"temperature": "0", "seed": "5"}, 2),
    "greedy-no-ids": ({"temperature": "0"}, 0),
    "sharp-top-k": ({"temperature": "0.7", "top_k": "5", "seed": "7"}, 3),
    "flat-top-p": ({"temperature": "1.3", "top_p": "0.8", "seed": "42"}, 1),
    "min-p": ({"min_p": "0.05", "seed": "3"}, 2),
    "all-truncations": ({"temperature": "2", "top_k": "50", "top_p": "0.95", "min_p": "0.01", "seed": "11"}, 4),
    "top-k-1-no-ids": ({"top_k": "1", "seed": "9"}, 0),
    "pick-beyond-the-table": ({"temperature": "5", "seed": "0"}, 1),
    "unk-prompt": ({"prompt": "Mr. Darcy looked at the xylophone", "seed": "2"}, 2),
    "empty-prompt": ({"prompt": "", "temperature": "0.5", "seed": "123456789"}, 2),
}


def api(client, params: dict, ids: list[int], **extra) -> dict:
    query = {**params, **extra, **({"ids": ",".join(map(str, ids))} if ids else {})}
    response = client.get(f"/api/step?{urlencode(query)}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.json


def page(client, params: dict, ids: list[int]):
    query = {**params, **({"ids": ",".join(map(str, ids))} if ids else {})}
    response = client.get(f"/?{urlencode(query)}")
    assert response.status_code == 200
    return unfold(client, parse(response.data))


@pytest.fixture(scope="module", params=list(STATES), ids=list(STATES))
def state(request, app):
    """(settings, ids, the JSON of the step on display, the page's tree)."""
    client = app.test_client()
    params, n = STATES[request.param]
    ids: list[int] = []
    for _ in range(n):
        ids.append(api(client, params, ids)["chosen"]["id"])
    shown = api(client, params, ids[:-1])  # with ids, the page shows the step that picked the last one
    return params, ids, shown, page(client, params, ids)


def expected_rows(step: dict, taken: bool, n_vocab: int) -> list[dict]:
    """What each body row of the table must read, from the JSON."""
    out = []
    for row in step["rows"]:
        picked = taken and row["id"] == step["chosen"]["id"]
        cut = Row(**row).cut
        renorm = row["kept"] and step["n_kept"] < n_vocab and row["prob_kept"] != row["prob"]
        out.append(
            {
                "rank": str(row["rank"]),
                "token": label(row["token"]),
                "id": str(row["id"]),
                "logit": num(row["logit"]),
                "scaled": num(row["scaled"]),
                "prob": pct(row["prob"]),
                "prob_kept": f"kept: {pct(row['prob_kept'])}" if renorm else None,
                "range": span(row["lo"], row["hi"], digits(step, taken), row["prob_kept"]),
                "picked": picked,
                "cut": cut,
            }
        )
    # a pick ranked below the top rows is among the twin's rows, as it is on the page
    return out


def test_table_rows_are_the_twins_rows_rounded(state):
    params, ids, step, doc = state
    shown = logits_rows(doc)
    wanted = expected_rows(step, taken=bool(ids), n_vocab=step["n_vocab"])
    assert len(shown) == len(wanted)
    for got, want in zip(shown, wanted, strict=True):
        assert (got.rank, got.token, got.id) == (want["rank"], want["token"], want["id"])
        assert (got.logit, got.scaled) == (want["logit"], want["scaled"]), f"row {got.rank}"
        assert (got.prob, got.prob_kept) == (want["prob"], want["prob_kept"]), f"row {got.rank}"
        assert got.range == want["range"], f"row {got.rank}"
        assert ("picked" in got.classes) == want["picked"] == ("picked" in got.badges)
        assert ("cut" in got.classes) == want["cut"] == ("cut" in got.badges)


def test_rest_row_is_the_twins_rest(state):
    _, ids, step, doc = state
    rest = step["rest"]
    shown = rest_row(doc)
    assert shown["label"].startswith(f"{rest['count']:,} other tokens")
    assert (f"{rest['cut_count']:,} cut" in shown["label"]) == (rest["cut_count"] > 0)
    assert (f"{rest['zero_count']:,} at p = 0" in shown["label"]) == (rest["zero_count"] > 0)
    assert rest["count"] == rest["kept_count"] + rest["cut_count"] + rest["zero_count"]
    assert shown["prob"] == pct(rest["prob"])
    d = digits(step, bool(ids))
    assert shown["range"] == (" and ".join(span(lo, hi, d) for lo, hi in rest["ranges"]) or "—")


def test_pick_sentence_is_the_twins_r_and_range(state):
    _, ids, step, doc = state
    sentence = pick_sentence(doc)
    bar = doc.by_id("range-bar")
    if not ids:
        assert sentence is None
        assert "data-r" not in bar.attrs
        return
    chosen = step["chosen"]
    d = pick_digits(step)
    wanted_span = span(chosen["lo"], chosen["hi"], d, chosen["prob_kept"])
    assert sentence == (f"{step['r']:.{d}f}", wanted_span, label(chosen["token"]))
    assert chosen["lo"] <= step["r"] < chosen["hi"]
    assert float(bar.attrs["data-r"]) == step["r"], "the animation's target is the exact r"
    assert bar.attrs["data-step"] == str(step["step"])
    source = " ".join(doc.find("span", "r-source").text().split())
    assert source.endswith(f"In Python: numpy.random.default_rng([{step['seed']}, {step['step']}]).random())")
    assert f" {step['seed']} and the step number {step['step']}:" in source


def ranges_drawn(group) -> list[tuple[str, str]]:
    """(x, width) of each range a group of the range bar draws: [('0.000%', '25.586%'), ...]."""
    return [(g.find("rect").attrs.get("x", "0"), g.find("rect").attrs["width"]) for g in group.top_level()]


def test_range_bar_draws_the_twins_ranges_and_marks_the_pick(state):
    _, ids, step, doc = state
    bar = doc.by_id("range-bar")
    kept = [row for row in step["rows"] if row["kept"]]
    assert ranges_drawn(bar.find("g", "kept-ranges")) == [
        (f"{100 * row['lo']:.3f}%", f"{100 * (row['hi'] - row['lo']):.3f}%") for row in kept
    ]
    rest = [ranges_drawn(group) for group in bar.find_all("g", "rest-ranges")]
    assert rest[-1] == [(f"{100 * lo:.3f}%", f"{100 * (hi - lo):.3f}%") for lo, hi in step["rest"]["ranges"]]
    landing = [i for i, g in enumerate(bar.find("g", "kept-ranges").top_level()) if "landing" in g.classes]
    assert landing == ([kept.index(next(r for r in kept if r["id"] == step["chosen"]["id"]))] if ids else [])
    if ids:
        assert bar.find("svg", "marker").attrs["x"] == f"{100 * step['r']:.3f}%"


def test_in_vocabulary_order_the_bar_draws_the_rest_behind_the_kept_ranges_in_id_order(client):
    params = {"seed": "3", "range_order": "vocabulary"}
    ids = [api(client, params, [])["chosen"]["id"]]
    step, doc = api(client, params, []), page(client, params, ids)
    bar = doc.by_id("range-bar")
    behind, after = bar.find_all("g", "rest-ranges")
    assert ranges_drawn(behind) == [("0", "100%")] and ranges_drawn(after) == []
    kept = sorted((row for row in step["rows"] if row["kept"]), key=lambda row: row["lo"])
    assert [row["id"] for row in kept] == sorted(row["id"] for row in kept)
    assert ranges_drawn(bar.find("g", "kept-ranges")) == [
        (f"{100 * row['lo']:.3f}%", f"{100 * (row['hi'] - row['lo']):.3f}%") for row in step["rows"] if row["kept"]
    ]


def test_chart_numbers_are_the_twins_probabilities(state):
    _, _, step, doc = state
    table = doc.by_id("chart").find("table")
    cells = [[td.text().strip() for td in tr.find_all("td")] for tr in table.find("tbody").find_all("tr")]
    at_1 = step["temperature"] == 1  # one column: p at T and p at T = 1 are the same figures
    assert cells == [[label(r["token"]), *([] if at_1 else [pct(r["prob"])]), pct(r["prob_t1"])] for r in step["rows"]]
    headings = [th.text() for th in table.find("thead").find_all("th")]
    assert len(headings) == len(cells[0]) and headings.count("p at T = 1") == 1


def test_chart_bars_are_the_twins_probabilities_to_one_scale(state):
    """A bar per table row, in its order: its length is p at T (the faint one behind it: p at T = 1) on one
    scale, the longest of either 50 % of the chart's width; the rows stacked evenly, inside the chart."""
    _, ids, step, doc = state
    svg = doc.by_id("chart").find("svg")
    bars, rows = svg.find_all("g"), step["rows"]
    top = max(max(r["prob"] for r in rows), max(r["prob_t1"] for r in rows), 0.001)
    assert len(bars) == len(rows)
    for g, row in zip(bars, rows, strict=True):
        lengths = {rect.attrs["class"]: float(rect.attrs["width"].removesuffix("%")) for rect in g.find_all("rect")}
        assert lengths == pytest.approx({"bar": 50 * row["prob"] / top, "bar-t1": 50 * row["prob_t1"] / top}, abs=6e-4)
        name = label(row["token"])
        assert g.find("text", "bar-label").text() == (name if len(name) <= 19 else name[:13] + "…")
        assert g.find("text", "bar-value").text() == pct(row["prob"])
        assert ("picked" in g.classes) == (bool(ids) and row["id"] == step["chosen"]["id"])
        assert ("cut" in g.classes) == Row(**row).cut
    tops = [float(g.attrs["transform"].removeprefix("translate(0 ").removesuffix(")")) for g in bars]
    gaps = {b - a for a, b in pairwise(tops)}
    assert len(gaps) <= 1 and tops[0] >= 0 and tops[-1] + max(gaps, default=24) <= float(svg.attrs["height"])


def test_chips_are_the_twins_prompt_tokens(state):
    params, ids, step, doc = state
    chips = doc.by_id("tokens").find_all("li", "chip")
    prompt_chips, generated_chips = chips[: len(step["prompt_tokens"])], chips[len(step["prompt_tokens"]) :]
    for chip, token in zip(prompt_chips, step["prompt_tokens"], strict=True):
        assert chip.find("span", "chip-id").text() == str(token["id"])
        assert chip.find("span", "chip-text").text() == label(token["text"])
        assert ("chip-unk" in chip.classes) == token["unk"]
        if token["unk"]:
            assert chip.find("span", "chip-source").text() == token["source"]
    assert [c.find("span", "chip-id").text() for c in generated_chips] == [str(i) for i in ids]


def test_text_so_far_is_the_twins_text(app, state):
    params, ids, step, doc = state
    after = step["text_after"] if ids else step["text"]  # the page's text ends with the shown pick
    assert not ids or step["chosen"]["id"] == ids[-1], "the states are walked with their own settings"
    text = doc.by_id("text").find("p", "text-so-far").text()
    assert text.replace("¶", "") == after


def test_the_states_cover_what_the_table_can_show(app):
    """Guard the STATES above: greedy, cut rows, renormalised rows, <unk>, a pick below the table."""
    client = app.test_client()
    seen = set()
    for params, n in STATES.values():
        ids: list[int] = []
        for _ in range(n):
            ids.append(api(client, params, ids)["chosen"]["id"])
        step = api(client, params, ids[:-1])
        seen |= {"greedy"} if step["temperature"] == 0 else set()
        seen |= {"cut"} if any(Row(**r).cut for r in step["rows"]) else set()
        seen |= {"renormalised"} if 0 < step["n_kept"] < step["n_vocab"] else set()
        seen |= {"unk"} if any(t["unk"] for t in step["prompt_tokens"]) else set()
        seen |= {"beyond"} if ids and step["chosen"]["rank"] > len(step["rows"]) else set()
    assert seen == {"greedy", "cut", "renormalised", "unk", "beyond"}


def test_api_returns_every_field_the_issue_lists(client):
    step = api(client, {"prompt": "It is a truth universally acknowledged", "seed": "4"}, [11, 4])
    assert set(step) >= TOP_FIELDS
    assert all({"id", "text", "unk"} <= set(t) for t in step["prompt_tokens"])
    assert step["generated"]["ids"] == [11, 4]
    assert len(step["generated"]["tokens"]) == 2
    assert {"id", "token", "prob", "lo", "hi"} <= set(step["chosen"])
    assert all(set(row) >= ROW_FIELDS for row in step["rows"])
    top = [row["rank"] for row in step["rows"]][:20]  # then the pick's row, if it ranks below
    assert top == list(range(1, 21))
    assert {"count", "prob"} <= set(step["rest"])
    assert step["step"] == 2
    assert (step["temperature"], step["top_k"], step["top_p"], step["min_p"], step["seed"]) == (
        1.0,
        None,
        None,
        None,
        4,
    )
    assert isinstance(step["text"], str) and step["text"].startswith("It is a truth universally acknowledged")
    assert "logits" not in step


def test_api_echoes_the_settings(client):
    step = api(client, {"temperature": "0.25", "top_k": "7", "top_p": "0.5", "min_p": "0.125", "seed": "99"}, [])
    assert (step["temperature"], step["top_k"], step["top_p"], step["min_p"], step["seed"]) == (0.25, 7, 0.5, 0.125, 99)


def test_full_adds_every_logit(client):
    step = api(client, {"seed": "4"}, [3], full="1")
    assert len(step["logits"]) == step["n_vocab"] == 5000
    for row in step["rows"]:
        assert step["logits"][row["id"]] == row["logit"]
    assert max(step["logits"]) == step["rows"][0]["logit"]


def test_probabilities_of_the_table_and_rest_add_up_to_one(client):
    step = api(client, {"temperature": "0.9", "top_p": "0.7"}, [5])
    total = sum(r["prob"] for r in step["rows"]) + step["rest"]["prob"]
    assert total == pytest.approx(1.0, abs=1e-9)
    kept = [r for r in step["rows"] if r["kept"]]
    assert kept[0]["lo"] == 0.0
    for a, b in zip(kept, kept[1:], strict=False):
        assert a["hi"] == b["lo"]


@pytest.mark.parametrize(("seed", "n"), [(0, 0), (1, 1), (42, 3), (2**63 - 1, 2), (123456789, 5)])
def test_r_is_numpys_generator_seeded_with_seed_and_step(client, seed, n):
    ids = [3] * n
    step = api(client, {"seed": str(seed)}, ids)
    assert step["step"] == n
    assert step["r"] == np.random.default_rng([seed, n]).random()


def test_models_lists_the_bigram(client):
    response = client.get("/api/models")
    assert response.status_code == 200
    body = response.json
    names = [m["name"] for m in body["models"]]
    assert "austen-bigram" in names
    assert body["default"] in names
    bigram = body["models"][names.index("austen-bigram")]
    assert bigram["n_vocab"] == 5000 and bigram["n_ctx"] == 1
    assert bigram["description"]
