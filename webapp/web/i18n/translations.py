"""The page's language: which one a request gets, its gettext catalog, and its number formats.

The language is part of the screen's state (`lang=` in the URL, state.py), so a shared link and the
QR code open in the sender's language. A request without `lang=` gets the best of the browser's
Accept-Language, else English, and its answer says `Vary: Accept-Language`. The catalogs are
webapp/translations/<lang>/LC_MESSAGES/messages.po (see the README's section for translators);
the core marks its messages with `N_` (inference/errors.py) and they are translated here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

from babel.support import NullTranslations, Translations
from flask import Flask, g, request
from flask_babel import Babel
from markupsafe import Markup, escape

from ...inference import InferenceError
from ..serving.vary import add_vary
from . import filters
from .languages import DEFAULT_LANGUAGE, NAMES

TRANSLATIONS_DIR = Path(__file__).resolve().parents[2] / "translations"
# Endpoints whose links carry the request's own lang= (the stepper's links carry it in the state).
KEEPS_LANG = ("room.", "stepper.vocabulary")
TRADITIONAL_CHINESE = {"tw", "hk", "mo", "hant"}  # these readers are not served the Simplified catalog

ENGLISH = NullTranslations()  # English is the msgids themselves
_translations: ContextVar[NullTranslations] = ContextVar("translations", default=ENGLISH)


def negotiate(accept_language: str) -> tuple[str, ...]:
    """The supported languages an Accept-Language header asks for, most wanted first.

    'de-AT,de;q=0.9,en;q=0.5' -> ('de', 'en'); 'zh-CN' -> ('zh',); 'zh-TW' -> (); 'pt-BR' -> ().
    """
    wanted = []
    for position, part in enumerate(accept_language.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        subtags = tag.strip().lower().replace("_", "-").split("-")
        if subtags[0] not in NAMES or quality <= 0:
            continue
        if subtags[0] == "zh" and TRADITIONAL_CHINESE.intersection(subtags[1:]):
            continue
        wanted.append((-quality, position, subtags[0]))
    return tuple(dict.fromkeys(lang for _, _, lang in sorted(wanted)))


def choose_language(lang: str | None, accept_language: str) -> tuple[str, bool]:
    """The request's language and whether the browser's header chose it (then the answer varies by it).

    ('de', ...) -> ('de', False); (None, 'fr;q=0.8') -> ('fr', True); an unknown lang -> the header's
    choice (parse.py refuses it with a 400, and the message is in the header's language).
    """
    lang = (lang or "").strip().lower()
    if lang in NAMES:
        return lang, False
    return next(iter(negotiate(accept_language)), DEFAULT_LANGUAGE), True


def current_language() -> str:
    """The language of the request being answered ('en' outside a request)."""
    return g.get("language", DEFAULT_LANGUAGE) if g else DEFAULT_LANGUAGE


def lang_param() -> str | None:
    """The `lang=` the request's URL gave, if any: a page passes it on to the fragments it asks for."""
    return g.language if g and not g.get("language_from_header", True) else None


def html_lang() -> str:
    """The tag for <html lang>: 'de', 'zh-Hans'."""
    return NAMES[current_language()][1]


def gettext(message: str, **params) -> str:
    """Translate message into the request's language and fill in its %(name)s placeholders."""
    text = _translations.get().gettext(message)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int, **params) -> str:
    """The plural form for n in the request's language; %(num)s is n, written as the locale writes it."""
    text = _translations.get().ngettext(singular, plural, n)
    return text % {"num": filters.thousands(n), **params}


def template_gettext(message: str, **variables) -> Markup:
    """`_()` and {% trans %} in a template, as Jinja's newstyle gettext: escaped, always %-formatted.

    A plain function, unlike Jinja's own (which takes the template's context, and then calls through
    it twice more): a Step asks for about 150 messages. The templates are always autoescaped.
    """
    text = _translations.get().gettext(message)
    if not variables and "%" not in text:  # most messages: formatting would leave them as they are
        return Markup(text)
    return Markup(text) % variables


def template_ngettext(singular: str, plural: str, n: int, **variables) -> Markup:
    """{% trans count=n %} and ngettext() in a template: %(num)s is n as it is, as in Jinja's newstyle ngettext."""
    variables.setdefault("num", n)
    return Markup(_translations.get().ngettext(singular, plural, n)) % variables


SLOT = "\x00"  # a message's place for a value filled in later, once per row (never in a translation)


def filler(message: Markup) -> Callable[[object], Markup]:
    """A translated message with SLOT where a value goes, as a function of that value, escaped as `_()` escapes it.

    A panel repeats one message per row (each chip's tooltip): translated once, `_("token id %(id)s", id=SLOT)`,
    and filled for each row for about a quarter of what Markup's % costs.

    >>> fill = filler(Markup("token id " + SLOT))
    >>> fill(42), fill("<b>")
    (Markup('token id 42'), Markup('token id &lt;b&gt;'))
    """
    text = str(message)
    return lambda value: Markup(text.replace(SLOT, escape(value)))


