"""The same logits at several temperatures, checked against softmax(logits / T) written out here."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.inference import Settings, run_step_table
from webapp.inference.derived.compare import TEMPERATURES, at_temperatures

from .reference import prompts, reference_probs, with_bigram

# --- temperatures side by side ------------------------------------------------------------------


@with_bigram
@given(prompt=prompts, temperature=st.one_of(st.just(0.0), st.sampled_from(TEMPERATURES), st.floats(0.05, 5.0)),
       top_k=st.one_of(st.none(), st.integers(1, 20)))
def test_at_temperatures_is_softmax_of_logits_over_t_for_the_top_rows(bigram, prompt, temperature, top_k):
    result = run_step_table(bigram, prompt, (), Settings(temperature=temperature, top_k=top_k, seed=3))

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
    result = run_step_table(bigram, "It is a truth universally", (), Settings(seed=1))
    c = at_temperatures(result)
    first = c.probs[0]  # the top token at 0.5, 1, 1.5
    assert c.temperatures == (0.5, 1.0, 1.5)
    assert first[0] > first[1] > first[2]


def test_at_temperatures_takes_other_temperatures_and_a_row_count(bigram):
    result = run_step_table(bigram, "Mr. Darcy said", (), Settings(temperature=0.8, seed=1))
    c = at_temperatures(result, temperatures=(0.25, 2.0), n=3)
    assert c.temperatures == (0.25, 0.8, 2.0)
    assert len(c.ids) == len(c.probs) == 3
    for row in c.probs:
        assert len(row) == 3
