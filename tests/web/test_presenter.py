"""Presenter mode: the page marked for the projector, fewer rows, a link in and out."""

from __future__ import annotations

from webapp.web.screen import PRESENTER_ROWS

from .markup import ids_of, logits_rows, query_of
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
