"""Predict, then reveal: the step's numbers and pick stay hidden until Reveal."""

from __future__ import annotations

from urllib.parse import urlsplit

from webapp.inference import run_step_table

from .markup import HTMX, hidden_fields, ids_of, parse, query_of
from .seeded import BASE, PROMPT, SETTINGS, joined, page, url


def test_predict_hides_the_numbers_and_the_pick_until_reveal(client, three):
    doc = page(client, **BASE, ids=joined(three), predict="1")
    assert doc.find("table", "logits-table") is None
    assert doc.by_id("range-bar") is None
    assert doc.by_id("chart").find("svg") is None and doc.by_id("compare") is None
    assert doc.by_id("announce").text().strip() == ""
    reveal = [b for b in doc.find_all("button") if b.text().strip() == "Reveal"]  # the panel's, and the step bar's
    assert len(reveal) == 2 and all(b.attrs["name"] == "reveal" and b.attrs["value"] == "1" for b in reveal)
    assert doc.by_id("text").find_all("button", "gen")[-1].text() == "?"
    assert doc.by_id("tokens").find_all("li", "chip-generated")[-1].text().strip() == "?"
    assert "Hidden until Reveal" in doc.by_id("chart").text()

    shown = page(client, **BASE, ids=joined(three), predict="1", reveal="1")
    assert shown.find("table", "logits-table") is not None
    assert shown.by_id("range-bar") is not None
    assert "picked" in shown.by_id("announce").text()
    assert shown.by_id("text").find_all("button", "gen")[-1].text() != "?"


def test_a_step_in_predict_mode_hides_the_new_pick_again(client, three):
    step = url("/step", **BASE, ids=joined(three), predict="1", reveal="1")
    response = client.get(step)
    assert response.status_code == 200, "shown where it was taken: a redirect would name the pick"
    doc = parse(response.data)
    assert doc.find("table", "logits-table") is None
    assert hidden_fields(doc)["ids"].startswith(joined(three) + ",") and "reveal" not in hidden_fields(doc)


def test_a_hidden_pick_stays_out_of_the_address_and_the_share_link(client, model, three):
    """The pushed URL and the link are the Step from the state before the pick: they take it again."""
    pick = run_step_table(model, PROMPT, three, SETTINGS).chosen.id
    response = client.get(url("/step", **BASE, ids=joined(three), predict="1"), headers=HTMX)
    pushed = response.headers["HX-Push-Url"]
    share = parse(client.get(url("/", **BASE, ids=joined([*three, pick]), predict="1")).data)
    link = share.by_id("share-link").attrs["value"]
    for address in (pushed, link):
        assert urlsplit(address).path == "/step"
        assert ids_of(address) == three and query_of(address)["predict"] == "1"
        assert str(pick) not in query_of(address).get("ids", "").split(",")
    again = parse(client.get(link.removeprefix("http://localhost")).data)
    assert hidden_fields(again)["ids"] == joined([*three, pick]), "opening the link takes the same pick"
    assert again.find("table", "logits-table") is None


def test_a_typed_r_goes_with_the_hidden_picks_link(client, model, three):
    pick = run_step_table(model, PROMPT, three, SETTINGS, r=0.25).chosen.id
    doc = page(client, **BASE, ids=joined([*three, pick]), src="s,s,s,0.25", predict="1")
    link = doc.by_id("share-link").attrs["value"]
    assert query_of(link)["r"] == "0.25" and ids_of(link) == three


def test_after_reveal_the_address_names_the_pick(client, three):
    response = client.get(url("/", **BASE, ids=joined(three), predict="1", reveal="1"), headers=HTMX)
    address = response.headers.get("HX-Push-Url") or response.headers["HX-Replace-Url"]
    assert urlsplit(address).path == "/" and ids_of(address) == three
