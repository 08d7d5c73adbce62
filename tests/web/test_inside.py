"""The panel "Inside the forward pass": closed by default, opened by a link (htmx or not), its figures the twin's."""

from __future__ import annotations

import json
import re

import pytest

from webapp.web.stages.inside_numbers import N_POSITIONS

from .markup import HTMX, hidden_fields, parse
from .seeded import BASE, url


@pytest.fixture
def ids(three) -> str:
    return ",".join(map(str, three))


def panel(html: bytes):
    return next(e for e in parse(html.decode()).iter() if e.attrs.get("id") == "inside")


def test_the_panel_is_closed_by_default_and_costs_nothing(client, ids):
    doc = client.get(url("/", **BASE, ids=ids)).data
    p = panel(doc)
    assert "is-open" not in p.classes
    link = next(a for a in p.find_all("a") if "inside-open" in a.classes)
    assert "inside=1" in link.attrs["href"] and link.attrs["hx-get"] == link.attrs["href"]
    assert not p.find_all("table")


def test_the_link_opens_the_panel_without_javascript(client, ids):
    p = panel(client.get(url("/", **BASE, ids=ids, inside="1")).data)
    assert "is-open" in p.classes
    assert [e.text() for e in p.find_all("h3")][:2] == ["Embeddings", "Attention, from the position being predicted"]


def test_htmx_gets_every_panel_out_of_band_and_the_forms_fields_keep_the_panel(client, ids):
    r = client.get(url("/", **BASE, ids=ids, inside="1", layer="2"), headers=HTMX)
    p = panel(r.data)
    assert "is-open" in p.classes and p.attrs.get("hx-swap-oob") == "true"
    assert "inside=1" in r.headers["HX-Push-Url"] and "layer=2" in r.headers["HX-Push-Url"]
    fields = hidden_fields(parse(r.data.decode()))
    assert (fields["inside"], fields["layer"]) == ("1", "2")  # so that Step, Back and the rest keep it open


def test_a_step_keeps_the_panel_open_and_updates_it(client, ids):
    r = client.get(url("/step", **BASE, ids=ids, inside="1", layer="2", head="1"), headers=HTMX)
    p = panel(r.data)
    assert "is-open" in p.classes and p.attrs.get("hx-swap-oob") == "true"
    assert "Layer 2, head 1" in p.text()
    fields = hidden_fields(parse(r.data.decode()))
    assert (fields["inside"], fields["layer"], fields["head"]) == ("1", "2", "1")


def test_the_lens_shows_the_twins_rows_and_ends_at_the_logits(client, ids):
    twin = client.get(url("/api/inside", **BASE, ids=ids[: ids.rindex(",")])).json
    step = client.get(url("/api/step", **BASE, ids=ids[: ids.rindex(",")])).json
    p = panel(client.get(url("/", **BASE, ids=ids, inside="1")).data)
    rows = p.find_all("table", "lens")[0].find_all("tr")[1:]
    assert len(rows) == twin["layers"] + 1 == 5
    for tr, lens in zip(rows, twin["lens"], strict=True):
        shown = [f"{100 * prob:.1f} %" if prob >= 0.0005 else "<0.1 %" for prob in lens["probs"]]
        assert re.findall(r"\d+\.\d %|<0\.1 %", tr.text())[: len(shown)] == shown
        assert f"#{lens['picked_rank']:,}" in tr.text()
    assert twin["lens"][-1]["ids"] == [row["id"] for row in step["rows"][:5]]
    assert twin["picked"] == step["chosen"]["id"]


def test_the_enlarged_heads_weights_are_the_twins(client, ids):
    before = ids[: ids.rindex(",")]
    twin = client.get(url("/api/inside", **BASE, ids=before, layer="3", head="2")).json
    p = panel(client.get(url("/", **BASE, ids=ids, inside="1", layer="3", head="2")).data)
    weights = twin["head"]["weights"]
    n = len(weights)
    shown = range(max(0, n - N_POSITIONS), n)
    rects = [e for e in p.find_all("svg", "matrix")[0].iter() if e.tag == "rect"]
    assert len(rects) == len(shown) ** 2
    for q_index, q in enumerate(shown):
        for k_index, k in enumerate(shown):
            rect = rects[q_index * len(shown) + k_index]
            if k > q:
                assert "masked" in rect.classes  # a later position: never read
            else:
                assert float(rect.attrs["fill-opacity"]) == pytest.approx(weights[q][k], abs=5e-4)
    assert twin["attention"][2][2] == weights[-1]  # the overview's row is the matrix's last row


def test_the_bigram_shows_its_count_row_instead_of_layers(client):
    p = panel(client.get(url("/", prompt="Mr. Darcy", model="austen-bigram", inside="1")).data)
    assert "no layers" in p.text()
    twin = client.get(url("/api/inside", prompt="Mr. Darcy", model="austen-bigram")).json
    rows = p.find_all("table")[0].find("tbody").find_all("tr")
    counts = [int(tr.find_all("td")[1].text().replace(",", "")) for tr in rows]
    assert counts == [f["count"] for f in twin["followers"]]


