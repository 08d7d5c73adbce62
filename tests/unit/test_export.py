"""The exports: the trace of every step replayed, and the table as CSV read back with the csv module."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.inference import Settings, run_step_table
from webapp.inference.derived.export import CSV_COLUMNS, read_table_csv, rows_to_csv, trace_to_dict
from webapp.inference.sampling import random_r
from webapp.inference.step import text_of

from .reference import N_VOCAB, prompts, truncating, with_bigram

# --- the trace ----------------------------------------------------------------------------------

sources = st.lists(st.one_of(st.just("s"), st.just("f"), st.floats(0.0, 0.999999)), max_size=6)


def build_trace(model, prompt: str, plan, s: Settings) -> list[int]:
    """Generate ids as the screen would: seeded picks, an r the teacher typed, or a forced token."""
    ids: list[int] = []
    for source in plan:
        if source == "s":
            ids.append(run_step_table(model, prompt, ids, s).chosen.id)
        elif source == "f":
            step = run_step_table(model, prompt, ids, s)
            ids.append(next(row.id for row in step.rows if row.id != step.chosen.id))  # not the pick
        else:
            ids.append(run_step_table(model, prompt, ids, s, r=source).chosen.id)
    return ids


@with_bigram
@given(prompt=prompts, plan=sources, seed=st.integers(0, 10**6),
       temperature=st.one_of(st.just(0.0), st.floats(0.3, 2.0)), top_k=st.one_of(st.none(), st.integers(2, 40)))
def test_trace_replays_each_step(bigram, prompt, plan, seed, temperature, top_k):
    s = Settings(temperature=temperature, top_k=top_k, seed=seed)
    ids = build_trace(bigram, prompt, plan, s)

    given_rs = [source if isinstance(source, float) else None for source in plan]
    trace = trace_to_dict(bigram, prompt, ids, s, given_rs=given_rs, forced=[source == "f" for source in plan])

    json.dumps(trace, allow_nan=False)  # plain JSON: no NumPy types, no NaN or infinity
    assert trace["model"] == bigram.name
    assert trace["prompt"] == prompt
    assert trace["generated"] == ids
    assert trace["text"] == text_of(bigram, prompt, ids)
    assert len(trace["steps"]) == len(ids)
    for i, (step, source, token) in enumerate(zip(trace["steps"], plan, ids, strict=True)):
        assert step["step"] == i
        assert (step["temperature"], step["top_k"], step["seed"]) == (temperature, top_k, seed)
        assert step["forced"] == (source == "f")
        assert step["token_in_text"]["id"] == token
        assert step["rows"][0]["rank"] == 1
        assert step["rows"] == sorted(step["rows"], key=lambda row: row["rank"])
        if source == "f":
            assert step["pick"]["id"] != token  # the pick is kept, the text has the forced token
            assert step["r_source"] == "seed"
        else:
            assert step["pick"]["id"] == token
        if isinstance(source, float):
            assert (step["r"], step["r_source"]) == (source, "given")
        else:
            assert (step["r"], step["r_source"]) == (random_r(seed, i), "seed")
        pick = step["pick"]
        assert pick["lo"] <= step["r"] < pick["hi"] or pick["hi"] == pytest.approx(1.0)


def test_an_empty_trace_has_no_steps(bigram):
    trace = trace_to_dict(bigram, "Mr. Darcy said", [], Settings(seed=1), given_rs=[], forced=[])
    assert trace["steps"] == [] and trace["generated"] == [] and trace["text"] == "Mr. Darcy said"


# --- the CSV ------------------------------------------------------------------------------------


def cell(value) -> str:
    """What a CSV cell holds for a row's value: '' for None, str() otherwise (a float's repr)."""
    return "" if value is None else str(value)


@with_bigram
@given(prompt=prompts, s=truncating)
def test_rows_to_csv_reads_back_to_the_rows(bigram, prompt, s):
    result = run_step_table(bigram, prompt, (), s)

    heading, lines = read_table_csv(rows_to_csv(result))

    assert heading["prompt"] == prompt and float(heading["temperature"]) == s.temperature
    assert float(heading["r"]) == result.r and int(heading["picked"]) == result.chosen.id
    assert heading["top_k"] == cell(s.top_k) and int(heading["seed"]) == s.seed
    assert tuple(lines[0]) == CSV_COLUMNS
    body, rest = lines[1:-1], lines[-1]
    assert len(body) == len(result.rows)
    for line, row in zip(body, result.rows, strict=True):
        d = dict(zip(CSV_COLUMNS, line, strict=True))
        assert int(d["rank"]) == row.rank and int(d["id"]) == row.id and d["token"] == as_written(row.token)
        for name in ("logit", "prob", "prob_t1", "prob_kept"):
            assert float(d[name]) == getattr(row, name), name  # exact: the CSV holds each float's repr
        assert (d["tokens"], d["kept"]) == ("1", str(int(row.kept)))  # one format: how many are kept
        for name in ("scaled", "lo", "hi"):
            value = getattr(row, name)
            if value is None or not math.isfinite(value):
                assert d[name] == "", name
            else:
                assert float(d[name]) == value, name
    r = result.rest
    assert rest[1] == f"{r.count} other tokens"
    assert float(rest[CSV_COLUMNS.index("prob")]) == r.prob
    assert int(rest[CSV_COLUMNS.index("kept")]) == r.kept_count and int(rest[CSV_COLUMNS.index("tokens")]) == r.count
    assert float(rest[CSV_COLUMNS.index("prob_kept")]) == r.prob_kept
    assert rest[CSV_COLUMNS.index("lo")] == cell(r.lo) and rest[CSV_COLUMNS.index("hi")] == cell(r.hi)


def test_rows_to_csv_quotes_awkward_tokens(bigram):
    """Tokens such as ',' and '"' come back whole through a csv reader."""
    result = run_step_table(bigram, '"Yes," said she', (), Settings(seed=1), n_rows=N_VOCAB)
    tokens = [line[1] for line in read_table_csv(rows_to_csv(result))[1]][1:-1]
    assert tokens == [as_written(row.token) for row in result.rows]
    assert any(t in tokens for t in (",", '"'))


def as_written(token: str) -> str:
    """A token as the CSV holds it: one a spreadsheet would run as a formula starts with an apostrophe."""
    return "'" + token if token[:1] in ("=", "+", "-", "@", "\t", "\r") else token


def test_rows_to_csv_neutralises_cells_a_spreadsheet_would_run(bigram):
    result = run_step_table(bigram, "It is", (), Settings(seed=1), n_rows=N_VOCAB)
    lines = read_table_csv(rows_to_csv(result))[1][1:-1]
    dangerous = [line for line in lines if line[1].lstrip("'")[:1] in ("=", "+", "-", "@")]
    assert dangerous, "the vocabulary has such tokens, e.g. '-'"
    assert all(line[1].startswith("'") for line in dangerous)
    logit = CSV_COLUMNS.index("logit")
    assert any(float(line[logit]) < 0 for line in lines), "numbers, negative ones too, stay numbers"
