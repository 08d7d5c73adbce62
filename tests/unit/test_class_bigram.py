"""The class's bigram: every probability recomputed from the sentences by a plain count written here."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import Settings, generate
from webapp.inference.bigram import BigramModel
from webapp.inference.class_bigram import (
    DEFAULT_K,
    MAX_SENTENCE_CHARS,
    MAX_SENTENCE_TOKENS,
    MAX_SENTENCES,
    MAX_SENTENCES_PER_STUDENT,
    ClassBigram,
    MixedBigram,
    check_room_for,
    clean_sentence,
    count_table,
)
from webapp.inference.derived.held_out import held_out_perplexity, held_out_split, sentence_perplexity
from webapp.inference.errors import InvalidSentence, InvalidSetting
from webapp.inference.sampling import softmax

from .conftest import BIGRAM_DIR

WORDS = ["We", "we", "like", "lunch", "school", "pizza", "is", "good", ".", "!", ","]
sentences_st = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join), min_size=1,
                        max_size=6)


def reference(sentences: list[str]) -> tuple[Counter, Counter, set]:
    """Pair counts, counts of the previous token, and the words: by splitting on spaces, not the tokenizer."""
    pairs: Counter = Counter()
    for sentence in sentences:
        tokens = ["<s>", *sentence.split(), "<s>"]
        pairs.update(zip(tokens, tokens[1:], strict=False))
    n_prev: Counter = Counter()
    for (prev, _), n in pairs.items():
        n_prev[prev] += n
    return pairs, n_prev, {w for s in sentences for w in s.split()}


def test_the_default_k_is_the_austen_bigrams():
    assert json.loads((BIGRAM_DIR / "config.json").read_text())["k"] == DEFAULT_K


@settings(max_examples=60, deadline=None)
@given(sentences=sentences_st, k=st.sampled_from([0.01, 0.5, 1.0]))
def test_every_probability_is_the_smoothed_count(sentences, k):
    model = ClassBigram.build(sentences, k)
    pairs, n_prev, words = reference(sentences)
    vocab = ["<unk>", "<p>", "<s>", *words]
    assert sorted(model.tokenizer.vocab) == sorted(vocab)
    V = len(vocab)
    for prev in vocab:
        probs = softmax(model.logits([model.tokenizer.id_of(prev)]))
        expected = [(pairs[prev, nxt] + k) / (n_prev[prev] + k * V) for nxt in model.tokenizer.vocab]
        np.testing.assert_allclose(probs, expected, rtol=0, atol=1e-12)
        assert math.isclose(float(np.exp(model.logits([model.tokenizer.id_of(prev)])).sum()), 1.0, abs_tol=1e-12)
        counted = model.counted([model.tokenizer.id_of(prev)])
        assert counted.n_prev == n_prev[prev] and counted.n_sentences == len(sentences) and counted.n_vocab == V
        np.testing.assert_allclose([counted.probability(i) for i in range(V)], expected, rtol=0, atol=1e-12)


def test_a_text_starts_at_the_boundary():
    model = ClassBigram.build(["We like lunch .", "We like school ."])
    start = softmax(model.logits([]))
    assert start.argmax() == model.tokenizer.id_of("We")
    assert model.counted([]).n_prev == 2  # the sentences


def test_case_is_kept_as_the_austen_tokenizer_keeps_it():
    model = ClassBigram.build(["We like it.", "we like it."])
    assert model.tokenizer.id_of("We") != model.tokenizer.id_of("we")


@settings(max_examples=40, deadline=None)
@given(sentences=sentences_st)
def test_one_sentence_never_runs_into_the_next(sentences):
    model = ClassBigram.build(sentences)
    pairs, _, _ = reference(sentences)
    vocab = model.tokenizer.vocab
    for a, b in zip(sentences, sentences[1:], strict=False):
        last, first = a.split()[-1], b.split()[0]
        assert model.pair_count(vocab.index(last), vocab.index(first)) == pairs[last, first]  # only within one


def test_the_last_word_is_followed_by_the_boundary_only():
    model = ClassBigram.build(["We like lunch", "school is good"])
    ids = model.tokenizer.id_of
    assert model.pair_count(ids("lunch"), ids("school")) == 0
    assert model.pair_count(ids("lunch"), ids("<s>")) == 1


@pytest.fixture(scope="module")
def austen():
    return BigramModel.load(BIGRAM_DIR)


def other_probs(model, austen, prev: str) -> list[float]:
    """p_other written out: Austen's probability of each class token, shared among those it maps to one id."""
    a = austen.tokenizer
    as_austen = {w: ("<p>" if w == "<s>" else w if a.id_of(w) != a.unk_id else "<unk>") for w in model.tokenizer.vocab}
    p = softmax(austen.logits([a.id_of(as_austen[prev])]))
    sharing = Counter(as_austen.values())
    q = [p[a.id_of(as_austen[w])] / sharing[as_austen[w]] for w in model.tokenizer.vocab]
    return [x / sum(q) for x in q]