@pytest.mark.parametrize(("param", "value", "message"), [
    ("layer", "9", "layer must be from 1 to 4"), ("layer", "0", "layer must be from 1 to 4"),
    ("head", "4", "head must be from 0 to 3"), ("near", "500", "near must be a position the model read"),
    ("layer", "1" + "0" * 40, "layer must be a whole number"), ("head", "x", "head must be a whole number"),
])
def test_settings_outside_the_model_are_refused_clearly(client, ids, param, value, message):
    for path, headers in (("/", {}), ("/", HTMX), ("/api/inside", {})):
        r = client.get(url(path, **BASE, ids=ids, inside="1", **{param: value}), headers=headers)
        assert r.status_code == 400, path
        assert message in r.data.decode(), path


def test_a_hidden_pick_hides_the_panel_too(client, ids):
    p = panel(client.get(url("/", **BASE, ids=ids, inside="1", predict="1")).data)
    assert "Hidden until Reveal" in p.text() and not p.find_all("table")


def test_neighbours_follow_the_chosen_position(client, ids):
    twin = client.get(url("/api/inside", **BASE, ids=ids, near="2")).json
    p = panel(client.get(url("/", **BASE, ids=ids + ",5", inside="1", near="2")).data)
    listed = [li.text().rsplit(" ", 1) for li in p.find_all("ol", "neighbours")[0].find_all("li")]
    assert [float(sim) for _, sim in listed] == pytest.approx([n["similarity"] for n in twin["near"]["neighbours"]],
                                                               abs=5e-4)
    assert twin["near"]["position"] == 2


def test_the_panels_form_holds_the_state_once_and_its_buttons_change_one_setting(client, ids):
    doc = parse(client.get(url("/", **BASE, ids=ids, inside="1", layer="2", head="1", near="3")).data.decode())
    form = next(e for e in doc.iter() if e.tag == "form" and "inside-grid" in e.classes)
    fields = [(e.attrs["name"], e.attrs["value"]) for e in form.find_all("input")]
    assert dict(fields)["ids"] == ids and [name for name, _ in fields].count("ids") == 1
    assert (dict(fields)["layer"], dict(fields)["head"], dict(fields)["near"]) == ("2", "1", "3")
    heads = [b for b in form.find_all("button") if b.attrs.get("name") == "set_head"]
    assert len(heads) == 4 * 4 and heads[0].attrs["value"] == "1,0"
    submitted = {**dict(fields), "set_head": "4,2"}  # what the browser sends for the button of layer 4, head 2
    r = client.get(url("/", **submitted), headers=HTMX)
    assert "layer=4&head=2&near=3" in r.headers["HX-Push-Url"]
    r = client.get(url("/", **{**dict(fields), "set_near": "0"}), headers=HTMX)
    assert "layer=2&head=1&near=0" in r.headers["HX-Push-Url"]


@pytest.mark.parametrize("bad", ["2", "2,x", "1,2,3", "999999,1", "-1,2"])
def test_a_malformed_head_button_is_refused(client, ids, bad):
    r = client.get(url("/", **BASE, ids=ids, inside="1", set_head=bad))
    assert r.status_code == 400 and "set-head must be a layer and a head" in r.data.decode()


def test_the_panels_size_does_not_grow_with_the_text(client, model):
    sizes = []
    for n in (20, 120):
        ids = ",".join(str(10 + i % 50) for i in range(n))
        html = client.get(url("/", prompt="", ids=ids, inside="1")).data.decode()
        part = html[html.index('<section id="inside"') :]
        sizes.append(len(part[: part.index("</section>")]) - len(ids))  # the form holds the ids once
    assert sizes[1] < 1.25 * sizes[0]


def test_back_from_the_last_position_chosen_in_the_panel_forgets_it(client, three):
    """near at the window's last position is past the window one Back later: Back still works, the panel lists
    the neighbours of its default position."""
    ids = ",".join(map(str, three))
    last = client.get(url("/api/inside", **BASE, ids=ids)).json["near"]["position"]
    back = client.get(url("/back", **BASE, ids=ids, inside="1", near=str(last)), headers=HTMX)
    assert back.status_code == 200
    assert hidden_fields(parse(back.data)).get("near", "") == ""
    kept = client.get(url("/back", **BASE, ids=ids, inside="1", near="1"), headers=HTMX)
    assert kept.status_code == 200 and hidden_fields(parse(kept.data)).get("near", "") == ""


def test_changing_the_model_forgets_the_panels_layer_head_and_position(client):
    """What the model menu sends with a new model: a choice another model's window or layers made (here a position
    past the new window) is not refused, as it is when sent as it was."""
    page = parse(client.get(url("/", **BASE, inside="1", layer="4", head="3", near="2")).data)
    sent = json.loads(page.by_id("model").attrs["hx-vals"])
    stale = {**BASE, "inside": "1", "layer": "4", "head": "3", "near": "40"}  # 40: past the new window
    assert client.get(url("/reset", **stale), headers=HTMX).status_code == 400
    assert client.get(url("/reset", **{**stale, **sent}), headers=HTMX).status_code == 200
