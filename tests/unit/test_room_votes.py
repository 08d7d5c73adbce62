"""The class's votes as a language model: tallies, its distribution over the whole vocabulary, surprise, records."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from webapp.inference import Settings, run_step_table
from webapp.room.votes import (
    RoundResult,
    bits,
    class_distribution,
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


VOCABULARY = st.integers(32, 60_000)  # above the largest token voted, and one more nobody voted


@given(votes_strategy, VOCABULARY)
@example({"a": 30}, 32)  # the largest token voted, the last of the vocabulary nobody voted
def test_the_class_distribution_adds_up_to_one_over_the_whole_vocabulary(votes, n_vocab) -> None:
    counts = tally(votes)
    p = class_distribution(counts, n_vocab)
    assert p.shape == (n_vocab,) and math.isclose(p.sum(), 1.0) and (p > 0).all()
    for token in (*counts, 0, 30, n_vocab - 1):
        assert class_probability(counts, token, n_vocab) == pytest.approx(p[token])
    unvoted = [t for t in range(31) if t not in counts]
    if unvoted:  # the mass nobody voted is shared evenly by every token nobody voted
        assert np.allclose(p[unvoted], p[n_vocab - 1])


@given(st.integers(1000, 200_000), st.lists(st.integers(1, 999), max_size=1000), st.floats(0.01, 1.0))
@example(5000, [1] * 6, 0.034)  # the trial's round: 0 of 6 right, the model at 4.87 bits
def test_a_class_that_never_voted_the_pick_is_more_surprised_than_a_model_that_gave_it_one_percent(
    n_vocab, voted, model_p
) -> None:
    counts = tally(dict(enumerate(voted)))  # N <= 1000 votes, none for the pick, token 0
    assert bits(class_probability(counts, 0, n_vocab)) > bits(model_p)


@given(st.integers(2, 60_000), st.integers(0, 500), st.integers(0, 500))
def test_more_votes_on_the_pick_mean_fewer_bits(n_vocab, on_pick, elsewhere) -> None:
    counts = {0: on_pick, 1: elsewhere}
    one_more = bits(class_probability({0: on_pick + 1, 1: elsewhere}, 0, n_vocab))
    assert one_more < bits(class_probability(counts, 0, n_vocab))  # another student guessed it
    if elsewhere:  # a student changed their vote to the pick
        assert bits(class_probability({0: on_pick + 1, 1: elsewhere - 1}, 0, n_vocab)) < one_more + 1e-12
        assert bits(class_probability({0: on_pick + 1, 1: elsewhere - 1}, 0, n_vocab)) < bits(
            class_probability(counts, 0, n_vocab))


def test_a_small_class_golden() -> None:
    """Ten tokens, 3 votes: 2 for token 3, 1 for token 7; alpha = 1/10, N + 1 = 4."""
    counts = {3: 2, 7: 1}
    p = class_distribution(counts, 10)
    assert p.tolist() == pytest.approx([0.025, 0.025, 0.025, 0.525, 0.025, 0.025, 0.025, 0.275, 0.025, 0.025])
    assert bits(class_probability(counts, 3, 10)) == pytest.approx(0.929610672)
    assert bits(class_probability(counts, 5, 10)) == pytest.approx(5.321928095)


def test_the_worked_example_of_the_module_docstring() -> None:
    counts = {1: 20, 2: 10}
    assert class_probability(counts, 2, 5000) == pytest.approx((10 + 1 / 5000) / 31)
    assert bits(class_probability(counts, 2, 5000)) == pytest.approx(1.63224, abs=1e-5)
    assert bits(class_probability(counts, 3, 5000)) == pytest.approx(math.log2(155_000))
    assert bits(1 / 8) == 3.0


def test_the_trials_lesson_now_has_the_model_ahead() -> None:
    """0 of 6 right, three times over, the model at 4.87, 4.0 and 4.3 bits: the class at 15.1 bits a round."""
    rounds = [result(n, {1: 4, 2: 2}, picked=9, p1=2**-b) for n, b in ((1, 4.87), (2, 4.0), (3, 4.3))]
    figure = running(rounds)
    assert figure.class_bits == pytest.approx(math.log2(5000 * 7)) and figure.class_bits > 15
    assert figure.model_bits == pytest.approx((4.87 + 4.0 + 4.3) / 3)


def result(round_: int, tallied: dict[int, int], picked: int, p1: float = 0.25, n_vocab: int = 5000) -> RoundResult:
    order = tuple(sorted({*tallied, picked}))
    return RoundResult(round=round_, step=round_ - 1, picked=picked, top=order[0], tally=tallied, order=order,
                       probs={t: 0.1 for t in order}, p1_picked=p1, n_vocab=n_vocab)


def test_running_surprise_averages_rounds_with_votes_only() -> None:
    rounds = [result(1, {1: 3, 2: 1}, 1, 0.5), result(2, {}, 4, 0.01), result(3, {5: 2}, 6, 0.125)]
    figure = running(rounds)
    assert figure.n_rounds == 2
    assert figure.model_bits == pytest.approx((1 + 3) / 2)
    assert figure.class_bits == pytest.approx((bits((3 + 1 / 5000) / 5) + bits((1 / 5000) / 3)) / 2)
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
    assert r.n_vocab == bigram.n_vocab
    assert RoundResult.from_json(r.to_json()) == r


def test_a_result_an_older_server_saved_reads_with_the_tokens_voted_and_one_for_the_rest() -> None:
    old = json.loads(result(1, {1: 3, 2: 1}, 2).to_json())
    del old["n_vocab"]
    assert RoundResult.from_json(json.dumps(old)).n_vocab == 3
