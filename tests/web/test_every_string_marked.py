"""Every visible string of the screens is marked for translation, in the templates and in the presenters.

The app renders every screen (every_screen.py) with a stand-in English catalog that wraps each message
in «…»; whatever visible text is left outside «…» was not marked. Left alone, by design: tokens,
the prompt and other text people typed, model names, numbers, notation (`z / T`, `r = 0.734`).
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
# Not read as the templates' words: the head (but for its title), typed text (the prompt), commands, keys.
NOT_SHOWN = {"script", "style", "head", "textarea", "code", "kbd"}
# Elements that show tokens, typed text, room codes and addresses, or the Python side's sentences.
TOKENS_AND_TYPED = (
    "tok token chip-text chip-source chip-id prompt-text gen bar-label matrix-label stage-bar kept-ranges w"
)
ROOM = "ballot-token nick roster-name room-code address"
# From the Python side (webapp/web): an error's message, a model's description, the rest row's
# "4,980 cut", the text's marks ("¶ a paragraph break"); the surprise legend's "1–2 bits" is in .gen.
PYTHON_SIDE = "error-message model-description rest-parts text-marks"
# A lesson's own texts (its title, questions, notes), written in its language by its author (webapp/lessons).
LESSON = "lesson-text"
# The language switcher names each language in that language: English, Deutsch, 中文.
SWITCHER = "languages"
NOT_MESSAGES = set(f"{TOKENS_AND_TYPED} {ROOM} {PYTHON_SIDE} {LESSON} {SWITCHER}".split())
# Figures, ranges, arrows, punctuation and notation: one-letter variables and the formulas' functions.
NUMBER = re.compile(r"\d[\d,.]*(?:e[+−-]?\d+)?")
NOTATION = re.compile(r"^(?:[\W\d_⁰¹²³⁴⁵⁶⁷⁸⁹⁻]|\b(?:[A-Za-zθαΣ]|log|norm)\b)*$")
# Names; the sampler chain's stage names, which the Python side writes (webapp/web/stages/chain_view.py);
# the room code's pattern in the join form.
NAMES = {"Hugging Face", "llama.cpp", "Penalties", "Temperature", "Top-k", "Top-p", "Min-p", "ABCD-EFGH"}


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
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rooms")
    app = create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})
    app.extensions["catalogs"]["en"] = Wrapped()  # the templates' messages and the Python side's alike
    return app


@pytest.fixture(scope="module")
def screens(app) -> dict[str, str]:
    return every_screen(app)


@pytest.fixture(scope="module")
def names(app) -> set[str]:
    return NAMES | set(app.extensions["models"])


class Outside:
    """The text outside «…», read piece by piece: a piece ends where an element starts or ends."""

    def __init__(self):
        self.depth = 0
        self.current: list[str] = []
        self.pieces: list[str] = []

    def read(self, text: str) -> None:
        for ch in text:
            if ch == OPEN:
                self.depth += 1
            elif ch == CLOSE:
                self.depth -= 1
            elif self.depth == 0:
                self.current.append(ch)

    def end_piece(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.pieces.append(text)
        self.current.clear()


def outside(element: Element, reader: Outside | None = None) -> list[str]:
    """The visible text of element left outside «…»: ['4,871', "'girl'"]."""
    reader = reader or Outside()
    for child in element.children:
        if isinstance(child, str):
            reader.read(child)
            continue
        reader.end_piece()
        if child.tag not in NOT_SHOWN and not (child.classes & NOT_MESSAGES):
            outside(child, reader)
        reader.end_piece()
    return reader.pieces


def outside_text(text: str) -> list[str]:
    reader = Outside()
    reader.read(text)
    reader.end_piece()
    return reader.pieces


def unmarked(html: str, names: set[str]) -> list[str]:
    """What a page shows in English without a message: text, the title, and attributes people read."""
    doc = parse(html)
    title = doc.find("title")
    found = outside(doc) + (outside(title) if title else [])
    shown = [value for e in doc.iter() for name, value in e.attrs.items() if value and read_by_people(name)]
    found += [piece for value in shown for piece in outside_text(value)]
    return [piece for piece in found if not allowed(piece, names)]


def read_by_people(attribute: str) -> bool:
    """Attributes a person reads, and the words the page's scripts show (data-label-*, see static/js)."""
    return attribute in ATTRIBUTES or attribute.startswith("data-label-")


def allowed(piece: str, names: set[str]) -> bool:
    return bool(NOTATION.match(NUMBER.sub("", piece))) or piece.removeprefix("+ ") in names


def test_the_stand_in_translation_finds_an_unmarked_string(names) -> None:
    page = (
        "<p>«Step» <strong>«Back»</strong> Reset</p><button title='«Play»' data-label-pause='Pause'>▶</button>"
        "<img alt='QR code'>"
    )
    assert unmarked(page, names) == ["Reset", "Pause", "QR code"]


def test_tokens_notation_and_names_are_not_messages(names) -> None:
    page = (
        "<p><span class='tok'>girl</span> z / T = −2.185 [0.442, 0.460) 3.1e−05 log<sub>2</sub> 7 %</p>"
        "<select><option>austen-bigram</option></select><code>token-by-token --host 0.0.0.0</code>"
    )
    assert unmarked(page, names) == []


def test_every_screen_is_rendered_with_messages(screens) -> None:
    assert len(screens) >= 40
    assert all(OPEN in html for html in screens.values())


def test_no_visible_english_is_left_unmarked(screens, names) -> None:
    left = {name: unmarked(html, names) for name, html in screens.items()}
    left = {name: pieces for name, pieces in left.items() if pieces}
    assert not left, "\n".join(f"{name}: {pieces}" for name, pieces in left.items())
