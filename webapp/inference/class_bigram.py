"""A bigram counted from a class's own sentences, optionally mixed with another bigram (Austen's).

Each sentence is split by the app's word tokenizer (tokenizer.py: case kept, "She" and "she" differ,
as in the Austen bigram) and counted between sentence boundaries `<s>`: the boundary before its first
word and after its last, so that one sentence never runs into the next. "We like lunch." counts

    <s> We, We like, like lunch, lunch ., . <s>

The vocabulary is `<unk>`, the paragraph token `<p>` (the Austen models' start of a text), `<s>`, then
the class's words, most frequent first (ties: first written). A text starts at `<s>`, as a sentence
does. Probabilities are add-k smoothed as bigram.py's are, with the same default k:

    p(next | prev) = (count(prev, next) + k) / (n_prev + k * V)

where n_prev is how often prev was followed by any token: for a word, how often it was written (every
word is followed, at least by `<s>`); for `<s>`, the number of sentences. The logits are the logs of
these probabilities, so softmax gives them back.

Building is a pass over the words and a sort of the word pairs (BigramModel.from_ids), so its cost
grows with the number of words, which the limits below bound at 400 * 50 = 20,000 words.

>>> model = ClassBigram.build(["We like lunch.", "We like school!"])
>>> model.tokenizer.vocab[:6]
('<unk>', '<p>', '<s>', 'We', 'like', 'lunch')
>>> we, like, lunch = (model.tokenizer.id_of(w) for w in ("We", "like", "lunch"))
>>> step = model.counted([we, like])
>>> step.prev, int(step.counts[lunch]), step.n_prev, step.n_sentences, model.n_vocab
('like', 1, 2, 2, 9)
>>> step.probability(lunch) == (1 + 0.01) / (2 + 0.01 * 9)  # 'lunch' followed 'like' once; 'like' was written twice
True
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bigram import BigramModel
from .errors import N_, InvalidSentence, InvalidSetting
from .model import LanguageModel
from .sampling import softmax
from .tokenizer import SPECIALS, WordTokenizer, join_words, split

BOUNDARY = "<s>"
CLASS = "class-bigram"
DEFAULT_K = 0.01  # the Austen bigram's k (webapp/models/austen-bigram/config.json)
MAX_K = 1.0  # add-one (Laplace) is the most smoothing a page needs to show
MAX_SENTENCE_CHARS = 200  # a sentence, not a paragraph: it fits a phone's screen and the projector's list
MAX_SENTENCE_TOKENS = 50  # words and punctuation marks: 200 characters of "!!!" would be 200 tokens
MAX_SENTENCES_PER_STUDENT = 10  # so that no one student writes the class's model
MAX_SENTENCES = 400  # a round's total: 40 students * 10, which bounds the vocabulary and the building

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")  # can reorder the text around them


def squeeze(text: str) -> str:
    """Control and bidi characters dropped (line breaks and tabs become spaces, as do lone surrogates), spaces
    squeezed: 'We\tlike\x00 lunch.\n' -> 'We like lunch.'"""
    kept = "".join(" " if c.isspace() or "\ud800" <= c <= "\udfff" else c for c in text
                   if not (unicodedata.category(c) == "Cc" and not c.isspace()) and c not in _BIDI)
    return re.sub(r"\s+", " ", kept).strip()


def clean_sentence(text: str) -> str:
    """Strip control characters (line breaks and tabs become spaces), squeeze spaces; check the limits.

    >>> clean_sentence("  We\\tlike\\x00 lunch.\\n")
    'We like lunch.'
    >>> clean_sentence("!" * 51)
    Traceback (most recent call last):
    ...
    webapp.inference.errors.InvalidSentence: a sentence has at most 50 words and punctuation marks; this one has 51
    """
    sentence = squeeze(text)
    if len(sentence) > MAX_SENTENCE_CHARS:
        raise InvalidSentence(N_("a sentence has at most %(limit)s characters; this one has %(n)s"),
                              limit=MAX_SENTENCE_CHARS, n=len(sentence))
    n_tokens = len(split(sentence))
    if n_tokens == 0:
        raise InvalidSentence(N_("a sentence needs at least one word"))
    if n_tokens > MAX_SENTENCE_TOKENS:
        raise InvalidSentence(N_("a sentence has at most %(limit)s words and punctuation marks; this one has %(n)s"),
                              limit=MAX_SENTENCE_TOKENS, n=n_tokens)
    return sentence


def check_room_for(n_from_student: int, n_total: int) -> None:
    """Raise InvalidSentence if a student who sent n_from_student cannot add one to a round holding n_total."""
    if n_from_student >= MAX_SENTENCES_PER_STUDENT:
        raise InvalidSentence(N_("each student can send at most %(limit)s sentences"), limit=MAX_SENTENCES_PER_STUDENT)
    if n_total >= MAX_SENTENCES:
        raise InvalidSentence(N_("the round holds at most %(limit)s sentences"), limit=MAX_SENTENCES)


@dataclass(frozen=True)
class Tally:
    """What a class's sentences give a bigram to count, as the projector says it while they arrive."""

    n_sentences: int
    n_tokens: int  # words and punctuation marks
    n_words: int  # different ones
    n_pairs: int  # pairs counted: each token with the one before it, the boundaries <s> included


