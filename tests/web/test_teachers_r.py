"""The teacher's r: typed for the next step, used by Step and by the JSON twin, recorded with its step."""

from __future__ import annotations

import re

from webapp.inference import run_step_table

from .markup import ids_of, query_of
from .seeded import BASE, PROMPT, SETTINGS, joined, page, url


def test_step_with_teachers_r_uses_it_and_records_it(client, model, three):
    response = client.get(url("/step", **BASE, ids=joined(three), r="0.999"))
    location = response.headers["Location"]
    expected = run_step_table(model, PROMPT, three, SETTINGS, r=0.999).chosen.id
    assert ids_of(location) == [*three, expected]
    q = query_of(location)
    assert q["src"] == "s,s,s,0.999"
    assert "r" not in q  # the typed r is for one step only

    doc = page(client, **q)
    sentence = " ".join(doc.by_id("pick-sentence").text().split())
    assert "This r was typed in, not drawn." in sentence and re.search(r"r = 0\.9990* falls in", sentence)
    assert "default_rng" not in sentence
    assert doc.by_id("next-r").attrs["value"] == ""
    assert "gen-typed" in doc.by_id("text").find_all("button", "gen")[-1].classes
    assert "r = 0.999, picked" in doc.by_id("announce").text()


def test_the_json_twin_takes_the_teachers_r_too(client, model, three):
    twin = client.get(url("/api/step", **BASE, ids=joined(three), r="0.999")).get_json()
    expected = run_step_table(model, PROMPT, three, SETTINGS, r=0.999)
    assert (twin["r"], twin["r_source"], twin["chosen"]["id"]) == (0.999, "given", expected.chosen.id)


def test_teachers_r_stays_with_its_step(client, model, three):
    """The typed r belongs to step 3: stepping on draws seeded r's, going back to it shows the typed one."""
    ids = [*three, run_step_table(model, PROMPT, three, SETTINGS, r=0.999).chosen.id]
    location = client.get(url("/step", **BASE, ids=joined(ids), src="s,s,s,0.999")).headers["Location"]
    assert query_of(location)["src"] == "s,s,s,0.999,s"
    doc = page(client, **query_of(location), at="3")
    assert re.search(r"r = 0\.9990* falls in", " ".join(doc.by_id("pick-sentence").text().split()))


def test_the_teachers_r_field_keeps_a_value_not_yet_used(client, three):
    doc = page(client, **BASE, ids=joined(three), r="0.25")
    assert doc.by_id("next-r").attrs["value"] == "0.25"