def data_text(text: str) -> str:
    """A text from a data file (a bundled model's description) in the request's language, where the catalogs
    have it, else as it is. Plain text, escaped where it is shown like any other (a user's own model
    folder writes its own description), and never %-formatted.
    """
    return _translations.get().gettext(text) if text else text


# Where a bundled model's description says how well the model predicts text it was not trained on: a figure for
# the teacher, which the student's view folds under More (description_parts).
MEASURE_MARK = "Held-out perplexity"


def split_description(text: str) -> tuple[str, str]:
    """A model's description and its sentence on held-out perplexity, apart, as the data file has them.

    'Bigram: the next word ... smoothing). Held-out perplexity 131.3.'
    -> ('Bigram: the next word ... smoothing).', 'Held-out perplexity 131.3.');
    a description without one (a user's own model) -> (its text, '').
    """
    what, mark, measure = text.partition(MEASURE_MARK)
    return (what.rstrip(), mark + measure) if mark else (text, "")


def description_parts(text: str) -> tuple[str, str]:
    """split_description's two parts, each in the request's language where the catalogs have it."""
    return tuple(map(data_text, split_description(text)))


def extract_model_descriptions(fileobj, keywords, comment_tags, options):
    """A pybabel extractor (babel.cfg): the description in a bundled model's config.json, as its two messages
    (split_description)."""
    description = json.load(fileobj).get("description")
    for part in split_description(description or ""):
        if part:
            yield 1, None, part, ["Translators: a bundled model's description (its config.json); keep its figures."]


def local_params(params: Mapping) -> dict:
    """A message's figures as the page's locale writes them: 2000 -> '2.000' in German; text as it is."""
    return {name: filters.message_number(value) for name, value in params.items()}


def error_message(error: InferenceError) -> str:
    """An error of the core (or of parse.py), in the request's language: its msgid and its figures."""
    return gettext(error.message, **local_params(error.params))


class LanguageLink(NamedTuple):
    """One entry of the switcher: Deutsch (tag 'de'), this screen's URL with lang=de, whether it is the page's."""

    code: str
    name: str
    tag: str
    url: str
    current: bool


def switcher_links(url_for_language: Callable[[str], str]) -> list[LanguageLink]:
    """The switcher's entries, one per language; url_for_language('de') -> this screen in German."""
    here = current_language()
    return [LanguageLink(code, name, tag, url_for_language(code), code == here) for code, (name, tag) in NAMES.items()]


def here_in(code: str, kept: list[tuple[str, str]] | None = None) -> str:
    """This address with lang=code: a page read by GET keeps its query (or only `kept`, when given); after a
    POST, the page's path."""
    try:
        args = kept if kept is not None else request.args.items(multi=True) if request.method == "GET" else []
        args = [(k, v) for k, v in args if k != "lang"]
    except UnicodeDecodeError:  # the error page of an address that is not UTF-8: its path only
        args = []
    return f"{request.path}?{urlencode([*args, ('lang', code)])}"


def register(app: Flask) -> None:
    """Choose each request's language first (before the answer cache looks it up), then install gettext."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS_DIR))
    Babel(app, locale_selector=current_language)
    catalogs = app.extensions["catalogs"] = {code: load_catalog(code) for code in NAMES}
    # Newstyle gettext ({% trans %} leaves escaping and %-formatting to it), reading this request's catalog.
    app.jinja_env.install_gettext_callables(gettext=template_gettext, ngettext=template_ngettext, newstyle=True)
    app.jinja_env.globals.update(
        _=template_gettext,
        gettext=template_gettext,
        ngettext=template_ngettext,
        html_lang=html_lang,
        current_language=current_language,
        lang_param=lang_param,
        data_text=data_text,
    )

    @app.url_defaults
    def keep_language(endpoint: str | None, values: dict) -> None:
        """A page without a screen's state (the class room, the vocabulary) passes a chosen lang on to its links."""
        if endpoint and endpoint.startswith(KEEPS_LANG) and "lang" not in values and (lang := lang_param()):
            values["lang"] = lang

    @app.before_request
    def choose():
        try:
            lang = request.args.get("lang")
        except UnicodeDecodeError:  # security.check_requests refuses such an address next, in the header's language
            lang = None
        g.language, g.language_from_header = choose_language(lang, request.headers.get("Accept-Language", ""))
        g.language_tokens = (_translations.set(catalogs[g.language]), filters.use_locale(g.language))

    @app.teardown_request
    def forget(_error):
        tokens = g.pop("language_tokens", None)
        if tokens:
            _translations.reset(tokens[0])
            filters.forget_locale(tokens[1])


def vary_by_language(app: Flask) -> None:
    """Say `Vary: Accept-Language` where the header chose the language. Register after the answer cache,
    so that the answer it keeps says so too."""

    @app.after_request
    def vary(response):
        if g.get("language_from_header"):
            add_vary(response, "Accept-Language")
        return response


def load_catalog(code: str) -> NullTranslations:
    """The compiled catalog of a language (English is the msgids themselves)."""
    if code == DEFAULT_LANGUAGE:
        return ENGLISH
    return Translations.load(str(TRANSLATIONS_DIR), [code], "messages")
