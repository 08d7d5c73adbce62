"""The work estimate counts the passes a window really runs: the KV cache's blocks, what it holds, the window's slide.

Each model's forward pass is wrapped with a counter of the passes it runs and their positions, and
the estimate (machinery/cost.py) must name the same, pass for pass, for a cold prompt and for steps
in a row: the time of each pass is a guess, but which passes run is not.
"""

from __future__ import annotations

import numpy as np
import pytest

from webapp.inference.machinery import cost, llama_gguf
from webapp.inference.machinery.registry import MODELS_DIR, load_model
from webapp.inference.transformer import TransformerModel

from .tiny_gguf import write_tiny_gguf

N_CTX = 40
BLOCK = 8  # blocks of 8, 4 and 2, then one position at a time


@pytest.fixture(scope="module")
def gguf(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    write_tiny_gguf(path)
    return path


def counted(model) -> list[int]:
    """Wrap the model's forward pass: the returned list gets each pass's number of positions."""
    passes = []
    forward = model._forward

    def counting(ids, start, cache, n_logits):
        passes.append(len(ids))
        return forward(ids, start, cache, n_logits)

    model._forward = counting
    return passes


def llama(gguf):
    model = llama_gguf.from_gguf(gguf, "tiny", n_ctx=N_CTX, block=BLOCK)
    return model, counted(model)


def transformer():
    bundled = load_model(MODELS_DIR / "austen-transformer")  # its window made as short as the llama's
    model = TransformerModel("austen", bundled.tokenizer, bundled.params, bundled.n_head, N_CTX)
    return model, counted(model)


def random_ids(seed: int, n: int, n_vocab: int) -> list[int]:
    return np.random.default_rng(seed).integers(3, n_vocab, n).tolist()


@pytest.mark.parametrize("n", [1, 7, 8, 15, 29, 39, 40, 60])
def test_a_cold_prompt_is_counted_by_the_passes_the_cache_runs(gguf, n):
    """29 ids: blocks of 8, 8, 8 and 4, then two passes of one position, not one pass of 30."""
    model, passes = llama(gguf)
    ids = random_ids(n, n, model.n_vocab)
    work = cost.step_work(model, ids, cost.cached_positions(model, ids))
    model.logits(ids)
    assert (work.passes, work.positions) == (len(passes), sum(passes)), passes


def test_a_prompt_the_cache_holds_in_part_is_counted_for_the_rest(gguf):
    model, passes = llama(gguf)
    ids = random_ids(1, 30, model.n_vocab)
    model.logits(ids[:20])
    passes.clear()
    work = cost.step_work(model, ids, cost.cached_positions(model, ids))
    model.logits(ids)
    assert (work.passes, work.positions) == (len(passes), sum(passes)), passes
    assert work.positions < len(ids)


@pytest.mark.parametrize("make", ["llama", "transformer"])
def test_steps_in_a_row_are_counted_as_the_cache_runs_them(gguf, make):
    """Each step after the first runs what the blocks before it do not hold (a new position, a block that
    replaces the last few, the transformer's tail), and its whole window once the window slides."""
    model, passes = llama(gguf) if make == "llama" else transformer()
    n_prompt, n_steps = 5, model.n_ctx + 6
    ids = random_ids(2, n_prompt + n_steps, model.n_vocab)
    works = cost.steps_work(model, n_prompt, n_steps)
    for i, work in enumerate(works):
        passes.clear()
        model.logits(ids[: n_prompt + i])
        assert (work.passes, work.positions) == (len(passes), sum(passes)), f"step {i}: {passes}"


def test_a_pass_over_one_position_streams_the_weights_and_a_block_packs_them(gguf):
    """A block of 8 costs more than one position (the weights packed), less than 8 of them one by one."""
    model, _ = llama(gguf)
    shape = cost.shape_of(model)
    one, block = cost.pass_seconds(shape, 1, 8), cost.pass_seconds(shape, 8, 8)
    assert one < block < 8 * one


def test_looking_inside_costs_the_window_in_one_pass_and_the_lens(gguf):
    model, _ = llama(gguf)
    ids = random_ids(3, 20, model.n_vocab)
    inside = cost.inside_work(model, ids)
    assert inside.passes == 1 and inside.positions == cost.window_length(model, len(ids))
    assert inside.seconds > cost.pass_seconds(cost.shape_of(model), inside.positions, inside.positions)


def test_sampling_many_times_costs_each_draw():
    assert cost.draws_work(10_000).seconds == pytest.approx(10 * cost.draws_work(1_000).seconds)
    assert cost.draws_work(10_000).seconds > 0.05, "heavy: a slow machine takes a tenth of a second or more"


def test_a_class_model_costs_its_counting_and_a_mix_the_other_bigrams_row():
    from webapp.inference.class_bigram import ClassBigram, MixedBigram

    small = ClassBigram.build(["We like lunch ."])
    large = ClassBigram.build(["We like lunch ."] * 40)
    assert cost.counting_work(small).seconds == small.n_counted * cost.COUNT_SECONDS > 0
    assert np.isclose(cost.counting_work(large).seconds, 40 * cost.counting_work(small).seconds)
    austen = load_model(MODELS_DIR / "austen-bigram")
    mixed = MixedBigram(small, austen, 0.5)
    assert cost.counting_work(mixed).seconds > cost.counting_work(small).seconds
    assert cost.counting_work(austen).seconds == 0


def test_decoding_costs_the_greedy_text_then_one_batch_of_the_beams_a_level():
    model = load_model(MODELS_DIR / "austen-transformer")
    one, four = cost.decoding_work(model, 5, 1, 10), cost.decoding_work(model, 5, 4, 10)
    greedy = sum(cost.steps_work(model, 5, 10), cost.Work())
    assert four.passes - greedy.passes == one.passes - greedy.passes == 9  # the prompt is greedy's: a batch a level
    assert four.positions - greedy.positions == 9 * 4
    assert four.seconds > one.seconds > greedy.seconds


def test_once_the_window_slides_each_beam_runs_its_whole_window():
    model = load_model(MODELS_DIR / "austen-transformer")
    n_prompt = model.n_ctx - 2  # the prompt's window (greedy's), two levels grow it, the next two slide
    four = cost.decoding_work(model, n_prompt, 4, 5)
    greedy = sum(cost.steps_work(model, n_prompt, 5), cost.Work())
    assert four.positions - greedy.positions == 2 * 4 + 2 * 4 * model.n_ctx  # levels 4 and 5 slide
