"""Fixtures for the web tests: one app for the session (the models load once), a client per test."""

from __future__ import annotations

import pytest

from webapp.web import create_app


@pytest.fixture(scope="session")
def app():
    """Build the app once: create_app loads the bundled models."""
    return create_app({"TESTING": True})


@pytest.fixture
def client(app):
    """Return a Flask test client for the session's app."""
    return app.test_client()
