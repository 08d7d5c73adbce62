"""A word a student types, as exactly one token of the model's vocabulary, or why it is not one.

The class votes on the next token, so a guess must be one token. A word-level model knows a
word or reads it as <unk>; a byte-level BPE model usually has a word with the space before it
as one token (' Paris'), so the word is tried with a leading space first.

    'Darcy' -> 412;  'Mr.' -> GuessRefused("'Mr.' is 2 tokens for this model: 'Mr' + '.' ...")
"""

from __future__ import annotations

import unicodedata

from ..inference import LanguageModel
from ..inference.errors import N_, InferenceError

MAX_GUESS_CHARS = 40


class GuessRefused(InferenceError):
    """A typed guess that is not one token; the message says why."""


def typed_word(text: str) -> str:
    """What a student typed, as one line of visible text: spaces squeezed, control and format characters
    dropped (a right-to-left override, a NUL), as from a nickname, since the refusal shows it back.

    >>> typed_word("  her\u202e\x00 "), typed_word("Mr\t.")
    ('her', 'Mr .')
    """
    return "".join(c for c in " ".join(text.split()) if unicodedata.category(c)[0] != "C")


def guess_token(model: LanguageModel, text: str) -> int:
    """The id of the one token that text is, else GuessRefused with the reason."""
    word = typed_word(text)
    if not word:
        raise GuessRefused(N_("type a word, or pick one of the model's top tokens"))
    if len(word) > MAX_GUESS_CHARS:
        raise GuessRefused(N_("a guess is one token: %(n)s characters is too long"), n=len(word))
    tokenizer = model.tokenizer
    tries = [word] if tokenizer.unk_id is not None else [" " + word, word]
    for candidate in tries:
        tokens = tokenizer.encode(candidate)
        if len(tokens) == 1 and not tokens[0].unk:
            return tokens[0].id
    tokens = tokenizer.encode(tries[0])
    if len(tokens) == 1:
        raise GuessRefused(N_("'%(word)s' is not in the vocabulary of %(model)s: it would be read as <unk>, which the "
                              "model never picks as a guess of yours. Try another word."), word=word, model=model.name)
    pieces = " + ".join(f"'{t.text}'" for t in tokens[:6]) + (" + …" if len(tokens) > 6 else "")
    raise GuessRefused(N_("'%(word)s' is %(n)s tokens for %(model)s: %(pieces)s. The class votes on one token at a "
                          "time: type just the first, or pick from the list."), word=word, n=len(tokens),
                       model=model.name, pieces=pieces)