def tally(sentences: Sequence[str]) -> Tally:
    """The sentences' tokens, different words and pairs.

    >>> tally(["We like lunch.", "We like school!"])
    Tally(n_sentences=2, n_tokens=8, n_words=6, n_pairs=10)
    """
    tokens = [[piece for piece, _, _ in split(s)] for s in sentences]
    return Tally(n_sentences=len(sentences), n_tokens=sum(map(len, tokens)),
                 n_words=len({t for sentence in tokens for t in sentence}), n_pairs=sum(len(t) + 1 for t in tokens))


def check_k(k: float) -> float:
    if not (isinstance(k, (int, float)) and math.isfinite(k) and 0 < k <= MAX_K):
        raise InvalidSetting(N_("k must be more than 0 and at most %(max)s, not %(value)s"), max=MAX_K, value=str(k))
    return float(k)


class ClassTokenizer(WordTokenizer):
    """The word tokenizer over a class's vocabulary, with the boundary `<s>` written as a line break."""

    def __init__(self, vocab: Sequence[str]):
        super().__init__(vocab)
        self.boundary_id = self.id_of(BOUNDARY)
        self.special_ids = frozenset({self.boundary_id})

    def decode_pieces(self, ids: Sequence[int]) -> list[str]:
        """Each sentence spaced as prose; a boundary ends the line.

        >>> ClassTokenizer(["<unk>", "<p>", "<s>", "Hi", "."]).decode([3, 4, 2, 3])
        'Hi.\\nHi'
        """
        self.check_ids(ids)
        pieces: list[str] = []
        run: list[str] = []
        for i in ids:
            if i == self.boundary_id:
                pieces += [*join_words(run), "\n"]
                run = []
            else:
                run.append(self.vocab[i])
        return pieces + join_words(run)


@dataclass(frozen=True)
class Counted:
    """The figures behind one step's probabilities, for the page's worked example."""

    prev: str  # the token the step reads
    counts: np.ndarray  # [n_vocab] how often each token followed prev in the sentences
    n_prev: int  # how often prev was followed by any token (for a word: how often it was written)
    n_sentences: int
    k: float
    n_vocab: int

    def probability(self, i: int) -> float:
        """(count + k) / (n_prev + k * V), as the page writes it."""
        return (int(self.counts[i]) + self.k) / (self.n_prev + self.k * self.n_vocab)


class ClassBigram(BigramModel):
    """A bigram counted from a class's sentences; its text starts at the boundary `<s>`."""

    def __init__(self, *args, n_sentences: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        self.start_id = self.tokenizer.boundary_id
        self.n_sentences = n_sentences

    @classmethod
    def build(cls, sentences: Sequence[str], k: float = DEFAULT_K, name: str = CLASS,
              limits: bool = True) -> ClassBigram:
        """Clean and count the sentences (InvalidSentence if one is over a limit, or there are too many).

        A pasted text's sentences (limits=False) are bounded by the text's size instead (class_text.py)."""
        k = check_k(k)
        if limits and len(sentences) > MAX_SENTENCES:
            raise InvalidSentence(N_("the round holds at most %(limit)s sentences"), limit=MAX_SENTENCES)
        clean = clean_sentence if limits else squeeze
        pieces = [[piece for piece, _, _ in split(clean(s))] for s in sentences]
        words = Counter(piece for sentence in pieces for piece in sentence if piece not in (*SPECIALS, BOUNDARY))
        tokenizer = ClassTokenizer([*SPECIALS, BOUNDARY, *(w for w, _ in words.most_common())])
        ids = [tokenizer.boundary_id]
        for sentence in pieces:
            ids += [*map(tokenizer.id_of, sentence), tokenizer.boundary_id]
        description = f"Bigram counted from the class's {len(sentences)} sentences (add-{k:g} smoothing)."
        model = cls.from_ids(name, tokenizer, np.array(ids), k, description)
        model.n_sentences = len(sentences)
        return model

    @property
    def n_counted(self) -> int:
        """The pairs counted: each sentence's tokens and its closing boundary."""
        return int(self.counts.sum())

    def with_k(self, k: float) -> ClassBigram:
        """The same counts smoothed with another k."""
        if k == self.k:
            return self
        return ClassBigram(self.name, self.tokenizer, self.indptr, self.indices, self.counts, check_k(k),
                           self.description, n_sentences=self.n_sentences)

    def counted(self, ids: Sequence[int]) -> Counted:
        """The counts the step after ids reads: its previous token's row."""
        prev = ids[-1] if len(ids) else self.start_id
        lo, hi = self.indptr[prev], self.indptr[prev + 1]
        counts = np.zeros(self.n_vocab, dtype=np.int64)  # [n_vocab]
        counts[self.indices[lo:hi]] = self.counts[lo:hi]
        return Counted(prev=self.tokenizer.vocab[prev], counts=counts, n_prev=int(self.row_totals[prev]),
                       n_sentences=self.n_sentences, k=self.k, n_vocab=self.n_vocab)


@dataclass(frozen=True)
class CountTable:
    """How often each of a few words followed each other: counts[row][column], row the previous word."""

    words: tuple[str, ...]
    ids: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]


