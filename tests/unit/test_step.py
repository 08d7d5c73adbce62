"""One step of the loop on austen-bigram: purity, the seeded r, the table's bookkeeping, and bad input."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import (
    InferenceError,
    InvalidSetting,
    InvalidTokenIds,
    PromptTooLong,
    Settings,
    StepResult,
    UnknownModel,
    generate,
    generate_table,
    get_model,
    load_bundled,
    run_step,
    run_step_table,
    tabulate,
    undo,
)
from webapp.inference.derived.table import N_ROWS
from webapp.inference.settings import MAX_SEED
from webapp.inference.step import MAX_PROMPT_CHARS, MAX_TOKENS

N_VOCAB = 5000  # austen-bigram; checked in test_the_bundled_bigram_has_the_expected_vocabulary_size

prompts = st.sampled_from(["", "Mr. Darcy said", '"Yes," said she.', "It is a truth universally acknowledged",
                           "Zyxwvut", "She smiled.\n\nThe"])
generated_ids = st.lists(st.integers(0, N_VOCAB - 1), max_size=8)
step_settings = st.builds(
    Settings,
    temperature=st.one_of(st.just(0.0), st.floats(0.01, 3.0)),
    top_k=st.one_of(st.none(), st.integers(1, 60)),
    top_p=st.one_of(st.none(), st.floats(0.05, 1.0)),
    min_p=st.one_of(st.none(), st.floats(0.0, 0.5)),
    seed=st.integers(0, MAX_SEED),
)
truncating_settings = st.builds(
    Settings,
    temperature=st.floats(0.3, 2.0),
    top_k=st.one_of(st.none(), st.integers(1, 30)),
    top_p=st.one_of(st.none(), st.floats(0.05, 0.95)),
    min_p=st.one_of(st.none(), st.floats(0.001, 0.5)),
    seed=st.integers(0, 1000),
)
with_bigram = settings(deadline=None)  # the bigram model makes each example a millisecond or two


def assert_same_step(a: StepResult, b: StepResult) -> None:
    for f in dataclasses.fields(StepResult):
        if not f.compare:  # the per-token lookup table, derived from the fields compared here
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x is not None and y is not None and np.array_equal(x, y), f.name
        else:
            assert x == y, f.name


def reference_ranking(result: StepResult) -> list[int]:
    """All ids by probability, then logit, largest first, then smaller id."""
    p, z = result.probs.tolist(), result.logits.tolist()
    return sorted(range(len(p)), key=lambda i: (-p[i], -z[i], i))


def test_the_bundled_bigram_has_the_expected_vocabulary_size(bigram):
    assert bigram.n_vocab == N_VOCAB and bigram.name == "austen-bigram"


# --- purity and the random number ----------------------------------------------------------------


@with_bigram
@given(prompts, generated_ids, step_settings)
def test_run_step_is_pure(bigram, prompt, generated, s):
    generated_before, settings_before = list(generated), dataclasses.replace(s)
    first = run_step_table(bigram, prompt, generated, s)
    run_step_table(bigram, "Elizabeth", [5, 6, 7], Settings(temperature=2.0, top_k=3, seed=1))  # another step between
    generate(bigram, "Emma", 3, Settings(seed=99))
    second = run_step_table(bigram, prompt, tuple(generated), s)
    assert_same_step(first, second)
    assert generated == generated_before and s == settings_before


def test_run_step_accepts_any_sequence_of_ids(bigram):
    as_list = run_step_table(bigram, "Mr. Darcy said", [4, 9], Settings(seed=3))
    as_array = run_step_table(bigram, "Mr. Darcy said", np.array([4, 9]), Settings(seed=3))
    assert_same_step(as_list, as_array)


@with_bigram
@given(st.integers(0, MAX_SEED), generated_ids)
def test_r_is_default_rng_of_seed_and_generation_index(bigram, seed, generated):
    result = run_step_table(bigram, "Mr. Darcy said", generated, Settings(seed=seed))
    assert result.r == np.random.default_rng([seed, len(generated)]).random()
    assert result.step == len(generated) and result.r_source == "seed"


@with_bigram
@given(prompts, step_settings, st.integers(1, 6))
def test_back_then_step_gives_the_same_token(bigram, prompt, s, n):
    steps = generate_table(bigram, prompt, n, s)
    ids = [step.chosen.id for step in steps]
    again = run_step_table(bigram, prompt, undo(ids), s)
    assert again.chosen.id == ids[-1]
    assert_same_step(again, steps[-1])


def test_generate_feeds_each_pick_into_the_next_step(bigram):
    steps = generate_table(bigram, "Mr. Darcy said", 4, Settings(seed=7))
    ids = [step.chosen.id for step in steps]
    assert [step.generated for step in steps] == [tuple(ids[:i]) for i in range(4)]
    assert [step.step for step in steps] == [0, 1, 2, 3]
    continued = generate_table(bigram, "Mr. Darcy said", 2, Settings(seed=7), generated=ids[:2])
    assert [step.chosen.id for step in continued] == ids[2:]


@with_bigram
@given(prompts, generated_ids, step_settings)
def test_the_table_lays_out_the_steps_own_numbers(bigram, prompt, generated, s):
    step = run_step(bigram, prompt, generated, s)
    result = tabulate(bigram, step)
    assert_same_step(result, run_step_table(bigram, prompt, generated, s))
    assert (result.chosen.id, result.r, result.step) == (step.chosen_id, step.r, len(step.generated))
    assert np.array_equal(result.probs_kept, step.probs_kept) and np.array_equal(result.penalised, step.penalised)
    i = int(np.flatnonzero(step.laid == step.chosen_id)[0])  # the pick's range, in the order the ranges are laid
    assert (step.lo[i], step.hi[i]) == (result.chosen.lo, result.chosen.hi) and step.lo[i] <= step.r < step.hi[i]


def test_the_cores_generate_feeds_each_pick_into_the_next_step(bigram):
    steps = generate(bigram, "Mr. Darcy said", 4, Settings(seed=7))
    ids = [step.chosen_id for step in steps]
    assert [step.generated for step in steps] == [tuple(ids[:i]) for i in range(4)]
    assert ids == [step.chosen.id for step in generate_table(bigram, "Mr. Darcy said", 4, Settings(seed=7))]


def test_undo_drops_the_last_id():
    assert undo([5, 9, 2]) == (5, 9) and undo(()) == ()


def test_the_bigram_reads_only_the_last_token(bigram):
    a = run_step_table(bigram, "Mr. Darcy said", [4, 9, 6], Settings(seed=1))
    b = run_step_table(bigram, "Emma", [6], Settings(seed=1))
    assert np.array_equal(a.logits, b.logits)
    assert a.window_start == len(a.context_ids) - 1


# --- the table: rows, rest, ranges and the pick --------------------------------------------------


@with_bigram
@given(prompts, generated_ids, step_settings)
def test_the_chosen_range_contains_r_and_matches_a_running_sum(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    chosen = result.chosen
    assert chosen.kept and chosen.lo <= result.r < chosen.hi
    # reference: walk the kept tokens in ranking order until the running sum passes r
    total, expected = 0.0, None
    kept = [i for i in reference_ranking(result) if result.probs_kept[i] > 0]
    for i in kept:
        total = math.fsum([total, result.probs_kept[i]])
        if total > result.r:
            expected = i
            break
    assert expected is None or abs(total - result.r) < 1e-12 or chosen.id == expected


@with_bigram
@given(prompts, generated_ids, step_settings)
def test_rows_are_the_top_of_the_ranking_in_order(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    assert [row.rank for row in result.rows] == list(range(1, N_ROWS + 1))
    assert [row.id for row in result.rows] == reference_ranking(result)[:N_ROWS]
    for row in result.rows:
        assert row.token == bigram.tokenizer.vocab[row.id]
        assert row.logit == result.logits[row.id] and row.prob == result.probs[row.id]
    if s.temperature == 0:
        assert all(row.scaled is None for row in result.rows)
    else:
        assert all(row.scaled == row.logit / s.temperature for row in result.rows)


@with_bigram
@given(prompts, generated_ids, step_settings)
def test_rows_and_rest_account_for_the_whole_vocabulary(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    rows, rest = result.rows, result.rest
    assert rest.count + len(rows) == bigram.n_vocab
    assert math.fsum([*(row.prob for row in rows), rest.prob]) == pytest.approx(1.0, abs=1e-9)
    assert math.fsum([*(row.prob_kept for row in rows), rest.prob_kept]) == pytest.approx(1.0, abs=1e-9)
    assert rest.kept_count + sum(row.kept for row in rows) == result.n_kept


@with_bigram
@given(prompts, generated_ids, truncating_settings)
def test_cut_rows_have_no_range_and_the_kept_mass_is_the_kept_tokens_probability(bigram, prompt, generated, s):
    result = run_step_table(bigram, prompt, generated, s)
    kept_ids = np.flatnonzero(result.probs_kept > 0)
    assert result.kept_mass == pytest.approx(math.fsum(result.probs[kept_ids]), abs=1e-12)
    assert result.n_kept == len(kept_ids) <= (s.top_k or bigram.n_vocab)
    edge = 0.0  # the kept rows' ranges follow each other from 0
    for row in result.rows:
        if row.kept:
            assert row.lo == edge and row.hi - row.lo == pytest.approx(row.prob_kept, abs=1e-12)
            edge = row.hi
        else:
            assert row.lo is None and row.hi is None and row.prob_kept == 0
    if result.rest.kept_count:
        assert result.rest.lo == edge and result.rest.hi == 1.0
    else:
        assert edge == 1.0 and result.rest.lo is None and result.rest.hi is None


def test_truncation_example_top_k_3_keeps_three_rows(bigram):
    result = run_step_table(bigram, "Mr. Darcy said", (), Settings(top_k=3, seed=7))
    assert [row.kept for row in result.rows[:5]] == [True, True, True, False, False]
    assert result.n_kept == 3 and result.rest.kept_count == 0
    assert result.rows[2].hi == 1.0


@with_bigram
@given(prompts, generated_ids, st.floats(0, 1, exclude_max=True))
def test_zero_temperature_picks_the_argmax_whatever_r(bigram, prompt, generated, r):
    result = run_step_table(bigram, prompt, generated, Settings(temperature=0), r=r)
    logits = bigram.logits(list(result.context_ids)).tolist()
    argmax = min(range(len(logits)), key=lambda i: (-logits[i], i))
    assert result.chosen.id == argmax and result.chosen.rank == 1
    assert result.r == r and result.r_source == "given"
    assert result.n_kept == 1 and (result.chosen.lo, result.chosen.hi) == (0.0, 1.0)


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {"temperature": -1.0}, {"temperature": -1e-300}, {"temperature": math.nan}, {"temperature": math.inf},
    {"temperature": -math.inf},
    {"top_p": 0.0}, {"top_p": 1.5}, {"top_p": -0.1}, {"top_p": math.nan},
    {"top_k": 0}, {"top_k": -1}, {"top_k": 2.5},
    {"min_p": -0.1}, {"min_p": 2.0}, {"min_p": math.nan},
    {"seed": -1}, {"seed": MAX_SEED + 1}, {"seed": 1.5},
], ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_invalid_settings_raise_invalid_setting(kwargs):
    with pytest.raises(InvalidSetting):
        Settings(**kwargs)


@pytest.mark.parametrize("kwargs", [
    {"temperature": 0.0}, {"temperature": 1e-300}, {"top_p": 1.0}, {"top_p": 1e-9}, {"top_k": 1},
    {"min_p": 0.0}, {"min_p": 1.0}, {"seed": 0}, {"seed": MAX_SEED},
], ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_settings_at_the_edges_of_their_ranges_are_accepted(bigram, kwargs):
    result = run_step_table(bigram, "Mr. Darcy said", (), Settings(**kwargs))
    assert result.chosen.kept


@pytest.mark.parametrize("r", [1.0, -0.1, math.nan, math.inf])
def test_a_given_r_outside_zero_to_one_raises_invalid_setting(bigram, r):
    with pytest.raises(InvalidSetting):
        run_step_table(bigram, "Mr. Darcy said", (), Settings(), r=r)


def test_an_unknown_model_raises_unknown_model(bigram):
    with pytest.raises(UnknownModel, match="nope"):
        get_model({bigram.name: bigram}, "nope")
    assert get_model({bigram.name: bigram}, "austen-bigram") is bigram


def test_the_bundled_models_include_austen_bigram():
    models = load_bundled()
    assert "austen-bigram" in models
    with pytest.raises(UnknownModel):
        get_model(models, "nope")


@pytest.mark.parametrize("generated", [[-1], [N_VOCAB], [3, 10**9]])
def test_ids_outside_the_vocabulary_raise_invalid_token_ids(bigram, generated):
    with pytest.raises(InvalidTokenIds):
        run_step_table(bigram, "Mr. Darcy said", generated)


def test_too_many_ids_raise_invalid_token_ids(bigram):
    n_prompt = len(bigram.tokenizer.encode("Mr. Darcy said"))
    run_step_table(bigram, "Mr. Darcy said", [4] * (MAX_TOKENS - 1 - n_prompt))  # just fits
    with pytest.raises(InvalidTokenIds):
        run_step_table(bigram, "Mr. Darcy said", [4] * (MAX_TOKENS - n_prompt))


def test_a_prompt_over_the_character_limit_raises_prompt_too_long(bigram):
    run_step_table(bigram, "a " * (MAX_PROMPT_CHARS // 2))  # exactly at the limit
    with pytest.raises(PromptTooLong):
        run_step_table(bigram, "a " * (MAX_PROMPT_CHARS // 2) + "a")


def test_a_prompt_with_too_many_tokens_raises_prompt_too_long(bigram):
    with pytest.raises(PromptTooLong):
        run_step_table(bigram, "!" * MAX_PROMPT_CHARS)  # within the characters, but 2,000 tokens


def test_every_error_is_an_inference_error():
    for error in (InvalidSetting, InvalidTokenIds, PromptTooLong, UnknownModel):
        assert issubclass(error, InferenceError) and issubclass(error, ValueError)
