"""Byte-level BPE (the GPT-2 kind) from a GGUF file's vocabulary, run by Hugging Face `tokenizers`.

Text becomes UTF-8 bytes, each byte shown by a printable stand-in character (a space is 'Ġ', a
newline 'Ċ'), the text is split into words by a regular expression (the "pre-tokenizer"), and
the file's merges join neighbouring pieces inside each word, most frequent pair first. Every byte
is in the vocabulary, so any text can be encoded: there is no `<unk>`.

The vocabulary, the merges, the special tokens (GGUF token type 3, "control") and the name of the
pre-tokenizer all come from the file's `tokenizer.ggml.*` metadata. `tokenizers` does the merging;
only the table of byte stand-ins is written out here, to turn tokens back into bytes.

Decoding joins the tokens' bytes and reads them as UTF-8. A character can be split across tokens
(an emoji is four bytes): decode_pieces gives such a character to the token that completes it, so
that the pieces always join to exactly decode(). On its own (token_text), a token that is part of
a character shows its loose bytes as escapes: ' \\xf0\\x9f\\x98'.

In a vocabulary of the 256 byte stand-ins and four merges:

    >>> stand_ins = list(byte_of_char())  # '!', '"', ..., 'Ġ' (a space), ...: ids 0 to 255
    >>> tok = BPETokenizer([*stand_ins, "Th", "The", "Ġc", "Ġca"], ["T h", "Th e", "Ġ c", "Ġc a"], [1] * 260, "gpt-2")
    >>> [(t.id, t.text) for t in tok.encode("The cat")]  # the space before a word is kept in its token
    [(257, 'The'), (259, ' ca'), (83, 't')]
    >>> tok.decode_pieces(tok.encode_ids("😀"))  # four bytes, four tokens: the character goes with the last
    ['', '', '', '😀']

Left out on purpose: SentencePiece vocabularies (GGUF tokenizer model "llama"), and the
pre-tokenizers of other model families (each is one more regular expression, added when needed).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Sequence
from functools import cache

from .tokenizer import Token, VocabularyTokenizer

CONTROL = 3  # GGUF token type of special tokens such as <|im_start|>
USER_DEFINED = 4  # GGUF token type of tokens added by hand, also written as they read

# tokenizer.ggml.pre -> split digits one by one before the GPT-2 split (as llama.cpp does)?
PRE_TOKENIZERS = {
    "gpt-2": False, "default": False, "mpt": False, "olmo": False,
    "smollm": True, "starcoder": True, "refact": True, "codeshell": True,
}


@cache
def byte_of_char() -> dict[str, int]:
    """GPT-2's stand-ins inverted: printable bytes stand for themselves, the rest from U+0100 on.

    >>> [byte_of_char()[c] for c in "AĠĊ"]  # 'Ġ' (U+0120) is a space, 'Ċ' (U+010A) a newline
    [65, 32, 10]
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = {b: chr(b) for b in printable}
    others = (b for b in range(256) if b not in chars)
    chars.update({b: chr(256 + n) for n, b in enumerate(others)})
    return {c: b for b, c in chars.items()}


def token_bytes(token: str, as_written: bool) -> bytes:
    """The bytes a vocabulary entry stands for; a special token's as written.

    >>> token_bytes("Ġcapital", as_written=False), token_bytes("<|im_start|>", as_written=True)
    (b' capital', b'<|im_start|>')
    """
    if as_written:
        return token.encode("utf-8")
    return token.translate(_to_latin1()).encode("latin-1")  # each stand-in to the character of its byte


@cache
def _to_latin1() -> dict[int, str]:
    return {ord(c): chr(b) for c, b in byte_of_char().items()}


class BPETokenizer(VocabularyTokenizer):
    """Byte-level BPE: text to tokens with their character spans, ids back to text."""

    unk_id = None  # every byte is a token, so nothing is unknown

    def __init__(self, tokens: Sequence[str], merges: Iterable[str], token_types: Sequence[int], pre: str):
        if pre not in PRE_TOKENIZERS:
            known = ", ".join(sorted(PRE_TOKENIZERS))
            raise ValueError(f"the pre-tokenizer {pre!r} is not supported (supported: {known})")
        if len(token_types) != len(tokens):
            raise ValueError(f"{len(tokens)} tokens but {len(token_types)} token types")
        special = [t == CONTROL for t in token_types]
        written = [t in (CONTROL, USER_DEFINED) for t in token_types]  # text as is, not byte stand-ins
        self._bytes = [token_bytes(t, w) for t, w in zip(tokens, written, strict=True)]
        self.vocab: tuple[str, ...] = tuple(shown(b) for b in self._bytes)
        self.special_ids = frozenset(i for i, s in enumerate(special) if s)
        self._tok = _build(tokens, merges, [t for t, s in zip(tokens, special, strict=True) if s], PRE_TOKENIZERS[pre])

    def id_of(self, text: str) -> int | None:
        """The id of the token whose text is exactly text, e.g. ' Paris', else None."""
        return self._tok.token_to_id("".join(_char_of(b) for b in text.encode("utf-8")))

    def encode(self, text: str) -> list[Token]:
        """Encode text into tokens with their character spans; special tokens written out are matched."""
        encoding = self._tok.encode(text, add_special_tokens=False)
        return [Token(i, self.vocab[i], text[start:end], start, end)
                for i, (start, end) in zip(encoding.ids, encoding.offsets, strict=True)]

    def decode(self, ids: Sequence[int]) -> str:
        """Join the tokens' bytes and read them as UTF-8 (a broken character becomes '\ufffd')."""
        self.check_ids(ids)
        return b"".join(self._bytes[i] for i in ids).decode("utf-8", errors="replace")

    def decode_pieces(self, ids: Sequence[int]) -> list[str]:
        """Each token's text, a character split across tokens going with the token that completes it.

        '😀' as [bytes f0 9f 98, byte 80] -> ['', '😀']; "".join(pieces) == decode(ids)
        """
        self.check_ids(ids)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pieces = [decoder.decode(self._bytes[i]) for i in ids]
        if pieces:
            pieces[-1] += decoder.decode(b"", final=True)  # a character left unfinished at the end
        return pieces


def shown(data: bytes) -> str:
    """A token's text on its own: b' capital' -> ' capital'; loose bytes of a character as escapes."""
    return data.decode("utf-8", errors="backslashreplace")


def _char_of(b: int) -> str:
    return _chars()[b]


@cache
def _chars() -> dict[int, str]:
    return {b: c for c, b in byte_of_char().items()}


def _build(tokens: Sequence[str], merges: Iterable[str], specials: list[str], split_digits: bool):
    """A `tokenizers` Tokenizer: BPE over byte stand-ins, the GPT-2 split, the special tokens."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers  # a native library: loaded on use

    pairs = [tuple(m.split(" ", 1)) for m in merges]
    tokenizer = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=pairs))
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    steps = [pre_tokenizers.Digits(individual_digits=True), byte_level] if split_digits else [byte_level]
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
    return tokenizer
