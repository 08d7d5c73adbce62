"""The downloads: every step as JSON, the table on screen as CSV."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from webapp.inference import Settings, run_step_table
from webapp.inference.derived.export import CSV_COLUMNS, read_table_csv, run_to_csv, trace_to_dict
from webapp.web.stages.screen import n_rows
from webapp.web.url.parse import parse_state

from .markup import label, logits_rows, num, pct, rest_row, span
from .seeded import BASE, PROMPT, joined, page, url


@pytest.mark.parametrize("params", [
    pytest.param({}, id="seeded"),
    pytest.param({"src": "s,f,0.999"}, id="forced-and-typed"),
    pytest.param({"src": "0.5,s,s", "temperature": "0.6", "top_k": "8", "at": "1", "present": "1"}, id="settings"),
])
def test_export_json_is_the_trace(client, model, three, params):
    response = client.get(url("/export.json", **BASE, ids=joined(three), **params))
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == 'attachment; filename="trace.json"'
    state = parse_state({**BASE, "ids": joined(three), **params}, client.application.extensions["models"],
                        client.application.config["DEFAULT_MODEL"])
    expected = trace_to_dict(model, PROMPT, state.ids, state.settings, given_rs=state.given_rs, forced=state.forced,
                             n_rows=n_rows(state))
    assert response.get_json() == json.loads(json.dumps(expected))
    assert len(response.get_json()["steps"]) == len(three)
    last = page(client, **BASE, ids=joined(three), **{k: v for k, v in params.items() if k != "at"})
    assert len(response.get_json()["steps"][-1]["rows"]) == len(logits_rows(last)), "as many rows as the screen"


def test_export_json_before_any_step_has_no_steps(client):
    assert client.get(url("/export.json", **BASE)).get_json()["steps"] == []


def csv_row_on_screen(d: dict[str, str], digits: int) -> tuple:
    """A CSV line as the page writes it: '0.0312...' -> '3.1 %' and so on."""
    value = {k: (None if v == "" else v) for k, v in d.items()}
    scaled = None if value["scaled"] is None else float(value["scaled"])
    lo = None if value["lo"] is None else float(value["lo"])
    hi = None if value["hi"] is None else float(value["hi"])
    token = value["token"]
    if token.startswith("'") and token[1:2] in ("=", "+", "-", "@"):  # neutralised for spreadsheets
        token = token[1:]
    return (value["rank"], label(token), value["id"], num(float(value["logit"])), num(scaled),
            pct(float(value["prob"])), span(lo, hi, digits, float(value["prob_kept"])))


@pytest.mark.parametrize("params", [
    pytest.param({}, id="last-step"),
    pytest.param({"at": "0"}, id="at"),
    pytest.param({"temperature": "0"}, id="greedy"),
    pytest.param({"top_k": "5", "top_p": "0.9"}, id="truncation"),
    pytest.param({"present": "1"}, id="presenter"),
    pytest.param({"src": "s,s,f"}, id="forced"),
])
def test_export_csv_is_the_table_on_screen(client, three, params):
    state = {**BASE, "ids": joined(three), **params}
    response = client.get(url("/export.csv", **state))
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    step = params.get("at", "2")
    assert response.headers["Content-Disposition"] == f'attachment; filename="logits-step-{step}.csv"'
    heading, lines = read_table_csv(response.data.decode())
    assert tuple(lines[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, line, strict=True)) for line in lines[1:-1]]
    assert heading["prompt"] == PROMPT and heading["seed"] == BASE["seed"] and heading["step"] == step
    assert heading["temperature"] == repr(float(params.get("temperature", "1")))
    assert {line["kept"] for line in body} <= {"0", "1"} and {line["tokens"] for line in body} == {"1"}

    doc = page(client, **state)
    on_screen = [(r.rank, r.token, r.id, r.logit, r.scaled, r.prob, r.range) for r in logits_rows(doc)]
    digits = len(on_screen[0][-1].split(",")[0]) - 3
    assert [csv_row_on_screen(d, max(digits, 3)) for d in body] == on_screen, "the rows on screen, the pick's too"
    rest = dict(zip(CSV_COLUMNS, lines[-1], strict=True))
    shown_rest = rest_row(doc)
    assert shown_rest["label"].startswith(f"{int(rest['token'].split()[0]):,} other tokens")
    assert shown_rest["prob"] == pct(float(rest["prob"]))


def test_the_run_csv_has_a_line_per_generated_token(client, model, three):
    params = {**BASE, "ids": joined(three), "src": "s,f,0.25", "temperature": "0.8", "top_k": "40"}
    response = client.get(url("/export-run.csv", **params))
    assert response.status_code == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == 'attachment; filename="run.csv"'
    lines = list(csv.DictReader(io.StringIO(response.data.decode())))
    assert [int(line["id"]) for line in lines] == three and [line["step"] for line in lines] == ["0", "1", "2"]
    assert [line["picked_by"] for line in lines] == ["seeded r", "chosen by hand", "typed r"]
    assert float(lines[2]["r"]) == 0.25 and float(lines[0]["r"]) == np.random.default_rng([7, 0]).random()
    assert {(line["temperature"], line["top_k"], line["seed"], line["prompt"]) for line in lines} == {
        ("0.8", "40", "7", PROMPT)}
    for i, line in enumerate(lines):
        row = run_step_table(model, PROMPT, three[:i], Settings(temperature=0.8, top_k=40, seed=7)).row_of(three[i])
        assert (int(line["rank"]), float(line["prob"]), line["token"]) == (row.rank, row.prob, row.token)
    state = parse_state(params, client.application.extensions["models"], client.application.config["DEFAULT_MODEL"])
    assert response.data.decode() == run_to_csv(model, PROMPT, state.ids, state.settings, given_rs=state.given_rs,
                                                forced=state.forced)
