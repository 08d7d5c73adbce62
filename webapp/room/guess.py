"""What a student may guess: a token of text, typed as a word or picked from the ballot; or why not.

The class votes on the next token, so a guess must be one token. A word-level model knows a
word or reads it as <unk>; a byte-level BPE model usually has a word with the space before it
as one token (' Paris'), so the word is tried with a leading space first.

    'Darcy' -> 412;  'Mr.' -> GuessRefused("'Mr.' is 2 tokens for this model: 'Mr' + '.' ...")

No guess is <unk> (it stands for every word the vocabulary lacks, not for one) or a special token
(<|endoftext|>, <|im_start|>: markers, not text): the ballot does not offer them, and a typed word
or a posted id that is one is refused.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

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


def not_guesses(model: LanguageModel) -> frozenset[int]:
    """The ids no guess may be: <unk> and the tokenizer's special tokens."""
    tokenizer = model.tokenizer
    unk = () if tokenizer.unk_id is None else (tokenizer.unk_id,)
    return frozenset((*unk, *tokenizer.special_ids))


def guessable(model: LanguageModel, ids: Iterable[int]) -> list[int]:
    """The ids, in their order, that a guess may be: [0, 17, 3] -> [17, 3] for a model whose <unk> is 0."""
    left_out = not_guesses(model)
    return [i for i in ids if i not in left_out]


def check_guess(model: LanguageModel, token: int) -> int:
    """The token id a student sent from the ballot, if a guess may be it; else GuessRefused."""
    if token in not_guesses(model):
        raise GuessRefused(N_("'%(token)s' is not a token to vote for: <unk> and the model's special tokens are not "
                              "text. Pick one of the tokens offered, or type a word."),
                           token=model.tokenizer.vocab[token])
    return token


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
            return check_guess(model, tokens[0].id)  # a special token written out is one token, and no guess
    tokens = tokenizer.encode(tries[0])
    if len(tokens) == 1:
        raise GuessRefused(N_("'%(word)s' is not in the vocabulary of %(model)s: it would be read as <unk>, which the "
                              "model never picks as a guess of yours. Try another word."), word=word, model=model.name)
    pieces = " + ".join(f"'{t.text}'" for t in tokens[:6]) + (" + …" if len(tokens) > 6 else "")
    raise GuessRefused(N_("'%(word)s' is %(n)s tokens for %(model)s: %(pieces)s. The class votes on one token at a "
                          "time: type just the first, or pick from the list."), word=word, n=len(tokens),
                       model=model.name, pieces=pieces)
