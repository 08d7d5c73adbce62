"""The errors the inference core raises for bad input, so a caller can tell the user why.

Each message is an English msgid with %(name)s placeholders, marked with N_ so that pybabel finds
it (babel.cfg, `-k N_`), and its figures kept apart: the web layer shows it in the page's language
with the figures in the page's number format; str(error) is the English text. Figures given as
numbers are quantities (ints grouped, '2,000'; floats as %g, '0.5'); identifiers and the user's own
text are given as strings, as they should read: N_("token id %(id)s is not in the vocabulary").
"""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 (gettext's name for "mark for translation, translate later")
    """Mark message for extraction by pybabel; return it unchanged (the core knows no language)."""
    return message


def english(value):
    """A figure as str(error) writes it; text as it is.

    >>> english(2000), english(0.5), english("top-k")
    ('2,000', '0.5', 'top-k')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


class InferenceError(ValueError):
    """A request the core cannot carry out; the message is meant for the user.

    >>> error = InferenceError(N_("the limit is %(limit)s"), limit=2000)
    >>> str(error), error.message, error.params  # the English text, the msgid, the figures
    ('the limit is 2,000', 'the limit is %(limit)s', {'limit': 2000})
    """

    def __init__(self, message: str, **params):
        self.message = message
        self.params = params
        super().__init__(message % {name: english(value) for name, value in params.items()} if params else message)


class InvalidSetting(InferenceError):
    """A setting is out of range: temperature, top-k, top-p, min-p, seed, r; a class model's k or weight."""


class InvalidTokenIds(InferenceError):
    """A token id is not in the vocabulary, or there are more than the model allows."""


class PromptTooLong(InferenceError):
    """The prompt has more characters or tokens than the model allows."""


class UnknownModel(InferenceError):
    """No model has the requested name."""


class InvalidSentence(InferenceError):
    """A class's sentence is empty or over a limit, or the round holds too many (class_bigram.py)."""
