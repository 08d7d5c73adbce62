"""Every visible string of the templates is marked for translation.

The app renders every screen (every_screen.py) with a stand-in translation that wraps each message
in «…»; whatever visible text is left outside «…» was not marked. Left alone, by design: tokens,
the prompt and other text people typed, model names, numbers, notation (`z / T`, `r = 0.734`), and
the sentences the Python side writes (it translates them itself: webapp/web/translations.py).
"""

from __future__ import annotations

import gettext
import re

import pytest

from webapp.web import create_app

from .every_screen import every_screen
from .markup import Element, parse

OPEN, CLOSE = "«", "»"
ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "label")
NOT_SHOWN = {"script", "style", "head"}
# Elements whose text is not the templates' words: tokens, typed text, model names, figures.
NOT_MESSAGES = {
    "tok", "chip-text", "chip-source", "chip-id", "prompt-text", "gen", "bar-label", "matrix-label",
    "ballot-token", "nick", "room-code", "address", "stage-no",
    "model-description",  # the model's own description, from its files
    "rest-parts", "text-marks", "stage-setting",  # hmm
}
# Text outside «…» that is not English: numbers, ranges, notation and names.
NOTATION = re.compile(
    r"""^(
        [\W\d_]*                                  # figures, ranges, arrows, punctuation
      | (?:[\W\d_]|\b[A-Za-zθαΣHTWjkpqrsze]\b)*   # one-letter variables among them: z / T, r = 0.7
    )$""",
    re.VERBOSE,
)
NAMES = {"Token by token"}


class Wrapped(gettext.NullTranslations):
    """A translation that shows what was translated: every message comes back as «message»."""

    def gettext(self, message):
        return f"{OPEN}{message}{CLOSE}"

    def ngettext(self, singular, plural, n):
        return f"{OPEN}{singular if n == 1 else plural}{CLOSE}"

    def pgettext(self, context, message):
        return self.gettext(message)

    def npgettext(self, context, singular, plural, n):
        return self.ngettext(singular, plural, n)


@pytest.fixture(scope="module")
def screens(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("rooms")
    app = create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})
    app.jinja_env.install_gettext_translations(Wrapped(), newstyle=True)
    return every_screen(app)


def outside(doc: Element) -> list[str]:
    """The visible text left outside «…», piece by piece (a piece ends where an element starts or ends)."""
    pieces: list[str] = []
    depth = 0
    current: list[str] = []

    def flush():
        text = " ".join("".join(current).split())
        if text:
            pieces.append(text)
        current.clear()

    def walk(element: Element):
        nonlocal depth
        for child in element.children:
            if isinstance(child, str):
                for ch in child:
                    if ch == OPEN:
                        depth += 1
                    elif ch == CLOSE:
                        depth -= 1
                    elif depth == 0:
                        current.append(ch)
                continue
            flush()
            if child.tag not in NOT_SHOWN and not (child.classes & NOT_MESSAGES):
                walk(child)
            flush()

    walk(doc)
    flush()
    return pieces


def unmarked_attributes(doc: Element) -> list[str]:
    found = []
    for element in doc.iter():
        for name in ATTRIBUTES:
            value = element.attrs.get(name)
            if value and not (value.startswith(OPEN) and value.endswith(CLOSE)) and not allowed(value):
                found.append(f'{element.tag} {name}="{value}"')
    return found


def allowed(text: str) -> bool:
    return bool(NOTATION.match(text)) or text in NAMES


def unmarked(html: str) -> list[str]:
    doc = parse(html)
    title = doc.find("title")
    texts = [title.text()] if title else []
    return [t for t in outside(doc) + texts if not allowed(t)] + unmarked_attributes(doc)


def test_every_screen_is_covered(screens) -> None:
    assert len(screens) >= 40
    assert all(OPEN in html for html in screens.values())


def test_no_visible_english_is_left_unmarked(screens) -> None:
    left = {name: unmarked(html) for name, html in screens.items()}
    left = {name: texts for name, texts in left.items() if texts}
    assert not left, "\n".join(f"{name}: {texts}" for name, texts in left.items())
