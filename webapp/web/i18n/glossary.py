"""The field's words, each with one short definition a 15-year-old understands, in every language.

A panel writes a word where it first uses it with `term("logit")` (or `term("logit", _("logits"))`
for another form of it): the word is underlined with dots, and its definition shows on hover, on
focus (Tab) and on a tap, without JavaScript. The definition is in the page's text, so a screen
reader reads it after the word, and a search finds it. Every word and definition is a message of
the catalogs (tests/web/test_catalogs.py checks each has all five languages).
"""

from __future__ import annotations

from typing import NamedTuple

from flask import Flask
from markupsafe import Markup, escape

from ...inference.errors import N_
from .translations import gettext


class Entry(NamedTuple):
    """A word as a panel first writes it, and what it means."""

    word: str
    definition: str


#: The glossary, in the order a pupil meets the words going down the page.
GLOSSARY: dict[str, Entry] = {
    "token": Entry(
        N_("token"),
        N_("A piece of text the model reads and writes: here a word or a punctuation mark; "
           "for some models a piece of a word. Each token has a number, its id."),
    ),
    "vocabulary": Entry(
        N_("vocabulary"),
        N_("Every token the model knows. It can only ever write one of these."),
    ),
    "unk": Entry(
        "<unk>",
        N_("The one token that stands for every word the model did not learn (unknown). "
           "When the model guesses <unk>, it guesses that some rare word comes next, without knowing which."),
    ),
    "forward_pass": Entry(
        N_("forward pass"),
        N_("The model's calculation: from the tokens so far to one score for every token of its vocabulary."),
    ),
    "logit": Entry(
        N_("logit"),
        N_("The model's score for a token: the higher the score, the more likely the token comes next. "
           "Scores can be negative; softmax turns them into probabilities."),
    ),
    "softmax": Entry(
        N_("softmax"),
        N_("The rule that turns scores into probabilities: every score becomes a positive number, "
           "a higher score stays higher, and together they add up to 100 %."),
    ),
    "temperature": Entry(
        N_("temperature"),
        N_("A number that changes how sure the model sounds: below 1 the likely tokens get even more likely, "
           "above 1 the chances even out, at 0 the most likely token always wins."),
    ),
    "r": Entry(
        "r",
        N_("A random number from 0 up to 1, drawn at every step. The range it falls in decides the next token."),
    ),
    "seed": Entry(
        N_("seed"),
        N_("The number the random numbers r start from. The same seed gives the same r at every step, "
           "so the same prompt and settings write the same text again."),
    ),
    "entropy": Entry(
        N_("entropy"),
        N_("How unsure the model is about the next token, in bits: 0 when one token is certain, "
           "more when many tokens are likely."),
    ),
    "bit": Entry(
        N_("bit"),
        N_("A unit of uncertainty: 1 bit is one fair coin toss; 2 bits, a choice among 4 equally likely tokens."),
    ),
    "perplexity": Entry(
        N_("perplexity"),
        N_("How surprised a model is, on average, by text it did not learn from: 60 means as unsure as "
           "a choice among 60 equally likely tokens. Lower is better."),
    ),
    "embedding": Entry(
        N_("embedding"),
        N_("The list of numbers a token becomes when the model reads it. Words used in similar ways "
           "get similar lists."),
    ),
    "layer": Entry(
        N_("layer"),
        N_("One round of the model's work on every token: attention, then a small calculation. "
           "The model does several rounds, one after the other."),
    ),
    "attention": Entry(
        N_("attention"),
        N_("How each token looks back at the tokens before it and takes in the ones that matter "
           "for guessing what comes next."),
    ),
    "head": Entry(
        N_("head"),
        N_("One of several ways a layer looks back at the same time: each head learns to watch for something "
           "different, such as the word just before."),
    ),
    "query": Entry(
        N_("query"),
        N_("What a token looks for when it looks back: a list of numbers compared with each earlier token's key."),
    ),
    "key": Entry(
        N_("key"),
        N_("What a token offers to the tokens after it: the better a query matches a key, "
           "the more attention that token gets."),
    ),
    "norm": Entry(
        N_("norm"),
        N_("A rescaling of a token's list of numbers so that they stay in a steady range from layer to layer."),
    ),
    "stream": Entry(
        N_("residual stream"),
        N_("A token's running list of numbers: every layer reads it and adds its own result to it."),
    ),
    # the decoding page (/decode)
    "greedy": Entry(
        N_("greedy decoding"),
        N_("Writing a text by taking, at every step, the single most probable next token, without looking "
           "further ahead."),
    ),
    "beam_search": Entry(
        N_("beam search"),
        N_("Keeping the few most probable texts so far (the beams), following each of them one token further, "
           "and keeping the best few again. It looks further ahead than greedy decoding."),
    ),
    "log_probability": Entry(
        N_("log-probability"),
        N_("The logarithm of a probability: 0 for something certain, more negative the less likely it is. Adding "
           "log-probabilities is multiplying probabilities, so a text's is the sum of its tokens'."),
    ),
    "length_penalty": Entry(
        N_("length penalty"),
        N_("A number a: a text's score is its log-probability divided by its length to the power a. Without it "
           "(a = 0) short texts win, as every token makes the sum more negative."),
    ),
}


def term(name: str, text: str | None = None) -> Markup:
    """The word `name` (or `text`, another form of it) with its definition, for a panel's sentence.

    term("bit", "bits") is the word "bits" in a span.term, followed by the definition in a span.term-def.
    """
    entry = GLOSSARY[name]
    word = escape(gettext(entry.word) if text is None else text)
    definition = escape(gettext(entry.definition))
    return Markup(
        f'<span class="term" tabindex="0">{word}<span class="term-def" role="tooltip">'
        f'<span class="term-colon">: </span>{definition}</span></span>'
    )


def register(app: Flask) -> None:
    """`term()` in every template."""
    app.jinja_env.globals["term"] = term
