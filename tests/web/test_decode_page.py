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


def test_the_settings_form_keeps_the_state_and_searches_again(client):
    html = page(client, ids="2,5", present="1")
    form = re.search(r'<form class="decode-settings"[^>]*>(.*?)</form>', html, re.S).group(1)
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form))
    assert hidden == {"prompt": "It is a truth", "model": "austen-bigram", "ids": "2,5", "present": "1"}
    assert re.search(r'<option value="3" selected>', form) and 'value="1"' in form
    again = client.get(f"/decode?{urlencode({**hidden, 'width': '2', 'max_new_tokens': '2', 'length_penalty': '0.5'})}")
    assert again.status_code == 200 and "Beam 2" in again.get_data(as_text=True)
    assert "Beam 3" not in again.get_data(as_text=True)


def test_the_example_every_course_wants_holds_and_its_arithmetic_is_the_models(client):
    from webapp.web.stages.decoding_view import EXAMPLE

    query = {k: str(v) for k, v in EXAMPLE.items()}
    data = client.get(f"/api/decode?{urlencode(query)}").json
    greedy, best = data["greedy"], data["beams"][0]
    assert best["ids"][0] != greedy["ids"][0] and best["total"] > greedy["total"]  # greedy's first token loses
    html = unescape(page(client))  # the guide is on every page, computed on the example's model
    section = re.search(r'decode-example"(.*?)</section>', html, re.S).group(1)
    for beam in (greedy, best):
        written = " + ".join(fixed(p, 3) if n == 0 else f"({fixed(p, 3)})" for n, p in enumerate(beam["log_probs"]))
        assert f"{written} = {fixed(beam['total'], 3)}." in section
    assert f"= {fixed(best['total'] - greedy['total'], 3)}" in section
    assert "See this example in the tree" in section
    own = client.get(f"/decode?{urlencode(query)}").get_data(as_text=True)
    assert "See this example in the tree" not in own


def test_the_projector_shows_the_last_three_steps_from_the_beams_they_started_from(client):
    data = client.get(f"/api/decode?{urlencode({**QUERY, 'max_new_tokens': '5'})}").json
    html = page(client, present="1", max_new_tokens="5", level="5")
    columns = sorted({int(x) for x in re.findall(r'<rect x="(\d+)"', html)})
    assert len(columns) == 4  # the beams step 3 started from, then steps 3, 4 and 5
    starts = re.findall(r'<text x="6"[^>]*>([^<]*)</text>', html)
    assert len(starts) == len(data["levels"][2]["beams"]) and all(s.startswith("… ") for s in starts)
    assert "the prompt" in page(client, present="1", max_new_tokens="5", level="3")
    assert len({int(x) for x in re.findall(r'<rect x="(\d+)"', page(client, max_new_tokens="5"))}) == 6  # the laptop


def test_without_max_new_tokens_the_page_takes_as_many_as_the_work_budget_allows_and_says_so(app, tmp_path):
    from webapp.web import create_app
    from webapp.web.stages.decoding_view import PAGE_NEW, example_work, work

    models = app.extensions["models"]
    model = models["austen-transformer"]
    query = {"prompt": "It is a truth", "model": "austen-transformer", "width": "8"}
    with app.test_request_context(f"/decode?{urlencode(query)}"):
        from webapp.web.serving.policy import from_query

        state = from_query()
        costs = [work(model, state, 8, n).seconds + example_work(models).seconds for n in range(1, PAGE_NEW + 1)]
    budget = (costs[2] + costs[3]) / 2  # three new tokens fit, four do not
    tight = create_app({"TESTING": True, "MODELS": models, "WORK_BUDGET_SECONDS": budget,
                        "ROOM_STORE": f"sqlite:///{tmp_path / 'rooms.sqlite3'}"}).test_client()
    html = tight.get(f"/decode?{urlencode(query)}").get_data(as_text=True)
    assert '<option value="3" selected>' in html.split('name="max_new_tokens"')[1]
    assert "3 new tokens: more would take this model longer than the server gives one page." in html
    asked = tight.get(f"/decode?{urlencode({**query, 'max_new_tokens': '6'})}")
    assert asked.status_code == 422  # asked for, not shortened: refused as any request beyond the budget
    assert "more would take" not in page(client=app.test_client(), **{"width": "8"})


def test_a_search_beyond_the_budget_says_to_ask_for_fewer_tokens_or_a_narrower_beam(app, tmp_path):
    from webapp.web import create_app

    tight = create_app({"TESTING": True, "MODELS": app.extensions["models"], "WORK_BUDGET_SECONDS": 0.001,
                        "ROOM_STORE": f"sqlite:///{tmp_path / 'rooms.sqlite3'}"}).test_client()
    for path in ("/decode", "/api/decode"):
        answer = tight.get(f"{path}?{urlencode({**QUERY, 'model': 'austen-transformer', 'max_new_tokens': '20'})}")
        assert answer.status_code == 422
        assert "Ask for fewer new tokens or a narrower beam" in unescape(answer.get_data(as_text=True))
    step = tight.get("/?prompt=It+is&model=austen-transformer")
    assert step.status_code == 422 and "Shorten the prompt" in unescape(step.get_data(as_text=True))


def test_a_long_token_is_cut_in_its_node_so_that_it_never_runs_into_the_total(app):
    from webapp.inference.class_bigram import ClassBigram
    from webapp.inference.decoding import beam_search
    from webapp.web.stages.decoding_view import LABEL_CHARS, tree

    model = ClassBigram.build(["we saw antidisestablishmentarianism .", "we saw it ."])
    search = beam_search(model, [model.start_id], 2, 3)
    with app.test_request_context("/decode"):
        labels = [node.label for node in tree(model, search, 3).nodes]
    assert "antidisesta…" in labels and "it" in labels
    assert max(len(label) for label in labels) <= LABEL_CHARS
