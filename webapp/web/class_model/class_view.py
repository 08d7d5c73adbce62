"""The pages of a model built from a text: the form that builds one, and a class model's own page."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from flask import url_for

from ...inference.class_bigram import DEFAULT_K
from ...inference.class_text import MAX_PASTED_BYTES, ClassText
from ...inference.tokenizer import split
from ..i18n.filters import thousands
from ..i18n.translations import gettext as _
from ..i18n.translations import ngettext
from ..url.links import public_base
from ..url.paths import path_for
from . import class_access
from .class_scores import Scores, scores

WORDS_PER_KB = 160  # English prose: about 6 bytes a word with its space and punctuation


@dataclass(frozen=True)
class BuildForm:
    """The form, with what was sent when it was refused."""

    text: str
    problem: str | None
    file_problem: str | None
    limit: str  # the size limit in words


def build_form(text: str = "", problem: str | None = None, file_problem: str | None = None) -> BuildForm:
    kb = MAX_PASTED_BYTES // 1000
    return BuildForm(text=text, problem=problem, file_problem=file_problem, limit=_(
        "up to %(kb)s KB of text: about %(words)s words, a few pages", kb=kb, words=thousands(kb * WORDS_PER_KB)))


def stepper_url(text_id: str, lang: str | None) -> str:
    """The stepper on the class model, from the start of a sentence: '/?model=class:k3v7a2q9xm&prompt='."""
    query = {"model": class_access.CLASS + text_id, "prompt": "", **({"lang": lang} if lang else {})}
    return path_for("stepper.show") + "?" + urlencode(query, safe=":")


@dataclass(frozen=True)
class SentenceItem:
    author: str
    text: str


@dataclass(frozen=True)
class ClassPage:
    """What the page of a class model shows: what it is, its sentences, its files and link, and how it scores."""

    id: str
    heading: str
    facts: tuple[str, ...]
    author_word: str
    sentences: tuple[SentenceItem, ...]
    stepper_url: str
    file_url: str
    file_name: str
    sentences_csv_url: str
    counts_csv_url: str
    link: str
    qr_url: str
    scores: Scores


def file_name(text_id: str) -> str:
    return f"class-{text_id}.json"


def n_tokens(text: ClassText) -> int:
    """Words and punctuation marks, as the model's tokenizer splits the sentences."""
    return sum(len(split(s)) for s in text.texts)


def class_page_link(text_id: str, lang: str | None) -> str:
    """The page's address for a colleague or a class, by the address students reach this server at."""
    return public_base() + url_for("class_models.page", text_id=text_id, **({"lang": lang} if lang else {}))


def class_page(text_id: str, lang: str | None) -> ClassPage:
    text = class_access.found_text(text_id)
    model = class_access.class_model(text_id)
    kw = {"text_id": text_id, **({"lang": lang} if lang else {})}
    heading = (_("A model built from a pasted text") if text.pasted and not text.topic
               else _("The class's model: %(topic)s", topic=text.topic) if text.topic else _("The class's model"))
    facts = (
        ngettext("%(num)s sentence", "%(num)s sentences", len(text.sentences)),
        ngettext("%(num)s word or punctuation mark", "%(num)s words and punctuation marks", n_tokens(text)),
        _("A vocabulary of %(n)s tokens: each different word and mark, and <s>, <p> and <unk>",
          n=thousands(model.n_vocab)),
        _("Smoothing k = %(k)s (the stepper can change it)", k=f"{DEFAULT_K:g}"),
    )
    return ClassPage(
        id=text_id, heading=heading, facts=facts,
        author_word=_("paragraph") if text.pasted else _("student"),
        sentences=tuple(SentenceItem(author=a, text=s) for a, s in text.sentences),
        stepper_url=stepper_url(text_id, lang),
        file_url=url_for("class_models.model_file", text_id=text_id), file_name=file_name(text_id),
        sentences_csv_url=url_for("class_models.sentences_csv_file", text_id=text_id),
        counts_csv_url=url_for("class_models.counts_csv_file", text_id=text_id),
        link=class_page_link(text_id, lang),
        qr_url=url_for("class_models.qr_code", **kw),
        scores=scores(text),
    )
