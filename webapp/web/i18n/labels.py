"""How tokens read on screen: a label per token, and every label of a model escaped once.

The panels show dozens of a model's tokens on every Step (the table, the chart, the range bar,
the chips); they look the labels up by id rather than relabel and re-escape each token each time.
"""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup, escape

from ...inference import LanguageModel

WHITESPACE_SIGNS = str.maketrans({"\n": "↵", "\r": "␍", "\t": "⇥"})


def token_label(token: str) -> str:
    """How a token reads on screen: the paragraph token as a pilcrow; the spaces a subword token
    starts with as '␣' and line breaks as '↵', so that ' Paris' reads '␣Paris' and '\n' reads '↵'."""
    if token == "<p>":
        return "¶"
    body = token.lstrip(" ")
    return "␣" * (len(token) - len(body)) + body.translate(WHITESPACE_SIGNS)


def shorten(text: str, length: int) -> str:
    """Cut a long label to `length` characters ending in '…', as Jinja's truncate(length, true, '…')
    does: a text at most 5 longer than `length` is left whole."""
    return text if len(text) <= length + 5 else text[: length - 1] + "…"


SMALL_VOCABULARY = 1000  # labelled on each use: a millisecond; SmolLM2's 49,152 labels take a third of a second


def token_labels(model: LanguageModel, length: int | None = None) -> tuple[Markup, ...]:
    """Every token's label, escaped once per model: `token_labels(model)[i]` is `token_label` of token
    i, and `token_labels(model, 10)[i]` the same shortened to 10 characters (see shorten).

    A small vocabulary's are made again each time: the article model is a new model on every request,
    and kept, its labels would push a large model's out of the cache.
    """
    if model.n_vocab <= SMALL_VOCABULARY:
        return _labels(model, length)
    return _kept_labels(model, length)


def _labels(model: LanguageModel, length: int | None) -> tuple[Markup, ...]:
    labels = (token_label(model.tokenizer.token_text(i)) for i in range(model.n_vocab))
    return tuple(escape(label if length is None else shorten(label, length)) for label in labels)


_kept_labels = lru_cache(maxsize=64)(_labels)
