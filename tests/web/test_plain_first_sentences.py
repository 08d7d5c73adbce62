"""The forward pass's panels and their worked examples open with a sentence a 15-year-old can read.

Each section's first sentence says what the part does and why, in words: no formula sign, no letter
standing for a number, before the figures and the field's words (query, key, norm) that follow it.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from .markup import Element, parse, seen_words, unfold
from .models import BIGRAM_MODEL, TRANSFORMER

SYMBOLS = re.compile(r"[=·√Σ×/^<>′]|\b[zqkhpT]\b")  # a formula's signs, or a letter standing for a number
OPENINGS = {
    "logits": "The model reads the words so far and gives every word of its vocabulary a score",
    "inside": "The model works in rounds called layers",
    "inside-embeddings": "First the model turns each word into a list of numbers, its embedding",
    "inside-attention": "Attention:",  # the glossary's word, then the plain sentence (ATTENTION)
    "inside-head": "Each row is a word looking back",
    "inside-lens": "What the model would guess if it stopped after this layer.",
    "worked-inside-attention": "How much the last word looks at",
    "worked-inside-lens": "The guess after layer",
}
ATTENTION = "Attention: each word looks back at the words before it and decides which ones matter"
BIGRAM_OPENINGS = {
    "inside": "This model guesses the next word from the one word before it alone",
    "worked-inside-bigram": "A word that never followed must still have a small chance",
    "worked-logits": "The model scored all 5,000 possible next tokens.",
}


def first_sentence(element: Element) -> str:
    """The first sentence of the element's first paragraph, after a fold's summary."""
    paragraph = next(p for p in element.find_all("p") if "inside-close" not in p.classes)
    return re.split(r"(?<=[.:])\s", seen_words(paragraph))[0]


def section(doc: Element, name: str) -> Element:
    return doc.by_id(name) or doc.find("div", name)


def page(client, **params) -> Element:
    return unfold(client, parse(client.get("/?" + urlencode({"prompt": "It is a truth", **params})).data))


def test_the_transformers_panels_and_worked_examples_open_in_plain_words(app, client):
    if TRANSFORMER not in app.extensions["models"]:
        pytest.skip(f"{TRANSFORMER} is not bundled")
    doc = page(client, model=TRANSFORMER, inside="1")
    for name, opening in OPENINGS.items():
        sentence = first_sentence(section(doc, name))
        assert sentence.startswith(opening), (name, sentence)
        assert not SYMBOLS.search(sentence), (name, sentence)
    assert ATTENTION in seen_words(section(doc, "inside-attention"))


def test_the_bigrams_panels_and_worked_examples_open_in_plain_words(client):
    doc = page(client, model=BIGRAM_MODEL, inside="1")
    for name, opening in BIGRAM_OPENINGS.items():
        sentence = first_sentence(section(doc, name))
        assert sentence.startswith(opening), (name, sentence)
        assert not SYMBOLS.search(sentence), (name, sentence)


def test_each_new_word_is_explained_where_it_first_appears(app, client):
    if TRANSFORMER not in app.extensions["models"]:
        pytest.skip(f"{TRANSFORMER} is not bundled")
    doc = page(client, model=TRANSFORMER, inside="1")
    inside = seen_words(doc.by_id("inside"))
    for said in ("its embedding: words used in similar ways get similar lists",
                 "a query (what the word is looking for)", "a key (what that word offers)",
                 "called layers", "(the residual stream)", "its final norm (which evens out the size of the numbers)"):
        assert said in inside
    assert "Row: a position's query" not in inside
