"""The bundled lessons are ready to teach: every screen opens in every language, its text what the model writes."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from webapp.fetch import SOURCES
from webapp.lessons.bundled import BUNDLED, FOLDER
from webapp.lessons.lesson import Lesson, dumps, parse
from webapp.web import create_app
from webapp.web.i18n.languages import LANGUAGES
from webapp.web.serving.fetched import fetch_command
from webapp.web.url.parse import parse_state

TRANSLATED = LANGUAGES  # each bundled lesson has a file of its own in every language of the page
PLAYER_KEYS = ("lang", "view", "guide")  # the player's and the link's own, never a screen's
ARTICLE_KEYS = ("vocab", "scores", "scores_as")  # written out in full, defaults or not, so the file shows them
MOVED_ON_PURPOSE = {("article", "The same r, another order")}  # its text was picked in the other range order


def read(name: str, lang: str) -> tuple[str, Lesson]:
    text = (FOLDER / lang / f"{name}.json").read_text(encoding="utf-8")
    return text, parse(text)


def screens(lang: str = "en"):
    return [(name, i, screen) for name in BUNDLED for i, screen in enumerate(read(name, lang)[1].screens, start=1)]


def as_params(found):
    return [pytest.param(name, i, screen, id=f"{name}-{i}") for name, i, screen in found]


def fetched_only(state: dict) -> bool:
    """Whether the screen needs a model that is not bundled but fetched (fetch-model)."""
    return state.get("model") in SOURCES


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("name", BUNDLED)
def test_a_bundled_lesson_is_a_lesson_file_of_8_to_15_screens(name, lang):
    text, lesson = read(name, lang)
    assert text == dumps(lesson), "not written as lesson.dumps writes it, one key per line"
    assert lesson.lang == lang and lesson.newer is None and not lesson.ignored
    assert 8 <= len(lesson.screens) <= 15
    assert 2 <= sum(screen.vote for screen in lesson.screens) <= 4
    assert lesson.title and lesson.about
    assert all(screen.title and screen.question and screen.notes for screen in lesson.screens)


@pytest.mark.parametrize("lang", [lang for lang in TRANSLATED if lang != "en"])
@pytest.mark.parametrize("name", BUNDLED)
def test_a_translation_has_the_english_screens_with_its_own_texts(name, lang):
    english, translated = read(name, "en")[1], read(name, lang)[1]
    assert [(s.state, s.vote) for s in translated.screens] == [(s.state, s.vote) for s in english.screens]
    assert translated.title != english.title and translated.about != english.about
    for mine, theirs in zip(translated.screens, english.screens, strict=True):
        assert mine.question != theirs.question and mine.notes != theirs.notes


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_screen_that_needs_a_fetched_model_says_how_to_fetch_it(lang):
    needing = [(name, i, s) for name, i, s in screens(lang) if fetched_only(dict(s.state))]
    assert needing, "the tokens lesson compares with SmolLM2"
    for name, i, screen in needing:
        command = fetch_command(dict(screen.state)["model"])
        assert command in screen.question and command in screen.notes, f"{name} screen {i}"


@pytest.mark.parametrize(("name", "i", "screen"), as_params(screens()))
def test_every_screen_opens(client, app, name, i, screen):
    state = dict(screen.state)
    assert not set(state) & set(PLAYER_KEYS)
    response = client.get("/?" + urlencode(state))
    if fetched_only(state) and state["model"] not in app.extensions["models"]:
        assert response.status_code == 400 and fetch_command(state["model"]) in response.get_data(as_text=True)
        return
    assert response.status_code == 200
    written = parse_state(state, app.extensions["models"], app.config["DEFAULT_MODEL"]).query()
    for key, value in state.items():  # each key one the stepper reads, its value as the stepper writes it back
        assert key in ARTICLE_KEYS or written.get(key) == value, f"{key}={value!r} reads back as {written.get(key)!r}"


@pytest.mark.parametrize(("name", "i", "screen"), as_params(s for s in screens() if "ids" in dict(s[2].state)))
def test_a_screens_text_is_what_the_model_writes(client, app, name, i, screen):
    """Each generated id is the pick of its step: by the seeded r, or by the r the screen says was typed."""
    state = dict(screen.state)
    if fetched_only(state) and state["model"] not in app.extensions["models"]:
        pytest.skip(f"{state['model']} is not fetched")
    ids = state["ids"].split(",")
    sources = state.get("src", ",".join("s" * len(ids))).split(",")
    picks = []
    for n, source in enumerate(sources):
        before = {**state, "ids": ",".join(ids[:n]), "src": ",".join(sources[:n])}
        typed = {} if source in ("s", "f") else {"r": source}
        answer = client.get("/api/step?" + urlencode({**before, **typed})).get_json()
        picks.append(ids[n] if source == "f" else str(answer["chosen"]["id"]))
    if (name, screen.title) in MOVED_ON_PURPOSE:
        assert picks != ids, "the screen is there to show the pick moving"
    else:
        assert picks == ids


@pytest.fixture(scope="module")
def without_fetched(app, tmp_path_factory):
    """The app as a server that has not fetched any model: the bundled ones only."""
    bundled = {name: model for name, model in app.extensions["models"].items() if name not in SOURCES}
    return create_app({"TESTING": True, "MODELS": bundled, "USER_MODELS_DIR": tmp_path_factory.mktemp("none")})


def test_a_server_without_the_fetched_model_says_how_to_get_it_and_plays_the_rest(without_fetched):
    client = without_fetched.test_client()
    for name, i, screen in screens():
        state = dict(screen.state)
        response = client.get("/?" + urlencode(state))
        if fetched_only(state):
            text = " ".join(response.get_data(as_text=True).split())
            assert response.status_code == 400, f"{name} screen {i}"
            assert f"does not have the model {state['model']} yet" in text and fetch_command(state["model"]) in text
        else:
            assert response.status_code == 200, f"{name} screen {i}"
