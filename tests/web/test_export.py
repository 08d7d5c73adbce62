"""The downloads: every step as JSON, the table on screen as CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest

from webapp.inference.derived.export import CSV_COLUMNS, trace_to_dict
from webapp.web.state import parse_state

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
    expected = trace_to_dict(model, PROMPT, state.ids, state.sources, state.settings)
    assert response.get_json() == json.loads(json.dumps(expected))
    assert len(response.get_json()["steps"]) == len(three)


def test_export_json_before_any_step_has_no_steps(client):
    assert client.get(url("/export.json", **BASE)).get_json()["steps"] == []


def csv_row_on_screen(d: dict[str, str]) -> tuple:
    """A CSV line as the page writes it: '0.0312...' -> '3.1 %' and so on."""
    value = {k: (None if v == "" else v) for k, v in d.items()}
    scaled = None if value["scaled"] is None else float(value["scaled"])
    lo = None if value["lo"] is None else float(value["lo"])
    hi = None if value["hi"] is None else float(value["hi"])
    return (value["rank"], label(value["token"]), value["id"], num(float(value["logit"])), num(scaled),
            pct(float(value["prob"])), span(lo, hi))


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
    lines = list(csv.reader(io.StringIO(response.data.decode())))
    assert tuple(lines[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, line, strict=True)) for line in lines[1:-1]]

    doc = page(client, **state)
    on_screen = [(r.rank, r.token, r.id, r.logit, r.scaled, r.prob, r.range) for r in logits_rows(doc)]
    assert [csv_row_on_screen(d) for d in body] == on_screen[: len(body)]
    assert len(on_screen) - len(body) <= 2  # the page may add the pick's and the text's rows below
    rest = dict(zip(CSV_COLUMNS, lines[-1], strict=True))
    shown_rest = rest_row(doc)
    assert shown_rest["label"].startswith(f"{int(rest['token'].split()[0]):,} other tokens")
    assert shown_rest["prob"] == pct(float(rest["prob"]))
