"""The glossary: every word of the field explained where a screen first uses it, in every language.

A word is written with term() (webapp/web/i18n/glossary.py): the word, then its definition in a
span that CSS shows on hover, focus and tap. These tests read the catalogs and the pages; the browser
test of the popup itself is tests/e2e/test_glossary.py.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from markupsafe import Markup

from webapp.web.i18n.glossary import GLOSSARY, term
from webapp.web.i18n.languages import LANGUAGES

from .test_catalogs import catalog

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
# The words a pupil meets first, each defined where it first appears on some screen of the stepper.
FIELD_WORDS = ("token", "logit", "softmax", "temperature", "seed", "entropy", "bit")
# The words of the inside of the forward pass, defined in its panel once it is open.
INSIDE_WORDS = ("embedding", "layer", "attention", "head", "query", "key", "norm", "stream")
SCREEN = "/?prompt=It+is+a+truth+universally+zzyzx&ids=21&seed=7&guide=0"
TERM = re.compile(r'<span class="term" tabindex="0">(.*?)<span class="term-def" role="tooltip">'
                  r'<span class="term-colon">: </span>(.*?)</span></span>', re.S)


def defined_terms(html: str) -> dict[str, str]:
    """{definition: word} of every term on a page, as a reader sees them."""
    return {unescape(definition): unescape(word) for word, definition in TERM.findall(html)}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_glossary_word_and_definition_is_translated(lang):
    po = catalog(lang)
    for name, entry in GLOSSARY.items():
        definition = po.get(entry.definition)
        assert definition is not None and definition.string, (lang, name)
        assert definition.string != entry.definition, (lang, name, "the definition is still English")
        if entry.word not in ("<unk>", "r"):  # a symbol is the same in every language
            word = po.get(entry.word)
            assert word is not None and word.string, (lang, name)


def test_a_term_escapes_its_word_and_shows_its_definition():
    html = term("token", "<b>tokens</b>")
    assert isinstance(html, Markup)
    assert "&lt;b&gt;tokens&lt;/b&gt;" in html and "<b>" not in html
    assert defined_terms(html) == {GLOSSARY["token"].definition: "<b>tokens</b>"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_stepper_defines_the_field_words_in_the_page_language(client, lang):
    page = client.get(f"{SCREEN}&lang={lang}").get_data(as_text=True)
    found = defined_terms(page)
    po = catalog(lang) if lang != "en" else None
    for name in FIELD_WORDS:
        english = GLOSSARY[name].definition
        wanted = po.get(english).string if po else english
        assert wanted in found, (lang, name)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_open_forward_pass_defines_its_words_in_the_page_language(client, lang):
    page = client.get(f"{SCREEN}&inside=1&lang={lang}").get_data(as_text=True)
    inside = page[page.index('id="inside"'):]
    found = defined_terms(inside)
    po = catalog(lang) if lang != "en" else None
    for name in INSIDE_WORDS:
        english = GLOSSARY[name].definition
        assert (po.get(english).string if po else english) in found, (lang, name)


def test_an_unknown_word_as_the_answer_is_explained_where_it_is_picked(client, model):
    unk = model.tokenizer.unk_id
    page = client.get(f"/?prompt=It+is&ids={unk}&guide=0").get_data(as_text=True)
    assert 'class="unk-answer"' in page
    assert GLOSSARY["unk"].definition.replace("<", "&lt;").replace(">", "&gt;") in page
    other = client.get("/?prompt=It+is&ids=21&guide=0").get_data(as_text=True)
    assert 'class="unk-answer"' not in other


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_decoding_page_defines_its_words_in_the_page_language(client, lang):
    page = client.get(f"/decode?prompt=It+is&width=2&max_new_tokens=2&lang={lang}").get_data(as_text=True)
    found = defined_terms(page)
    po = catalog(lang) if lang != "en" else None
    for name in ("greedy", "beam_search", "log_probability", "length_penalty"):
        english = GLOSSARY[name].definition
        assert (po.get(english).string if po else english) in found, (lang, name)
