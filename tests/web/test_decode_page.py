"""/decode: the page's figures are /api/decode's, its tree's kept nodes are the next step's beams, and its levels
step like the stepper."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlencode

import pytest

from webapp.web.i18n.filters import fixed

QUERY = {"prompt": "It is a truth", "model": "austen-bigram", "width": "3", "max_new_tokens": "4"}


def page(client, **extra) -> str:
    answer = client.get(f"/decode?{urlencode({**QUERY, **extra})}")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_the_page_shows_the_json_twins_beams_and_greedy(client):
    data = client.get(f"/api/decode?{urlencode(QUERY)}").json
    html = page(client)
    rows = re.findall(r'<tr[^>]*>\s*<th scope="row">([^<]*)</th>(.*?)</tr>', html, re.S)
    shown = {name: re.findall(r'class="num"[^>]*>([^<]*)<', cells) for name, cells in rows}
    assert shown["Greedy"] == [fixed(data["greedy"]["total"]), fixed(data["greedy"]["score"])]
    for i, beam in enumerate(data["beams"], 1):
        assert shown[f"Beam {i}"] == [fixed(beam["total"]), fixed(beam["score"])]
    worked = unescape(re.search(r'decode-worked">([^<]*)', html).group(1))
    assert f"= {fixed(data['greedy']['total'])}." in worked and f"= {fixed(data['beams'][0]['total'])}." in worked


def test_the_tree_keeps_as_many_nodes_a_step_as_the_width_and_steps_one_level_at_a_time(client):
    data = client.get(f"/api/decode?{urlencode(QUERY)}").json
    html = page(client, level="2")
    kept = re.findall(r'<g class="decode-node kept">', html)
    assert len(kept) == 2 * 3  # two levels shown, three beams kept at each
    assert f"step 2 of {len(data['levels'])}" in html
    assert 'rel="prev"' in html and 'rel="next"' in html
    assert 'rel="prev"' not in page(client, level="0") and 'rel="next"' not in page(client)


def test_the_stepper_links_to_the_page_with_its_state(client):
    html = client.get("/?prompt=It+is&ids=2,5").get_data(as_text=True)
    link = unescape(re.search(r'decode-link"><a href="([^"]*)"', html).group(1))
    assert link.startswith("/decode?") and "ids=2,5" in link
    assert "Sampled (the stepper" in client.get(link).get_data(as_text=True)


@pytest.mark.parametrize("bad", ["width=9", "level=99", "max_new_tokens=0"])
def test_a_bad_setting_is_a_400(client, bad):
    assert client.get(f"/decode?prompt=It+is&{bad}").status_code == 400


def test_the_prompt_is_escaped(client):
    html = page(client, prompt="<b>It</b> is")
    assert "<b>It" not in html
