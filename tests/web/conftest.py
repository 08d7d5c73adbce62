"""Fixtures for the web tests: one app for the session (the models load once), a client per test."""

from __future__ import annotations

import pytest

from webapp.web import create_app

from .seeded import picked_ids


@pytest.fixture(scope="session")
def app(tmp_path_factory):
    """Build the app once: create_app loads the bundled models. Its class rooms live in a store of the
    session's own, not the user's: rooms, and what each address may still do, start afresh each run."""
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


@pytest.fixture
def client(app):
    """Return a Flask test client for the session's app."""
    return app.test_client()


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def rooms(request, app, tmp_path_factory):
    """An app whose rooms live in an SQLite file of the module's own or in the session's redis-server (the
    session's models, loaded once): a room module's tests run on both stores."""
    if request.param == "sqlite":
        store = f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"
    else:
        store = request.getfixturevalue("redis_url")
    return create_app({"TESTING": True, "MODELS": app.extensions["models"], "ROOM_STORE": store})


@pytest.fixture(scope="session")
def model(app):
    """The default model: the one a URL without `model` gets."""
    return app.extensions["models"][app.config["DEFAULT_MODEL"]]


@pytest.fixture(scope="session")
def three(model) -> list[int]:
    """Three ids picked by the seeded r with seeded.BASE's settings (a module may define its own)."""
    return picked_ids(model, 3)
