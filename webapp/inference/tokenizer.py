"""A word-level tokenizer with a frequency vocabulary and an `<unk>` token.

Splitting rule: a token is a word (letters, with inner apostrophes or hyphens, so
"don't" and "good-humoured" stay whole), a run of digits, the dash "--", or any
other single non-space character (punctuation). Whitespace separates tokens and is
not a token, except a blank line, which becomes the paragraph token `<p>`.

Case is kept: "She" and "she" are different tokens. Austen capitalises names and
sentence starts, and a student reading the chips should see the words as written.

Left out on purpose: subwords and byte fallback. A word outside the vocabulary
becomes `<unk>`, which is the point of showing this tokenizer to a class.

Example, in a vocabulary of a few words:

    >>> tok = WordTokenizer(["<unk>", "<p>", '"', "Mr", ".", "Darcy", ",", "said", "she"])
    >>> tok.encode_ids('"Mr. Darcy," said she.')
    [2, 3, 4, 5, 6, 2, 7, 8, 4]
    >>> tok.decode([2, 3, 4, 5, 6, 2, 7, 8, 4])
    '"Mr. Darcy," said she.'
    >>> tok.encode_ids("said Zyxwvut")  # a word outside the vocabulary
    [7, 0]
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import N_, InvalidTokenIds

UNK = "<unk>"
PARAGRAPH = "<p>"
SPECIALS = (UNK, PARAGRAPH)

_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"
# \r: a browser form sends line breaks as "\r\n", so "\r\n\r\n" is a blank line too
_TOKEN = re.compile(rf"\n[ \t\r]*\n\s*|{_WORD}|\d+|--|[^\w\s]|_")
_NO_SPACE_BEFORE = frozenset(",.;:!?)]'’")
_NO_SPACE_AFTER = frozenset("([")


@dataclass(frozen=True)
class Token:
    """One token of an encoded text: its id, its text, and where it stood."""

    id: int
    text: str  # the vocabulary entry, e.g. "<unk>"
    source: str  # the characters it came from, e.g. "zyxwvut"
    start: int
    end: int

    @property
    def unk(self) -> bool:
        return self.text == UNK


def split(text: str) -> list[tuple[str, int, int]]:
    """Split text into (piece, start, end) by the rule in the module docstring.

    >>> split("Yes--she.\\n\\nNo")
    [('Yes', 0, 3), ('--', 3, 5), ('she', 5, 8), ('.', 8, 9), ('<p>', 9, 11), ('No', 11, 13)]
    """
    pieces = []
    for m in _TOKEN.finditer(text):
        piece = PARAGRAPH if m.group().startswith("\n") else m.group()
        pieces.append((piece, m.start(), m.end()))
    return pieces


def corpus_pieces(text: str) -> list[str]:
    """Split training text, dropping Gutenberg's `_italic_` underscores first."""
    return [piece for piece, _, _ in split(text.replace("_", ""))]


class VocabularyTokenizer:
    """What every tokenizer with a fixed list of tokens shares: sizes, id checks, id -> text.

    A subclass sets `vocab` (a sequence of token texts, indexed by id) and defines `encode`.
    `special_ids` are the tokens that mark rather than write text (a BPE vocabulary's <|endoftext|>).
    """

    vocab: Sequence[str]
    special_ids: frozenset[int] = frozenset()

    @property
    def n_vocab(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[Token]:
        raise NotImplementedError

    def encode_ids(self, text: str) -> list[int]:
        return [t.id for t in self.encode(text)]

    def token_text(self, i: int) -> str:
        self.check_ids([i])
        return self.vocab[i]

    def check_ids(self, ids: Iterable[int]) -> None:
        """Raise InvalidTokenIds unless every id is in the vocabulary."""
        bad = [i for i in ids if not 0 <= i < len(self.vocab)]
        if bad:
            raise InvalidTokenIds(N_("token id %(id)s is not in the vocabulary (0 to %(last)s)"), id=str(bad[0]),
                                  last=str(len(self.vocab) - 1))


class WordTokenizer(VocabularyTokenizer):
    """Map words to ids and back through a fixed vocabulary."""

    def __init__(self, vocab: Sequence[str]):
        if tuple(vocab[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"a vocabulary must start with {SPECIALS}")
        self.vocab: tuple[str, ...] = tuple(vocab)
        self._ids = {word: i for i, word in enumerate(self.vocab)}
        if len(self._ids) != len(self.vocab):
            raise ValueError("a vocabulary must not repeat a word")
        self.unk_id = self._ids[UNK]
        self.paragraph_id = self._ids[PARAGRAPH]

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int = 5000) -> WordTokenizer:
        """Keep the vocab_size - 2 most frequent pieces (ties: first seen) after the specials."""
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(corpus_pieces(text))
        for special in SPECIALS:
            counts.pop(special, None)
        words = [w for w, _ in counts.most_common(vocab_size - len(SPECIALS))]
        return cls([*SPECIALS, *words])

    @classmethod
    def load(cls, path: str | Path) -> WordTokenizer:
        return cls(json.loads(Path(path).read_text(encoding="utf-8"))["vocab"])

    def save(self, path: str | Path) -> None:
        data = {"type": "word", "vocab": list(self.vocab)}
        Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=0), encoding="utf-8")

    def id_of(self, word: str) -> int:
        return self._ids.get(word, self.unk_id)

    def encode(self, text: str) -> list[Token]:
        """Encode text into tokens that remember their source characters."""
        tokens = []
        for piece, start, end in split(text):
            i = self.id_of(piece)
            tokens.append(Token(i, self.vocab[i], text[start:end], start, end))
        return tokens

    def decode(self, ids: Sequence[int]) -> str:
        """Join tokens with single spaces, except around punctuation and quotes.

        The ids of '"', 'Mr', '.', 'Darcy', ',', '"' -> '"Mr. Darcy,"' (the second quote closes, so no
        space before it)
        """
        return "".join(self.decode_pieces(ids))

    def decode_pieces(self, ids: Sequence[int]) -> list[str]:
        """Decode each id to its text with the space that goes before it: "".join() is decode()."""
        self.check_ids(ids)
        return join_words([self.vocab[i] for i in ids])


def join_words(words: Sequence[str]) -> list[str]:
    """Space token texts as prose, one piece per word, each with the space that goes before it.

    >>> join_words(['"', "Yes", ",", '"', "said", "she"])
    ['"', 'Yes', ',', '"', ' said', ' she']
    """
    out: list[str] = []
    quote_open = False  # straight double quotes alternate: open, close, open...
    glue_next = True  # no space before the first word
    for word in words:
        if word == PARAGRAPH:
            out.append("\n\n")
            glue_next, quote_open = True, False
            continue
        closing = word == '"' and quote_open
        space = not (glue_next or closing or word == "--" or word in _NO_SPACE_BEFORE)
        out.append(" " + word if space else word)
        if word == '"':
            quote_open = not quote_open
        glue_next = word == "--" or word in _NO_SPACE_AFTER or (word == '"' and quote_open)
    return out
