"""The gettext catalogs: every message translated in every language, placeholders kept, .mo up to date.

messages.pot is what `pybabel extract` (babel.cfg) finds; each language's messages.po translates it
and the compiled messages.mo beside it is what the server reads.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from webapp.web.i18n.languages import LANGUAGES
from webapp.web.i18n.translations import TRANSLATIONS_DIR

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdrf]")
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "lazy_gettext": None}


def read_catalog(path: Path, locale: str | None = None):
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def template():
    return read_catalog(TRANSLATIONS_DIR / "messages.pot")


def catalog(lang: str):
    return read_catalog(TRANSLATIONS_DIR / lang / "LC_MESSAGES" / "messages.po", lang)


def forms(message) -> tuple[str, ...]:
    return tuple(message.string) if isinstance(message.string, (tuple, list)) else (message.string,)


def ids(message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, (tuple, list)) else (message.id,)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation_that_is_not_empty_or_fuzzy(lang):
    po = catalog(lang)
    missing = [m.id for m in template() if m.id and (po.get(m.id) is None or not all(forms(po.get(m.id))))]
    fuzzy = [m.id for m in po if m.id and m.fuzzy]
    assert missing == [] and fuzzy == [], f"{lang}: untranslated {missing[:5]}, fuzzy {fuzzy[:5]}"
    assert not po.fuzzy, f"{lang}: the catalog's header is marked fuzzy"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_plural_has_each_of_the_languages_forms(lang):
    po = catalog(lang)
    short = [m.id for m in po if m.pluralizable and len(forms(m)) != po.num_plurals]
    assert short == [], f"{lang} has {po.num_plurals} plural forms; these have another number: {short}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_translation_keeps_the_placeholders_of_its_message(lang):
    for message in catalog(lang):
        if not message.id:
            continue
        wanted = {name for msgid in ids(message) for name in PLACEHOLDER.findall(msgid)}
        for form in forms(message):
            names = set(PLACEHOLDER.findall(form))
            assert names <= wanted, f"{lang}: {form!r} names a placeholder that {message.id!r} lacks"
            if not message.pluralizable:  # a plural's singular may say "one" instead of %(num)s
                assert names == wanted, f"{lang}: {form!r} drops a placeholder of {message.id!r}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_matches_its_po_file(lang):
    """The .mo files are committed (a fresh install needs no compile step): `pybabel compile` after each edit."""
    with (TRANSLATIONS_DIR / lang / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        mo = read_mo(f)
    po = catalog(lang)
    compiled = {ids(m): forms(m) for m in mo if m.id}
    written = {ids(m): forms(m) for m in po if m.id and all(forms(m))}
    assert compiled == written, f"{lang}: messages.mo is stale; run pybabel compile -d webapp/translations"


def extracted() -> set[str]:
    """Every msgid that `pybabel extract` finds in the code and the templates (a plural: its singular)."""
    method_map = [("webapp/**.py", "python"), ("templates/**.html", "jinja2")]
    found = {msgid for _, _, msgid, _, _ in extract_from_dir(ROOT, method_map, keywords=KEYWORDS)}
    return {m if isinstance(m, str) else m[0] for m in found if m}


def test_the_template_holds_every_message_the_code_and_templates_mark():
    """messages.pot is up to date: run the extract command in the README after marking a message."""
    known = {m.id if isinstance(m.id, str) else m.id[0] for m in template() if m.id}
    assert extracted() - known == set(), "messages.pot is stale: run the pybabel extract command in the README"


def test_every_message_of_the_template_is_still_marked_where_it_is_used():
    """A message the code calls by a name pybabel does not know (say, a gettext imported under another name)
    would vanish from messages.pot at the next extract, and its translations with it: call it `_` or `ngettext`."""
    models = {m.id for m in template() if m.id and any("config.json" in path for path, _ in m.locations)}
    known = {m.id if isinstance(m.id, str) else m.id[0] for m in template() if m.id and m.id not in models}
    assert known - extracted() == set()
