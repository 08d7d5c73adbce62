"""The templates' url_for: a path without values is built once per request, and stays that request's."""

from __future__ import annotations

import re

from flask import url_for

from webapp.web.url.paths import path_for, template_url_for


def start_room_action(client, address: str) -> str:
    html = client.get(address).get_data(as_text=True)
    return re.search(r'<form method="post" action="([^"]*)" class="start-room"', html).group(1)


def test_a_path_is_what_url_for_builds(app):
    with app.test_request_context("/?lang=de"):
        app.preprocess_request()
        for endpoint in ("stepper.show", "stepper.step", "room.start", "stepper.vocabulary"):
            assert path_for(endpoint) == template_url_for(endpoint) == url_for(endpoint)
        assert template_url_for("static", filename="css/app.css") == url_for("static", filename="css/app.css")


def test_a_remembered_path_is_not_carried_into_the_next_request(client):
    """A room's links carry the page's chosen language (translations.KEEPS_LANG): each request its own."""
    assert start_room_action(client, "/?lang=de") == "/room?lang=de"
    assert start_room_action(client, "/") == "/room"
    assert start_room_action(client, "/?lang=fr") == "/room?lang=fr"


def test_a_path_follows_the_apps_root(app):
    client = app.test_client()
    html = client.get("/", base_url="http://localhost/stepper/").get_data(as_text=True)
    assert 'action="/stepper/room"' in html
    assert 'action="/room"' not in html
