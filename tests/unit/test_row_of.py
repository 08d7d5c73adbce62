"""Any token's row of a step (the table's, the pick's, one the teacher chooses), against an independent ranking."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.inference import InvalidTokenIds, Settings, run_step_table

from .reference import N_VOCAB, prompts, reference_probs, reference_ranking, truncating, with_bigram

# --- any token's row ----------------------------------------------------------------------------




@with_bigram
@given(prompt=prompts, s=truncating)
def test_row_of_a_shown_token_is_its_table_row(bigram, prompt, s):
    result = run_step_table(bigram, prompt, (), s)
    for row in result.rows:
        assert result.row_of(row.id) == row
    assert result.row_of(result.chosen.id) == result.chosen


@with_bigram
@given(prompt=prompts, s=truncating, token_ids=st.lists(st.integers(0, N_VOCAB - 1), min_size=1, max_size=6))
def test_row_of_any_token_agrees_with_an_independent_ranking(bigram, prompt, s, token_ids):
    result = run_step_table(bigram, prompt, (), s)
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
    result = run_step_table(bigram, prompt, (), s)
    chosen = result.row_of(result.chosen.id)
    assert chosen.kept
    assert chosen.lo <= result.r < chosen.hi or (chosen.hi == pytest.approx(1.0) and result.r >= chosen.lo)


@pytest.mark.parametrize("bad", [-1, N_VOCAB, 10**9])
def test_row_of_an_id_outside_the_vocabulary_is_refused(bigram, bad):
    result = run_step_table(bigram, "Mr. Darcy said", (), Settings(seed=1))
    with pytest.raises(InvalidTokenIds):
        result.row_of(bad)
