"""Guided mode: ?guide=1 opens every worked example and forces the first-run hints; the help offers them again."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .markup import HTMX, WORKED, Element, parse, query_of, words
from .models import bigram


def worked_open(doc: Element) -> dict[str, bool]:
    return {e.attrs["id"]: "open" in e.attrs for e in doc.find_all("details", "worked")}


def test_worked_examples_are_folded_and_the_guide_not_forced_by_default(client):
    doc = parse(client.get("/?model=austen-bigram&prompt=Mr.+Darcy").data)
    assert worked_open(doc) == {f"worked-{name}": False for name in WORKED}
    guide = doc.by_id("guide")
    assert guide.attrs["data-force"] == "0" and "hidden" in guide.attrs  # guide.js decides to show it


@pytest.mark.parametrize("path", ["/", "/step", "/back"])
def test_guide_1_opens_every_worked_example_and_forces_the_guide(client, path):
    query = "?" + urlencode(bigram(prompt="Mr. Darcy", ids="5,6", guide="1"))
    page = parse(client.get(path + query, follow_redirects=True).data)
    assert worked_open(page) == {f"worked-{name}": True for name in WORKED}
    guide = page.by_id("guide")
    assert guide.attrs["data-force"] == "1"
    hints = guide.find("ol", "guide-hints").find_all("li")
    assert len(hints) == 9  # the student's guide; the teacher's is test_views.py's
    assert [h.attrs.get("data-done") for h in hints if h.attrs.get("data-done")] == ["prompt", "step", "temperature"]
    assert guide.by_id("guide-next") is not None and guide.by_id("guide-dismiss") is not None
    fragments = parse(client.get(path + query, headers=HTMX).data)  # htmx swaps keep them open
    assert worked_open(fragments) == {f"worked-{name}": True for name in WORKED}


def test_the_help_dialog_offers_the_guided_run_again(client):
    help_dialog = parse(client.get("/").data).by_id("help")
    button = help_dialog.by_id("guide-restart")
    assert button.tag == "button" and words(button) == "Show the guided first run again"


def test_a_shared_link_skips_the_guide_and_guide_1_forces_it(client):
    share = parse(client.get("/").data).by_id("share-link").attrs["value"]
    assert query_of(share)["guide"] == "0"
    shared = parse(client.get(share.removeprefix("http://localhost")).data).by_id("guide")
    assert (shared.attrs["data-skip"], shared.attrs["data-force"]) == ("1", "0")
    plain = parse(client.get("/").data).by_id("guide")
    assert (plain.attrs["data-skip"], plain.attrs["data-force"]) == ("0", "0")
    forced = parse(client.get("/?guide=1").data).by_id("guide")
    assert (forced.attrs["data-skip"], forced.attrs["data-force"]) == ("0", "1")
