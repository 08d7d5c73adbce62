"""The class's votes as a language model: tallies, add-one smoothing, surprise, records."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.inference import Settings, run_step_table
from webapp.room.votes import (
    RoundResult,
    bits,
    class_probability,
    histogram,
    leaderboard,
    other_votes,
    record,
    round_result,
    running,
    tally,
)

votes_strategy = st.dictionaries(st.text(min_size=1, max_size=8), st.integers(0, 30), max_size=60)


@given(votes_strategy)
def test_a_tally_counts_each_student_once(votes) -> None:
    counts = tally(votes)
    assert sum(counts.values()) == len(votes)
    assert set(counts) == set(votes.values())


@given(votes_strategy)
def test_the_class_distribution_sums_to_one_over_the_voted_tokens_and_the_rest(votes) -> None:
    counts = tally(votes)
    other = 1 / (len(votes) + len(counts) + 1)
    assert math.isclose(sum(class_probability(counts, t) for t in counts) + other, 1.0)
    assert class_probability(counts, 10**6) == pytest.approx(other)  # a token nobody voted
    assert all(0 < class_probability(counts, t) <= 1 for t in counts)


def test_the_worked_example_of_the_module_docstring() -> None:
    counts = {1: 20, 2: 10}
    assert class_probability(counts, 2) == pytest.approx(11 / 33)
    assert bits(class_probability(counts, 2)) == pytest.approx(math.log2(3))
    assert bits(1 / 8) == 3.0


def result(round_: int, tallied: dict[int, int], picked: int, p1: float = 0.25) -> RoundResult:
    order = tuple(sorted({*tallied, picked}))
    return RoundResult(round=round_, step=round_ - 1, picked=picked, top=order[0], tally=tallied, order=order,
                       probs={t: 0.1 for t in order}, p1_picked=p1)


def test_running_surprise_averages_rounds_with_votes_only() -> None:
    rounds = [result(1, {1: 3, 2: 1}, 1, 0.5), result(2, {}, 4, 0.01), result(3, {5: 2}, 6, 0.125)]
    figure = running(rounds)
    assert figure.n_rounds == 2
    assert figure.model_bits == pytest.approx((1 + 3) / 2)
    assert figure.class_bits == pytest.approx((bits(4 / 7) + bits(1 / 4)) / 2)
    assert running([]).class_bits is None


def test_shares_the_histogram_and_records_match_the_votes() -> None:
    r = result(1, {1: 3, 2: 1}, 2)
    assert (r.n_votes, r.n_picked, r.n_top, r.share(r.n_picked)) == (4, 1, 3, 0.25)
    bars = histogram(r)
    assert [(b.token, b.votes, b.picked) for b in bars] == [(1, 3, False), (2, 1, True)]
    assert [b.colour for b in bars] == [0, 1]
    assert other_votes(r) == 0
    mine = record({1: 2, 5: 9}, [r])
    assert [(g.guess, g.picked, g.hit) for g in mine] == [(2, 2, True)]
    board = leaderboard({1: {"a": 2, "b": 1}}, [r], {"a": "Anna", "b": ""})
    assert [(p.nickname, p.hits) for p in board] == [("Anna", 1), ("(no name)", 0)]


def test_a_round_result_sets_the_class_beside_the_models_step(bigram) -> None:
    step = run_step_table(bigram, "It is a truth", (), Settings(temperature=0.8, seed=3), n_rows=20)
    picked = step.chosen.id
    top = step.rows[0].id
    voted_far = step.rows[15].id
    r = round_result(1, step, picked, {"a": top, "b": top, "c": voted_far})
    assert r.top == top and r.picked == picked
    assert r.tally == {top: 2, voted_far: 1}
    ranks = [step.row_of(t).rank for t in r.order]
    assert ranks == sorted(ranks)  # the model's order
    assert voted_far in r.order and picked in r.order
    assert r.probs[top] == pytest.approx(step.rows[0].prob)
    assert r.p1_picked == pytest.approx(step.row_of(picked).prob_t1)
    assert RoundResult.from_json(r.to_json()) == r