def count_table(model: ClassBigram, n: int = 10, include: Sequence[int] = ()) -> CountTable:
    """The n most written tokens (and those in include), most written first, with their pair counts.

    >>> table = count_table(ClassBigram.build(["We like lunch.", "We like school!"]), n=3)
    >>> table.words, table.counts
    (('<s>', 'We', 'like'), ((0, 2, 0), (0, 0, 2), (0, 0, 0)))
    """
    written = model.token_counts()  # [n_vocab]
    ranked = [int(i) for i in np.argsort(-written, kind="stable") if written[i] > 0]
    chosen = list(dict.fromkeys([*include, *ranked]))[: max(n, len(set(include)))]
    chosen.sort(key=lambda i: (-written[i], i))
    counts = tuple(tuple(model.pair_count(prev, nxt) for nxt in chosen) for prev in chosen)
    return CountTable(words=tuple(model.tokenizer.vocab[i] for i in chosen), ids=tuple(chosen), counts=counts)


class MixedBigram(LanguageModel):
    """p = w * p_class + (1 - w) * p_other over the class's vocabulary.

    The other bigram (Austen's) reads the class's previous token as its own (`<s>` as its `<p>`, a word it
    lacks as its `<unk>`). Its p_other of a class token is its probability of that token, the class's
    words it lacks sharing its `<unk>`'s probability equally (with `<unk>` itself), `<s>` sharing its `<p>`;
    then divided by their sum, so p_other adds up to 1 over the class's vocabulary.
    """

    n_ctx = 1

    def __init__(self, class_model: ClassBigram, other: BigramModel, w: float):
        if not (isinstance(w, (int, float)) and 0 <= w <= 1):
            raise InvalidSetting(N_("the class's weight must be from 0 to 1, not %(value)s"), value=str(w))
        self.class_model, self.other, self.w = class_model, other, float(w)
        self.name = class_model.name  # the model the URL names; w says it is mixed
        self.description = f"The class's bigram ({w:g}) mixed with {other.name} ({1 - w:g})."
        self.tokenizer = class_model.tokenizer
        self.start_id = class_model.start_id
        to_other = [other.tokenizer.id_of(word) for word in self.tokenizer.vocab]
        to_other[self.tokenizer.boundary_id] = other.tokenizer.paragraph_id
        self.to_other = np.array(to_other, dtype=np.int64)  # [n_vocab] the other's id of each class token
        self.sharing = np.bincount(self.to_other)[self.to_other]  # [n_vocab] class tokens sharing that id

    @property
    def n_counted(self) -> int:
        return self.class_model.n_counted

    def parts(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(p_class, p_other, p) for the token after ids, each [n_vocab]."""
        prev = ids[-1] if len(ids) else self.start_id
        p_class = softmax(self.class_model.logits([prev]))  # [n_vocab]
        q = softmax(self.other.logits([int(self.to_other[prev])]))[self.to_other] / self.sharing  # [n_vocab]
        p_other = q / q.sum()  # [n_vocab]
        return p_class, p_other, self.w * p_class + (1 - self.w) * p_other

    def class_share(self, ids: Sequence[int]) -> np.ndarray:
        """Which share of each token's probability came from the class: w * p_class / p. [n_vocab]"""
        p_class, _, p = self.parts(ids)
        return self.w * p_class / p

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        return np.log(self.parts(ids)[2])  # [n_vocab]