@settings(max_examples=20, deadline=None)
@given(sentences=sentences_st.map(lambda s: [*s, "Zyxwv Qwxz ."]), w=st.floats(0, 1))
def test_the_mix_is_the_interpolation_of_both(austen, sentences, w):
    model = ClassBigram.build(sentences)
    mixed = MixedBigram(model, austen, w)
    for prev in model.tokenizer.vocab:
        i = model.tokenizer.id_of(prev)
        p_class = softmax(model.logits([i]))
        p_other = np.array(other_probs(model, austen, prev))
        p = w * p_class + (1 - w) * p_other
        np.testing.assert_allclose(softmax(mixed.logits([i])), p, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(mixed.class_share([i]), w * p_class / p, rtol=1e-12, atol=1e-15)


def test_weight_one_is_the_class_model_and_zero_the_others(austen):
    model = ClassBigram.build(["We like lunch.", "Mr Darcy likes Zyxwv."])
    for i in range(model.n_vocab):
        np.testing.assert_allclose(softmax(MixedBigram(model, austen, 1).logits([i])), softmax(model.logits([i])),
                                   rtol=1e-12)
        np.testing.assert_allclose(MixedBigram(model, austen, 1).class_share([i]), 1.0, rtol=1e-12)
        np.testing.assert_allclose(softmax(MixedBigram(model, austen, 0).logits([i])),
                                   other_probs(model, austen, model.tokenizer.vocab[i]), rtol=1e-12)
        assert not MixedBigram(model, austen, 0).class_share([i]).any()


@pytest.mark.parametrize("w", [-0.1, 1.5, float("nan"), "0.5"])
def test_a_weight_outside_0_to_1_is_refused(austen, w):
    with pytest.raises(InvalidSetting):
        MixedBigram(ClassBigram.build(["a b"]), austen, w)


@pytest.mark.parametrize("k", [0, -1, 1.5, float("inf"), float("nan")])
def test_a_k_out_of_range_is_refused(k):
    with pytest.raises(InvalidSetting):
        ClassBigram.build(["a b"], k)


def test_the_count_table_holds_the_pair_counts():
    sentences = ["We like school lunch .", "school lunch is good .", "We like school ."]
    pairs, _, _ = reference(sentences)
    model = ClassBigram.build(sentences)
    table = count_table(model, n=4, include=[model.tokenizer.id_of("good")])
    assert "good" in table.words and len(table.words) == 4
    written = Counter(w for s in sentences for w in s.split())
    assert [written[w] for w in table.words if w != "<s>"] == sorted((written[w] for w in table.words if w != "<s>"),
                                                                       reverse=True)
    for r, prev in enumerate(table.words):
        assert table.counts[r] == tuple(pairs[prev, nxt] for nxt in table.words)


def test_held_out_perplexity_by_hand():
    authored = [("ana", "a b"), ("ben", "b a"), ("ana", "a c")]
    kept, left_out = held_out_split(authored)
    assert (kept, left_out) == (["a b"], ["b a", "a c"])
    scored, _ = held_out_perplexity(authored, k=0.5)
    # built from "a b": vocab <unk> <p> <s> a b (V = 5); pairs <s>a, ab, b<s>; "c" is <unk>
    p = lambda count, n_prev: (count + 0.5) / (n_prev + 0.5 * 5)  # noqa: E731
    log_probs = [math.log(p(0, 1)), math.log(p(0, 1)),  # "b a": b after <s>, a after b
                 math.log(p(1, 1)), math.log(p(0, 1))]  # "a c": a after <s>, <unk> after a
    assert scored.n_tokens == 4 and scored.n_sentences == 2
    assert math.isclose(scored.perplexity, math.exp(-sum(log_probs) / 4), rel_tol=1e-12)


def test_any_model_scores_the_same_tokens_from_its_start(austen):
    scored = sentence_perplexity(austen, ["It is a truth."])
    ids = austen.tokenizer.encode_ids("It is a truth.")
    context = [austen.start_id, *ids]
    log_probs = [math.log(softmax(austen.logits(context[: i + 1]))[t]) for i, t in enumerate(ids)]
    assert scored.n_tokens == 5
    assert math.isclose(scored.perplexity, math.exp(-sum(log_probs) / 5), rel_tol=1e-12)
    with pytest.raises(InvalidSentence):
        sentence_perplexity(austen, [])


def test_control_characters_are_stripped():
    assert clean_sentence("We\x00 like\tlunch\u202e.\r\n") == "We like lunch."
    assert not re.search(r"[\x00-\x1f\x7f]", clean_sentence("".join(map(chr, range(32))) + "ok"))


@pytest.mark.parametrize(("text", "figure"), [
    ("a" * (MAX_SENTENCE_CHARS + 1), "characters"),
    ("! " * (MAX_SENTENCE_TOKENS + 1), "words and punctuation marks"),
    (" \x00\t ", "at least one word"),
])
def test_a_sentence_over_a_limit_says_why(text, figure):
    with pytest.raises(InvalidSentence, match=figure):
        clean_sentence(text)
    with pytest.raises(InvalidSentence):
        ClassBigram.build(["fine", text])


def test_sentences_at_the_limits_are_kept():
    assert len(clean_sentence("a" * MAX_SENTENCE_CHARS)) == MAX_SENTENCE_CHARS
    assert ClassBigram.build(["! " * MAX_SENTENCE_TOKENS]).pair_count(3, 3) == MAX_SENTENCE_TOKENS - 1


def test_the_rounds_limits():
    check_room_for(MAX_SENTENCES_PER_STUDENT - 1, MAX_SENTENCES - 1)
    with pytest.raises(InvalidSentence, match="each student"):
        check_room_for(MAX_SENTENCES_PER_STUDENT, 0)
    with pytest.raises(InvalidSentence, match="the round"):
        check_room_for(0, MAX_SENTENCES)
    with pytest.raises(InvalidSentence, match="the round"):
        ClassBigram.build(["a"] * (MAX_SENTENCES + 1))


def test_the_stepper_runs_either_model(austen):
    model = ClassBigram.build(["We like school lunch.", "School lunch is good."])
    for each in (model, MixedBigram(model, austen, 0.5)):
        steps = generate(each, "", 5, Settings(seed=1))
        assert steps[0].context_ids == (model.tokenizer.id_of("<s>"),)  # a text starts as a sentence does
        np.testing.assert_allclose(steps[0].probs, softmax(each.logits([])), rtol=1e-12)
