"""Predict, then reveal: the step's numbers and pick stay hidden until Reveal."""

from __future__ import annotations

from .markup import query_of
from .seeded import BASE, joined, page, url


def test_predict_hides_the_numbers_and_the_pick_until_reveal(client, three):
    doc = page(client, **BASE, ids=joined(three), predict="1")
    assert doc.find("table", "logits-table") is None
    assert doc.by_id("range-bar") is None
    assert doc.by_id("chart").find("svg") is None and doc.by_id("compare") is None
    assert doc.by_id("announce").text().strip() == ""
    reveal = [b for b in doc.find_all("button") if b.text().strip() == "Reveal"]
    assert len(reveal) == 1 and reveal[0].attrs["name"] == "reveal" and reveal[0].attrs["value"] == "1"
    assert doc.by_id("text").find_all("a", "gen")[-1].text() == "?"
    assert doc.by_id("tokens").find_all("li", "chip-generated")[-1].text().strip() == "?"
    assert "Hidden until Reveal" in doc.by_id("chart").text()

    shown = page(client, **BASE, ids=joined(three), predict="1", reveal="1")
    assert shown.find("table", "logits-table") is not None
    assert shown.by_id("range-bar") is not None
    assert "picked" in shown.by_id("announce").text()
    assert shown.by_id("text").find_all("a", "gen")[-1].text() != "?"


def test_a_step_in_predict_mode_hides_the_new_pick_again(client, three):
    location = client.get(url("/step", **BASE, ids=joined(three), predict="1", reveal="1")).headers["Location"]
    q = query_of(location)
    assert q.get("predict") == "1" and "reveal" not in q
