"""Held-out perplexity of a class's bigram, and of any model of the app on the same sentences.

Held out: each student's last sentence (the last in the order given) is left out; the model is built
from all the other sentences and scores the left-out ones. A student with one sentence has it left out.

Scoring a sentence: each of its tokens (words and punctuation, by the model's own tokenizer) is given the
ones before it, the first given the model's start token alone: the class's `<s>`, Austen's `<p>`, as a
step after an empty prompt reads them (derived/perplexity.py). The closing `<s>` is not scored, so that
the Austen models, which have no boundary token, score the same words. A word the model does not know is
scored as its `<unk>`. Perplexity is pooled over tokens, not averaged over sentences:

    perplexity = exp(-(1 / N) * sum of log p(token | before)), N the tokens of all the scored sentences

Models with other tokenizers (SmolLM2's BPE) split the words into other tokens, so their N differs:
the page should give N beside each figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..bigram import BigramModel
from ..class_bigram import DEFAULT_K, ClassBigram, MixedBigram, clean_sentence, squeeze
from ..errors import N_, InvalidSentence
from ..model import LanguageModel
from .perplexity import token_log_probs


@dataclass(frozen=True)
class Scored:
    """A model's perplexity on some sentences, and how many tokens it was pooled over."""

    perplexity: float
    n_tokens: int
    n_sentences: int


def held_out_split(authored: Sequence[tuple[str, str]], limits: bool = True) -> tuple[list[str], list[str]]:
    """(kept, left_out) sentences from (student, sentence) pairs: each student's last one is left out.

    >>> held_out_split([("ana", "A b."), ("ben", "C."), ("ana", "D e.")])
    (['A b.'], ['C.', 'D e.'])
    """
    last = {student: i for i, (student, _) in enumerate(authored)}
    left_out = set(last.values())
    clean = clean_sentence if limits else squeeze
    kept = [clean(s) for i, (_, s) in enumerate(authored) if i not in left_out]
    return kept, [clean(s) for i, (_, s) in enumerate(authored) if i in left_out]


def sentence_perplexity(model: LanguageModel, sentences: Sequence[str]) -> Scored:
    """Score each sentence from the model's start token; pool the log-probabilities over all tokens."""
    if not sentences:
        raise InvalidSentence(N_("there are no sentences to score"))
    log_probs = [float(x) for s in sentences for x in token_log_probs(model, model.tokenizer.encode_ids(s))]
    return Scored(perplexity=math.exp(-math.fsum(log_probs) / len(log_probs)), n_tokens=len(log_probs),
                  n_sentences=len(sentences))


def held_out_perplexity(authored: Sequence[tuple[str, str]], k: float = DEFAULT_K,
                        other: BigramModel | None = None, w: float = 1.0,
                        limits: bool = True) -> tuple[Scored, list[str]]:
    """The class's model (mixed with other at weight w, if given) built without each student's last sentence,
    scored on those sentences; and the left-out sentences, for scoring other models on them."""
    kept, left_out = held_out_split(authored, limits)
    model: LanguageModel = ClassBigram.build(kept, k, limits=limits)
    if other is not None:
        model = MixedBigram(model, other, w)
    return sentence_perplexity(model, left_out), left_out
