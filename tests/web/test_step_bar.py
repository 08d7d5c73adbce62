"""The step bar of a narrow screen: Step, the pick in a few words, and its range enlarged; nothing of a hidden pick."""

from __future__ import annotations

import re

from webapp.inference import run_step_table

from .markup import HTMX, parse
from .seeded import BASE, PROMPT, SETTINGS, joined, page, url


def step_bar_html(data: bytes) -> str:
    """The step bar's section, as the bytes sent hold it."""
    text = data.decode()
    start = text.index('<section id="step-bar"')
    return text[start : text.index("</section>", start)]


def test_before_the_first_step_the_bar_says_what_step_does(client):
    bar = page(client, **BASE).by_id("step-bar")
    step = [b for b in bar.find_all("button") if b.attrs.get("data-control") == "step"]
    assert len(step) == 1
    assert step[0].attrs["type"] == "submit" and step[0].attrs["form"] == "controls", "it works without JavaScript"
    assert step[0].attrs["formaction"] == step[0].attrs["hx-get"] == "/step"
    assert "Press Step to pick the next token." in bar.text()
    assert bar.find("svg") is None


def test_after_a_step_the_bar_shows_r_the_pick_and_its_range_enlarged(client, model, three):
    result = run_step_table(model, PROMPT, three[:2], SETTINGS)
    chosen = result.chosen
    assert chosen.id == three[2]
    bar = page(client, **BASE, ids=joined(three)).by_id("step-bar")
    assert bar.attrs["data-step"] == "2"
    assert f"r = {result.r:.3f}"[:7] in bar.find("p", "step-bar-pick").text()
    assert f"'{chosen.token.strip()}'" in bar.find("p", "step-bar-pick").text()
    picked = bar.find("rect", "picked")
    width = float(picked.attrs["width"].rstrip("%"))
    # The picked range is 40 % of the view, or the view is the whole bar and the range wider than that.
    assert width >= 39.9
    ends = [t.text() for t in bar.find_all("text") if t.classes & {"lo", "hi"}]
    assert len(ends) == 2 and float(ends[0]) <= chosen.lo + 1e-3 and float(ends[1]) >= chosen.hi - 1e-3
    marker = float(bar.find("svg", "marker").attrs["x"].rstrip("%"))
    x = float(picked.attrs["x"].rstrip("%"))
    assert x <= marker <= x + width, "r's marker lies in the picked range"


def test_an_htmx_step_swaps_the_bar_out_of_band(client, three):
    response = client.get(url("/step", **BASE, ids=joined(three[:1])), headers=HTMX)
    bar = parse(response.data).by_id("step-bar")
    assert bar.attrs["hx-swap-oob"] == "true" and bar.attrs["data-step"] == "1"


def test_a_hidden_pick_stays_out_of_the_step_bar(client, model, three):
    """Predict, then reveal: the bar says the pick is hidden and offers Reveal; no byte of it names the pick or r."""
    result = run_step_table(model, PROMPT, three, SETTINGS)
    response = client.get(url("/step", **BASE, ids=joined(three), predict="1"), headers=HTMX)
    html = step_bar_html(response.data)
    assert "The pick is hidden so that the class can guess first." in html
    assert 'name="reveal"' in html
    assert "step-bar-pick" not in html and "<svg" not in html and "data-step" not in html
    assert f"'{result.chosen.token.strip()}'" not in html and "r = " not in html
    assert not re.search(r"\d\.\d{3}", html), "no figure of the pick: r, or its range's ends"
    shown = client.get(url("/", **BASE, ids=joined([*three, result.chosen.id]), predict="1", reveal="1"))
    assert f"'{result.chosen.token.strip()}'" in step_bar_html(shown.data)
