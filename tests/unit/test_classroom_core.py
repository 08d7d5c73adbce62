"""The core behind the classroom features: temperatures side by side, any token's row, the trace, the CSV.

Each result is checked against a computation written here from the definitions, not against the
core's own helpers: softmax(logits / T) in plain NumPy, ranks by sorting, the CSV read back with
the csv module.
"""

from __future__ import annotations

import csv
import io
import json
import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import InvalidTokenIds, Settings, run_step
from webapp.inference.derived.compare import TEMPERATURES, at_temperatures
from webapp.inference.derived.export import CSV_COLUMNS, rows_to_csv, trace_to_dict
from webapp.inference.sampling import random_r
from webapp.inference.step import text_of

N_VOCAB = 5000  # austen-bigram
PROMPTS = ["", "Mr. Darcy said", "It is a truth universally acknowledged", "She smiled.\n\nThe"]
prompts = st.sampled_from(PROMPTS)
with_bigram = settings(deadline=None)  # the bigram model makes each example a millisecond or two


def reference_probs(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(logits / T) in float64, written out; T = 0 is one-hot on the first largest logit."""
    z = np.asarray(logits, dtype=np.float64)  # [n_vocab]
    if temperature == 0:
        p = np.zeros_like(z)
        p[np.flatnonzero(z == z.max())[0]] = 1.0
        return p
    e = np.exp((z - z.max()) / temperature)  # [n_vocab], largest term exp(0) = 1
    return e / e.sum()


def reference_ranking(probs: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """Ids by probability, then logit, largest first, ties by smaller id (a stable sort on a key)."""
    return np.array(sorted(range(len(probs)), key=lambda i: (-probs[i], -logits[i], i)))


# --- temperatures side by side ------------------------------------------------------------------


@with_bigram
@given(prompt=prompts, temperature=st.one_of(st.just(0.0), st.sampled_from(TEMPERATURES), st.floats(0.05, 5.0)),
       top_k=st.one_of(st.none(), st.integers(1, 20)))
def test_at_temperatures_is_softmax_of_logits_over_t_for_the_top_rows(bigram, prompt, temperature, top_k):
    result = run_step(bigram, prompt, (), Settings(temperature=temperature, top_k=top_k, seed=3))

    c = at_temperatures(result)

    assert c.temperatures == tuple(sorted({0.5, 1.0, 1.5, temperature}))
    top = result.rows[:5]
    assert c.ids == tuple(row.id for row in top)  # the step's own ranking, truncation ignored
    assert c.tokens == tuple(row.token for row in top)
    assert len(c.probs) == len(top)
    for k, t in enumerate(c.temperatures):
        expected = reference_probs(result.logits, t)
        for j, token_id in enumerate(c.ids):
            assert c.probs[j][k] == pytest.approx(expected[token_id], rel=1e-9, abs=1e-15), (t, token_id)
    if temperature in c.temperatures:  # the chosen T's column is the step's own probability
        k = c.temperatures.index(temperature)
        assert [p[k] for p in c.probs] == pytest.approx([row.prob for row in top], rel=1e-12, abs=1e-15)


def test_at_temperatures_sharpens_below_one_and_flattens_above(bigram):
    result = run_step(bigram, "It is a truth universally", (), Settings(seed=1))
    c = at_temperatures(result)
    first = c.probs[0]  # the top token at 0.5, 1, 1.5
    assert c.temperatures == (0.5, 1.0, 1.5)
    assert first[0] > first[1] > first[2]


def test_at_temperatures_takes_other_temperatures_and_a_row_count(bigram):
    result = run_step(bigram, "Mr. Darcy said", (), Settings(temperature=0.8, seed=1))
    c = at_temperatures(result, temperatures=(0.25, 2.0), n=3)
    assert c.temperatures == (0.25, 0.8, 2.0)
    assert len(c.ids) == len(c.probs) == 3
    for row in c.probs:
        assert len(row) == 3


# --- any token's row ----------------------------------------------------------------------------

truncating = st.builds(
    Settings,
    temperature=st.one_of(st.just(0.0), st.floats(0.2, 2.5)),
    top_k=st.one_of(st.none(), st.integers(1, 200)),
    top_p=st.one_of(st.none(), st.floats(0.1, 1.0)),
    min_p=st.one_of(st.none(), st.floats(0.0, 0.2)),
    seed=st.integers(0, 1000),
)


@with_bigram
@given(prompt=prompts, s=truncating)
def test_row_of_a_shown_token_is_its_table_row(bigram, prompt, s):
    result = run_step(bigram, prompt, (), s)
    for row in result.rows:
        assert result.row_of(row.id) == row
    assert result.row_of(result.chosen.id) == result.chosen


@with_bigram
@given(prompt=prompts, s=truncating, token_ids=st.lists(st.integers(0, N_VOCAB - 1), min_size=1, max_size=6))
def test_row_of_any_token_agrees_with_an_independent_ranking(bigram, prompt, s, token_ids):
    result = run_step(bigram, prompt, (), s)
    ranking = reference_ranking(result.probs, result.logits)  # [n_vocab] ids
    rank_of = np.empty(N_VOCAB, dtype=np.int64)
    rank_of[ranking] = np.arange(1, N_VOCAB + 1)
    expected_probs = reference_probs(result.logits, s.temperature)  # [n_vocab]
    shown = {row.id for row in result.rows}

    rows = [result.row_of(i) for i in token_ids]

    for i, row in zip(token_ids, rows, strict=True):
        assert row.id == i
        assert row.token == bigram.tokenizer.token_text(i)
        assert row.rank == rank_of[i]
        assert (row.rank <= len(result.rows)) == (i in shown)
        assert row.logit == result.logits[i]
        assert row.prob == pytest.approx(expected_probs[i], rel=1e-9, abs=1e-15)
        assert row.kept == (row.prob_kept > 0)
        if row.kept:
            assert 0 <= row.lo <= row.hi <= 1
            assert row.hi - row.lo == pytest.approx(row.prob_kept, rel=1e-6, abs=1e-12)
        else:
            assert row.lo is None and row.hi is None and row.prob_kept == 0
    # Ranges lie end to end in ranking order: a better-ranked kept token's range comes first.
    kept = sorted((row for row in rows if row.kept), key=lambda row: row.rank)
    for a, b in pairwise(kept):
        if a.id != b.id:
            assert a.hi <= b.lo + 1e-12
    # A cut token ranks below every kept one.
    if any(not row.kept for row in rows):
        worst_cut_rank = min(row.rank for row in rows if not row.kept)
        assert worst_cut_rank > result.n_kept


@with_bigram
@given(prompt=prompts, s=truncating)
def test_the_chosen_row_holds_r(bigram, prompt, s):
    result = run_step(bigram, prompt, (), s)
    chosen = result.row_of(result.chosen.id)
    assert chosen.kept
    assert chosen.lo <= result.r < chosen.hi or (chosen.hi == pytest.approx(1.0) and result.r >= chosen.lo)


@pytest.mark.parametrize("bad", [-1, N_VOCAB, 10**9])
def test_row_of_an_id_outside_the_vocabulary_is_refused(bigram, bad):
    result = run_step(bigram, "Mr. Darcy said", (), Settings(seed=1))
    with pytest.raises(InvalidTokenIds):
        result.row_of(bad)


# --- the trace ----------------------------------------------------------------------------------

sources = st.lists(st.one_of(st.just("s"), st.just("f"), st.floats(0.0, 0.999999)), max_size=6)


def build_trace(model, prompt: str, plan, s: Settings) -> list[int]:
    """Generate ids as the screen would: seeded picks, an r the teacher typed, or a forced token."""
    ids: list[int] = []
    for source in plan:
        if source == "s":
            ids.append(run_step(model, prompt, ids, s).chosen.id)
        elif source == "f":
            step = run_step(model, prompt, ids, s)
            ids.append(next(row.id for row in step.rows if row.id != step.chosen.id))  # not the pick
        else:
            ids.append(run_step(model, prompt, ids, s, r=source).chosen.id)
    return ids


@with_bigram
@given(prompt=prompts, plan=sources, seed=st.integers(0, 10**6),
       temperature=st.one_of(st.just(0.0), st.floats(0.3, 2.0)), top_k=st.one_of(st.none(), st.integers(2, 40)))
def test_trace_replays_each_step(bigram, prompt, plan, seed, temperature, top_k):
    s = Settings(temperature=temperature, top_k=top_k, seed=seed)
    ids = build_trace(bigram, prompt, plan, s)

    trace = trace_to_dict(bigram, prompt, ids, plan, s)

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
    trace = trace_to_dict(bigram, "Mr. Darcy said", [], [], Settings(seed=1))
    assert trace["steps"] == [] and trace["generated"] == [] and trace["text"] == "Mr. Darcy said"


# --- the CSV ------------------------------------------------------------------------------------


def cell(value) -> str:
    """What a CSV cell holds for a row's value: '' for None, str() otherwise (a float's repr)."""
    return "" if value is None else str(value)


@with_bigram
@given(prompt=prompts, s=truncating)
def test_rows_to_csv_reads_back_to_the_rows(bigram, prompt, s):
    result = run_step(bigram, prompt, (), s)

    lines = list(csv.reader(io.StringIO(rows_to_csv(result))))

    assert tuple(lines[0]) == CSV_COLUMNS
    body, rest = lines[1:-1], lines[-1]
    assert len(body) == len(result.rows)
    for line, row in zip(body, result.rows, strict=True):
        d = dict(zip(CSV_COLUMNS, line, strict=True))
        assert int(d["rank"]) == row.rank and int(d["id"]) == row.id and d["token"] == row.token
        for name in ("logit", "prob", "prob_t1", "prob_kept"):
            assert float(d[name]) == getattr(row, name), name  # exact: the CSV holds each float's repr
        assert d["kept"] == str(row.kept)
        for name in ("scaled", "lo", "hi"):
            value = getattr(row, name)
            if value is None or not math.isfinite(value):
                assert d[name] == "", name
            else:
                assert float(d[name]) == value, name
    r = result.rest
    assert rest[1] == f"{r.count} other tokens"
    assert float(rest[CSV_COLUMNS.index("prob")]) == r.prob
    assert int(rest[CSV_COLUMNS.index("kept")]) == r.kept_count
    assert float(rest[CSV_COLUMNS.index("prob_kept")]) == r.prob_kept
    assert rest[CSV_COLUMNS.index("lo")] == cell(r.lo) and rest[CSV_COLUMNS.index("hi")] == cell(r.hi)


def test_rows_to_csv_quotes_awkward_tokens(bigram):
    """Tokens such as ',' and '"' come back whole through a csv reader."""
    result = run_step(bigram, '"Yes," said she', (), Settings(seed=1), n_rows=N_VOCAB)
    tokens = [line[1] for line in csv.reader(io.StringIO(rows_to_csv(result)))][1:-1]
    assert tokens == [row.token for row in result.rows]
    assert any(t in tokens for t in (",", '"'))
