"""The page in each language: after two Steps no English is left on it, and German figures are German.

"English" is any word of the English messages (webapp/translations/messages.pot) or a common English
word, found in the text a person can read (worked examples and the help opened) and in the labels a
screen reader reads (aria-label, title, alt, placeholder). Left out: what is data, not interface:
tokens (chips, the table's and the chart's token cells, the range bar, the text so far), model names
and descriptions, commands to type, and numbers. SAME_WORDS lists the words that are the same in a
language (terms its teaching literature keeps in English, like "token" and "top-k").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from playwright.sync_api import Page, expect
from stepping import api_step, state_url

POT = Path(__file__).resolve().parents[2] / "webapp" / "translations" / "messages.pot"
# Where a page shows data rather than interface words.
DATA = ", ".join(
    [
        ".tok",
        ".chip",
        ".chip-text",
        ".bar-label",
        ".token",
        ".stage-bar text",
        "#ranges .kept-ranges text",
        "#text .gen",
        ".prompt-text",
        "#model option",
        "code",
        "kbd",
        "samp",
        "textarea",
        "#languages",
        ".stage-setting",
        "#share-link",
        ".join-url",
        ".site-header h1",
    ]
)
COMMON_ENGLISH = {
    "the",
    "and",
    "of",
    "to",
    "is",
    "with",
    "this",
    "that",
    "from",
    "for",
    "are",
    "not",
    "each",
    "which",
    "what",
    "here",
    "there",
    "after",
    "before",
    "click",
    "press",
    "step",
    "back",
    "reset",
}
# Words the same in every language: names, notation, and code the page quotes.
ANY_LANGUAGE = {
    "jane",  # Jane Austen, whose novels the bundled models learned from
    "python",  # "In Python: numpy.random..."
    "default",  # numpy.random.default_rng
    "rng",
    "bits",
    "softmax",
    "logit",
    "logits",
    "top-k",
    "top-p",
    "min-p",
    "numpy",
    "random",
    "default_rng",
    "json",
    "csv",
    "qr",
    "svg",
    "html",
    "gguf",
    "bpe",
    "unk",
    "smollm",
    "austen",
    "bigram",
    "transformer",
    "llama",
    "htmx",
    "argmax",
    "id",
    "ids",
    "log",
    "exp",
    "max",
    "min",
    "gpt",
    "hugging",
    "face",
}
# Words a translation keeps as English spells them: terms of the field, and words spelled alike.
SAME_WORDS = {
    "es": {"token", "tokens", "prompt", "no", "panel", "embedding", "probable", "final", "divide",  # "se divide"
           "bit"},
    "de": {
        "token",
        "tokens",
        "prompt",
        "seed",
        "export",
        "link",
        "links",
        "start",
        "name",
        "in",
        "an",
        "so",
        "text",
        "code",
        "server",
        "per",
        "greedy",
        "sampling",
        "embedding",
        "attention",
        "bit",  # "7,08 Bit": German's unit of information
        "was",  # "was dieses Wort bietet"
        "positive",  # "eine positive Zahl"
        "fair",  # "zufällig, aber fair"
        "lang",  # "so lang wie seine Wahrscheinlichkeit"
        "also",  # "also schon mit zwei Bildschirmen"
        "browser",  # "in diesem Browser"
    },
    "fr": {
        "plus",
        "change",  # "la graine change les étapes suivantes"
        "probable",  # "le token le plus probable"
        "part",  # "nulle part"
        "score",
        "attention",
        "surprise",
        "token",
        "tokens",
        "prompt",
        "distribution",
        "position",
        "positions",
        "total",
        "note",
        "mode",
        "page",
        "article",
        "simple",
        "normal",
        "minimal",
        "pause",
        "image",
        "message",
        "code",
        "table",
        "option",
        "bit",  # "1 bit", "7,08 bits": French's unit of information
        "bits",
        "chances",  # "leurs chances s'y additionnent"
        "scores",
        "on",  # "on le divise par T"
        "chose",  # "la même chose"
        "large",  # "aussi large que sa probabilité"
        "long",
        "point",  # "r est un point sur la règle"
        "certain",  # "un token était certain"
    },
    "zh": set(),
}
LANGUAGES = {"es": "es", "de": "de", "fr": "fr", "zh": "zh-Hans"}

READABLE_TEXT = """(data) => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, ' + data)) continue;
    if (!parent.closest('dialog') && !parent.checkVisibility()) continue;
    texts.push(node.textContent);
  }
  for (const el of document.body.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
    if (el.closest(data)) continue;
    for (const name of ['aria-label', 'title', 'alt', 'placeholder']) {
      if (el.hasAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return texts.join('\\n');
}"""


# A token quoted in a sentence ('be', „be“, « be », “be”, ‘be’) is the model's, not the page's words.
QUOTED = re.compile(r"'[^'\n]*'|„[^“\n]*“|«[^»\n]*»|“[^”\n]*”|‘[^’\n]*’")
# Words in any script: 'hält' is one German word, not 'h' and 'lt'; default_rng is two.
WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['-])*[^\W\d_]")


def english_words() -> set[str]:
    with POT.open("rb") as f:
        catalog = read_po(f)
    words = set(COMMON_ENGLISH)
    for message in catalog:
        for msgid in message.id if isinstance(message.id, (tuple, list)) else (message.id,):
            text = re.sub(r"%\(\w+\)[sdrf]|<[^>]+>", " ", msgid or "")
            words.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*[A-Za-z]", text) if len(w) > 1)
    return words


def english_left(page: Page, lang: str) -> list[str]:
    """The English words on the page, in the order they appear, each once."""
    text = QUOTED.sub(" ", page.evaluate(READABLE_TEXT, DATA))
    allowed = ANY_LANGUAGE | SAME_WORDS[lang]
    english = english_words() - allowed
    found = [w for w in WORD.findall(text) if w.lower() in english]
    return list(dict.fromkeys(found))


def step_twice(page: Page) -> None:
    step = page.locator('[data-control="step"]:visible')
    for n in (1, 2):
        step.click()
        expect(page).to_have_url(re.compile(r"ids=\d+" + r"(,|%2C)\d+" * (n - 1) + r"(&|$)"))


def open_every_fold(page: Page) -> None:
    """Open each folded section and wait for its body, which is fetched when it opens."""
    for summary in page.locator("details > summary").all():
        if summary.is_visible():
            summary.click()
    expect(page.locator("details[open] > .fold-link")).to_have_count(0)


@pytest.mark.browser_context_args(reduced_motion="reduce")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_english_is_left_on_the_page_after_two_steps(page: Page, app_url: str, lang: str) -> None:
    page.goto(app_url + state_url([], lang=lang))
    expect(page.locator("html")).to_have_attribute("lang", LANGUAGES[lang])
    step_twice(page)
    expect(page.locator("html")).to_have_attribute("lang", LANGUAGES[lang])
    open_every_fold(page)
    left = english_left(page, lang)
    assert left == [], f"English left on the {lang} page: {', '.join(left[:40])}"


@pytest.mark.browser_context_args(reduced_motion="reduce", locale="de-DE")
def test_the_browsers_language_opens_the_page_and_stays_after_two_steps(page: Page, app_url: str) -> None:
    page.goto(app_url + state_url([]))
    expect(page.locator("html")).to_have_attribute("lang", "de")
    step_twice(page)
    assert "lang=de" in page.url, "the address holds the language: a reload or a shared link keeps it"
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "de")


def german(x: float, digits: int) -> str:
    return format_decimal(x, format="0." + "0" * digits, locale="de").replace("-", "−")


@pytest.mark.browser_context_args(reduced_motion="reduce")
def test_german_worked_example_figures_use_decimal_commas_and_match_the_json_twin(page: Page, app_url: str) -> None:
    page.goto(app_url + state_url([], lang="de"))
    step_twice(page)
    ids = [int(i) for i in re.search(r"ids=([\d,%C]+)", page.url).group(1).replace("%2C", ",").split(",")]
    twin = api_step(app_url, ids[:1])  # the step on screen picked the second id: it read the first
    top = twin["rows"][0]
    worked = page.locator("#worked-softmax")
    worked.locator("summary").click()
    expect(worked.locator(".fold-link")).to_have_count(0)  # the body is fetched when the fold opens
    text = " ".join(worked.inner_text().split())
    probability = format_decimal(round(100 * top["prob"], 1), format="0.0", locale="de") + "\xa0%"
    assert f"{german(top['logit'], 3)} / 1 = {german(top['scaled'], 3)}" in text, text
    assert probability.replace("\xa0", " ") in text.replace("\xa0", " "), text
    decimal_point = re.search(r"\d\.(\d{1,2}|\d{4,})(?!\d)", text)  # '5.000' is five thousand: grouping
    assert decimal_point is None, f"a decimal point in the German worked example: {text}"
    bar = page.locator("#pick-sentence")
    assert re.search(r"\[\d,\d+; \d,\d+\)", bar.inner_text()), bar.inner_text()


@pytest.mark.browser_context_args(reduced_motion="reduce")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_axe_finds_nothing_serious_in_each_language(page: Page, app_url: str, lang: str) -> None:
    page.goto(app_url + state_url([], lang=lang))
    step_twice(page)
    expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
    found = [
        (v["id"], node["target"])
        for v in Axe().run(page).response["violations"]
        for node in v["nodes"]
        if (node.get("impact") or v["impact"]) in ("serious", "critical")
    ]
    assert found == [], f"axe in {lang}: {found}"
