"""An htmx answer swaps only the panels that can differ from the screen on display (webapp/web/stages/panels.py)."""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import urlencode

import pytest

from webapp.web.stages.panels import PANELS, panels_to_send, shown_key
from webapp.web.url.parse import parse_state

from .markup import HTMX, hidden_fields, parse
from .models import bigram

PARTS = {"temperature_value", "model_description", "model_measure", "prompt_box", "next_r"}
IDS = {
    "temperature_value": "temperature-value",
    "model_description": "model-description",
    "model_measure": "model-measure",
    "prompt_box": "prompt-box",
    "next_r": "next-r-field",
}


@pytest.fixture
def screen_state(app):
    return parse_state(bigram(prompt="Mr. Darcy", ids="5"), app.extensions["models"], "austen-bigram")


def test_a_step_at_the_same_settings_leaves_out_what_shows_only_the_settings(screen_state):
    after = screen_state.branched(1, 9, "s")
    assert set(panels_to_send(shown_key(screen_state), screen_state, after)) == set(PANELS) - PARTS


def test_without_what_the_screen_shows_every_panel_is_sent(screen_state):
    for shown in (None, "", "nonsense", "a.b.c", "a.b.c.d.e"):
        assert panels_to_send(shown, screen_state, screen_state) == PANELS


def test_a_new_temperature_sends_its_value(screen_state):
    hotter = replace(screen_state, settings=replace(screen_state.settings, temperature=1.5))
    assert "temperature_value" in panels_to_send(shown_key(screen_state), hotter, hotter)


def test_a_new_model_sends_its_description(app, screen_state):
    other = replace(screen_state, model="article")
    sent = panels_to_send(shown_key(screen_state), other, other)
    assert "model_description" in sent and "model_measure" in sent and "temperature_value" not in sent
    assert "prompt_box" in sent  # the article's model has no prompt box
    bigger = replace(screen_state, model="austen-transformer")  # another that reads the prompt: the box stays
    assert "prompt_box" not in panels_to_send(shown_key(screen_state), bigger, bigger)


def test_a_typed_r_that_step_uses_up_is_cleared_and_an_unused_one_left(screen_state):
    typed = replace(screen_state, next_r=0.25)
    stepped = typed.branched(1, 9, 0.25)  # Step takes the typed r: the field must be emptied
    assert "next_r" in panels_to_send(shown_key(screen_state), typed, stepped)
    assert "next_r" not in panels_to_send(shown_key(screen_state), typed, typed)  # a setting: left as typed


def page_and_shown(client, **params):
    doc = parse(client.get("/?" + urlencode(bigram(prompt="Mr. Darcy", **params))).data)
    return hidden_fields(doc)["shown"]


def swapped(client, path: str, **params) -> set[str]:
    doc = parse(client.get(f"{path}?{urlencode(bigram(prompt='Mr. Darcy', **params))}", headers=HTMX).data)
    return {element.attrs["id"] for element in doc.top_level()}


def test_a_step_from_the_page_swaps_everything_but_the_unchanged_settings(client):
    shown = page_and_shown(client, ids="5")
    with_shown = swapped(client, "/step", ids="5", shown=shown)
    without = swapped(client, "/step", ids="5")
    assert without - with_shown == set(IDS.values())
    assert {"tokens", "logits", "chart", "ranges", "text", "share", "state-fields"} <= with_shown


def test_moving_the_temperature_swaps_its_value_but_not_the_model(client):
    shown = page_and_shown(client, ids="5")
    sent = swapped(client, "/", ids="5", temperature="0.5", shown=shown)
    assert "temperature-value" in sent and "model-description" not in sent and "next-r-field" not in sent


def test_answers_with_and_without_shown_are_kept_apart_by_the_cache(client):
    shown = page_and_shown(client, ids="7")
    assert "model-description" not in swapped(client, "/step", ids="7", shown=shown)
    assert "model-description" in swapped(client, "/step", ids="7")  # not the answer kept for the other


@pytest.mark.parametrize("query", ["prompt=It+is+a+truth&ids=5,9", "prompt=It+is+a+truth&ids=5,9&inside=1"])
def test_the_panels_come_in_the_loop_s_order(client, query):
    """A phone's one column and a screen reader read the page in its order: the stage numbers never go back."""
    numbers = [int(n) for n in re.findall(r'<h2 id="[\w-]+"><span class="stage">(\d)</span>',
                                          client.get("/?" + query).get_data(as_text=True))]
    assert numbers == sorted(numbers) and set(numbers) == {1, 2, 3, 4, 5}
