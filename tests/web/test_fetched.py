"""A model fetched while the server runs: the page says how to get it, then picks it up without a restart."""

from __future__ import annotations

import json

import pytest

from webapp.fetch import SOURCES
from webapp.web import create_app
from webapp.web.serving.fetched import fetch_command

from .markup import parse
from .models import BIGRAM_MODEL

NAME = "tiny-test-model"


@pytest.fixture
def fresh(app, tmp_path, monkeypatch):
    """An app with the bigram only, whose user model folder is empty; NAME is a model fetch-model knows."""
    monkeypatch.setitem(SOURCES, NAME, SOURCES["smollm2-135m"])
    bigram = app.extensions["models"][BIGRAM_MODEL]
    models = {BIGRAM_MODEL: bigram, **{n: m for n, m in app.extensions["models"].items() if n in SOURCES}}
    fresh = create_app({"TESTING": True, "MODELS": models, "USER_MODELS_DIR": tmp_path})
    return fresh, tmp_path


def fetch_tiny(folder):
    """Do what fetch-model does, for a tiny model: its file, then its config.json."""
    from unit.tiny_gguf import write_tiny_gguf

    pytest.importorskip("gguf")
    (folder / NAME).mkdir()
    write_tiny_gguf(folder / NAME / "tiny.gguf")
    config = {"type": "gguf", "name": NAME, "file": "tiny.gguf", "description": "A tiny test model."}
    (folder / NAME / "config.json").write_text(json.dumps(config), encoding="utf-8")


def test_the_hint_is_the_console_script_that_works_from_any_folder(fresh):
    app, _ = fresh
    hint = parse(app.test_client().get(f"/?model={BIGRAM_MODEL}").data).find("p", "more-models")
    assert fetch_command(NAME) == f"token-by-token fetch-model {NAME}"
    assert fetch_command(NAME) in [code.text() for code in hint.find_all("code")]
    assert "reload this page" in hint.text()


def test_a_link_to_a_model_not_fetched_says_how_to_get_it(fresh):
    app, _ = fresh
    response = app.test_client().get(f"/?model={NAME}")
    assert response.status_code == 400
    text = " ".join(parse(response.data).by_id("error").text().split())
    assert text.startswith("Could not show this screen:")
    assert f"does not have the model {NAME} yet" in text and f"run token-by-token fetch-model {NAME}" in text


def menu(response) -> list[str]:
    return [option.attrs["value"] for option in parse(response.data).by_id("model").find_all("option")]


def test_a_fetched_model_is_picked_up_without_a_restart(fresh):
    app, folder = fresh
    client = app.test_client()
    assert client.get(f"/?model={NAME}").status_code == 400
    before = client.get(f"/?model={BIGRAM_MODEL}")  # a page the response cache keeps
    assert NAME not in menu(before)
    fetch_tiny(folder)
    assert NAME in menu(client.get(f"/?model={BIGRAM_MODEL}")), "the reloaded page is not the one kept before"
    response = client.get(f"/?model={NAME}&prompt=the")
    assert response.status_code == 200
    assert NAME in menu(response)
    assert parse(response.data).find("p", "more-models") is None or fetch_command(NAME) not in response.text
