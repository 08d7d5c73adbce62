"""Presenter mode: the page marked for the projector, fewer rows, a link in and out."""

from __future__ import annotations

import pytest

from webapp.web.stages.screen import PRESENTER_ROWS

from .markup import ids_of, logits_rows, parse, query_of
from .seeded import BASE, joined, page


def test_presenter_mode_marks_the_page_and_shows_fewer_rows(client, three):
    doc = page(client, **BASE, ids=joined(three), present="1")
    assert "present" in doc.find("main").classes
    assert len([r for r in logits_rows(doc) if "beyond" not in r.classes]) == PRESENTER_ROWS
    leave = next(a for a in doc.find_all("a") if a.text().strip() == "Leave presenter mode")
    assert "present" not in query_of(leave.attrs["href"]) and ids_of(leave.attrs["href"]) == three

    normal = page(client, **BASE, ids=joined(three))
    assert "present" not in normal.find("main").classes
    enter = next(a for a in normal.find_all("a") if a.text().strip() == "Presenter mode")
    assert query_of(enter.attrs["href"])["present"] == "1" and ids_of(enter.attrs["href"]) == three


@pytest.mark.parametrize("headers", [{}, {"HX-Request": "true"}], ids=["page", "step"])
def test_presenter_mode_sends_none_of_what_the_projector_leaves_out(client, headers):
    """Its CSS hid them; the laptop's own screen (without present=1) still has every one."""
    left_out = ["compare", "chain", "uncertainty", "many", "chart-numbers", "worked-softmax", "worked-sampling"]
    query = "model=austen-bigram&prompt=Mr.+Darcy&ids=5"
    present = parse(client.get(f"/step?{query}&present=1", headers=headers, follow_redirects=True).data)
    laptop = parse(client.get(f"/step?{query}", headers=headers, follow_redirects=True).data)
    assert [name for name in left_out if present.by_id(name) is not None] == []
    assert [name for name in left_out if laptop.by_id(name) is None] == []
    assert present.by_id("range-bar") is not None and present.by_id("logits") is not None
