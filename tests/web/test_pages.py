"""Page or fragments by HX-Request, and what Step, Back and Reset do to the state in the URL."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .markup import HTMX, hidden_fields, ids_of, logits_rows, parse, query_of

PANELS = ("tokens", "logits", "chart", "ranges", "text")
PROMPT = "It is a truth universally acknowledged"
STATE = {"prompt": PROMPT, "temperature": "0.8", "top_k": "40", "top_p": "0.9", "min_p": "0.01", "seed": "7"}


def url(path: str, **params) -> str:
    return f"{path}?{urlencode(params)}" if params else path


def chosen_after(client, ids: list[int], **params) -> int:
    """The id /api/step picks after ids, with the given settings."""
    q = {**params, "ids": ",".join(map(str, ids))} if ids else params
    return client.get(url("/api/step", **q)).json["chosen"]["id"]


def walk(client, n: int, **params) -> list[int]:
    """Step n times through the JSON twin and return the ids generated."""
    ids: list[int] = []
    for _ in range(n):
        ids.append(chosen_after(client, ids, **params))
    return ids


def state_url(path: str, ids: list[int], **params) -> str:
    return url(path, **params, ids=",".join(map(str, ids))) if ids else url(path, **params)


def default_model(client) -> str:
    """The model a URL without `model` gets: written out into every canonical URL."""
    return client.application.config["DEFAULT_MODEL"]


@pytest.fixture(scope="module")
def three(app) -> list[int]:
    """Three ids generated with STATE's settings."""
    return walk(app.test_client(), 3, **STATE)


ACTIONS = ["/", "/step", "/back", "/reset"]


@pytest.mark.parametrize("path", ACTIONS)
def test_full_page_without_htmx(client, three, path):
    response = client.get(state_url(path, three, **STATE), follow_redirects=True)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert html.lstrip().lower().startswith("<!doctype html>")
    doc = parse(html)
    assert doc.find("html") is not None and doc.find("body") is not None
    for panel in (*PANELS, "controls", "prompt", "error"):
        assert doc.by_id(panel) is not None, f"#{panel} missing from the page"
    assert "hx-swap-oob" not in html


@pytest.mark.parametrize("path", ACTIONS)
def test_fragments_with_htmx(client, three, path):
    response = client.get(state_url(path, three, **STATE), headers=HTMX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    doc = parse(html)
    assert doc.find("html") is None and doc.find("body") is None and doc.find("head") is None
    assert "<!doctype" not in html.lower()
    top = doc.top_level()
    assert top, "an empty htmx response"
    for element in top:
        # the live region keeps its element (screen readers announce changes to it), so only its inside is swapped
        swap = "innerHTML" if element.attrs.get("id") == "announce" else "true"
        assert element.attrs.get("hx-swap-oob") == swap, f"<{element.tag} id={element.attrs.get('id')}> not oob"
        assert element.attrs.get("id"), "an out-of-band element needs an id to land on"
    ids = {e.attrs["id"] for e in top}
    assert set(PANELS) | {"state-fields", "error", "announce"} <= ids
    assert doc.by_id("error").text().strip() == "", "a good response clears the last error"


@pytest.mark.parametrize("path", ACTIONS)
def test_page_and_fragment_vary_on_hx_request(client, three, path):
    for headers in ({}, HTMX):
        response = client.get(state_url(path, three, **STATE), headers=headers)
        if response.status_code == 200:
            assert "hx-request" in {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}



@pytest.mark.parametrize(
    ("path", "query", "headers"),
    [
        pytest.param("/step", "", {}, id="step-303"),
        pytest.param("/back", "ids=1,2", {}, id="back-303"),
        pytest.param("/reset", "ids=1", {}, id="reset-303"),
        pytest.param("/", "seed=-1", {}, id="show-400-page"),
        pytest.param("/", "seed=-1", HTMX, id="show-400-fragment"),
    ],
)
def test_every_answer_of_a_dual_url_varies_on_hx_request(client, path, query, headers):
    response = client.get(f"{path}?{query}", headers=headers)
    assert "hx-request" in {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}


def test_htmx_response_pushes_the_canonical_url(client, three):
    response = client.get(state_url("/", three, **STATE), headers=HTMX)
    pushed = response.headers["HX-Push-Url"]
    assert pushed.startswith("/?")
    assert query_of(pushed) == {**STATE, "model": default_model(client), "ids": ",".join(map(str, three))}
    assert client.get(pushed).status_code == 200


def test_step_without_htmx_redirects_to_the_state_with_one_more_id(client, three):
    response = client.get(state_url("/step", three, **STATE))
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith("/?")
    assert ids_of(location) == [*three, chosen_after(client, three, **STATE)]
    assert {k: v for k, v in query_of(location).items() if k != "ids"} == {**STATE, "model": default_model(client)}


def test_step_from_the_prompt_alone(client):
    response = client.get(url("/step", prompt=PROMPT, seed="3"))
    assert response.status_code == 303
    assert ids_of(response.headers["Location"]) == [chosen_after(client, [], prompt=PROMPT, seed="3")]


def test_following_the_step_redirect_marks_the_picked_token(client, three):
    location = client.get(state_url("/step", three, **STATE)).headers["Location"]
    picked = ids_of(location)[-1]
    doc = parse(client.get(location).data)
    marked = [row for row in logits_rows(doc) if "picked" in row.classes]
    assert len(marked) == 1
    assert marked[0].id == str(picked)
    assert "picked" in marked[0].badges
    assert hidden_fields(doc)["ids"] == ",".join(map(str, ids_of(location)))
    new_chip = doc.by_id("tokens").find("li", "chip-new")
    assert new_chip.find("span", "chip-id").text() == str(picked)
    assert doc.by_id("text").find("button", "gen-new") is not None


def test_step_with_htmx_answers_the_same_state_as_the_redirect(client, three):
    plain = client.get(state_url("/step", three, **STATE))
    htmx = client.get(state_url("/step", three, **STATE), headers=HTMX)
    assert htmx.status_code == 200
    assert htmx.headers["HX-Push-Url"] == plain.headers["Location"]
    doc = parse(htmx.data)
    assert hidden_fields(doc)["ids"] == ",".join(map(str, ids_of(plain.headers["Location"])))
    assert doc.by_id("range-bar").attrs["data-state"] == "ready", "a fresh pick is animated"


def test_the_page_of_a_state_is_not_animated(client, three):
    doc = parse(client.get(state_url("/", three, **STATE)).data)
    assert doc.by_id("range-bar").attrs["data-state"] == "done"


def test_step_htmx_fragment_equals_the_page_of_the_new_state(client, three):
    """Step shows the pick it just made: the same table as the new state's own page."""
    htmx = client.get(state_url("/step", three, **STATE), headers=HTMX)
    page = client.get(htmx.headers["HX-Push-Url"])
    assert logits_rows(parse(htmx.data)) == logits_rows(parse(page.data))


def test_moving_the_slider_redraws_without_sampling(client, three):
    """htmx GET / with a new temperature: the same ids, the same step, new probabilities."""
    before = client.get(state_url("/", three, **STATE), headers=HTMX)
    after = client.get(state_url("/", three, **{**STATE, "temperature": "1.7"}), headers=HTMX)
    doc_before, doc_after = parse(before.data), parse(after.data)
    assert hidden_fields(doc_after)["ids"] == ",".join(map(str, three))
    assert doc_after.by_id("range-bar").attrs["data-r"] == doc_before.by_id("range-bar").attrs["data-r"]
    assert [r.prob for r in logits_rows(doc_after)] != [r.prob for r in logits_rows(doc_before)]
    assert "T = 1.70" in doc_after.by_id("temperature-value").text()


def test_back_drops_the_last_id(client, three):
    response = client.get(state_url("/back", three, **STATE))
    assert response.status_code == 303
    assert ids_of(response.headers["Location"]) == three[:-1]
    assert query_of(response.headers["Location"])["prompt"] == PROMPT
    htmx = client.get(state_url("/back", three, **STATE), headers=HTMX)
    assert hidden_fields(parse(htmx.data))["ids"] == ",".join(map(str, three[:-1]))


def test_back_at_the_prompt_stays_at_the_prompt(client):
    response = client.get(url("/back", prompt=PROMPT))
    assert response.status_code == 303
    assert ids_of(response.headers["Location"]) == []


def test_back_then_step_picks_the_same_token_again(client, three):
    back = client.get(state_url("/back", three, **STATE)).headers["Location"]
    step = client.get(back.replace("/?", "/step?", 1)).headers["Location"]
    assert ids_of(step) == three


def test_reset_clears_the_ids_and_keeps_prompt_and_settings(client, three):
    response = client.get(state_url("/reset", three, **STATE))
    assert response.status_code == 303
    query = query_of(response.headers["Location"])
    assert "ids" not in query
    assert query == {**STATE, "model": default_model(client)}
    htmx = client.get(state_url("/reset", three, **STATE), headers=HTMX)
    doc = parse(htmx.data)
    assert hidden_fields(doc)["ids"] == ""
    assert doc.find("li", "chip-generated") is None
    assert query_of(htmx.headers["HX-Push-Url"]) == query


def test_page_before_any_step_shows_the_coming_step(client):
    doc = parse(client.get(url("/", prompt=PROMPT)).data)
    assert not any("picked" in row.classes for row in logits_rows(doc))
    assert "Press Step" in " ".join(doc.by_id("pick-sentence").text().split())
    assert "data-r" not in doc.by_id("range-bar").attrs


@pytest.mark.parametrize("path", ["/", "/step", "/back", "/reset", "/api/step"])
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_same_url_twice_gives_identical_bytes(client, three, path, headers):
    first = client.get(state_url(path, three, **STATE), headers=headers)
    second = client.get(state_url(path, three, **STATE), headers=headers)
    assert first.status_code in (200, 303)
    assert first.data == second.data
    assert first.headers.get("Location") == second.headers.get("Location")
    assert first.headers.get("HX-Push-Url") == second.headers.get("HX-Push-Url")


def test_a_fresh_app_renders_the_same_bytes(app, client, three):
    """Purity across processes: nothing in the screen depends on what the app served before."""
    from webapp.web import create_app

    other = create_app({"TESTING": True}).test_client()
    target = state_url("/", three, **STATE)
    assert client.get(target).data == other.get(target).data


def test_settings_changed_after_a_pick_say_so(client, three):
    """The text keeps its token; the table marks where r lands with the new settings, and says so."""
    greedy = {**STATE, "temperature": "0"}
    api = client.get(state_url("/api/step", three[:-1], **greedy)).json
    runner_up = api["rows"][1]["id"]  # not the argmax, so greedy would not have picked it
    doc = parse(client.get(state_url("/", [*three[:-1], runner_up], **greedy)).data)
    assert "picked before a setting changed" in doc.by_id("ranges").text()
    assert [row.id for row in logits_rows(doc) if "picked" in row.classes] == [str(api["chosen"]["id"])]
    assert hidden_fields(doc)["ids"].endswith(str(runner_up))
    badges = {row.id: row.badges for row in logits_rows(doc)}
    assert badges[str(api["chosen"]["id"])] == ("r lands here",)  # not "picked": the text has another token
    assert "in the text" in badges[str(runner_up)]  # beside "p = 0": greedy would not pick it
    assert "“r lands here” marks where the same r falls with the settings now" in doc.by_id("logits").text()
    same = parse(client.get(state_url("/", [*three[:-1], api["chosen"]["id"]], **greedy)).data)
    assert "picked before a setting changed" not in same.by_id("ranges").text()
    assert "“r lands here”" not in same.by_id("logits").text()
    marked = [row.badges for row in logits_rows(same) if {"picked", "in the text"} & set(row.badges)]
    assert marked == [("picked",)]


def test_the_table_says_what_choose_does(client, three):
    before = parse(client.get(state_url("/", [], **STATE)).data).by_id("logits").text()
    assert "“choose” adds that token to the text instead of drawing r." in before
    after = parse(client.get(state_url("/", three, **STATE)).data).by_id("logits").text()
    assert "“choose” puts that token in the text instead of the pick" in after
    hidden = parse(client.get(state_url("/", three, **STATE, predict="1")).data).by_id("logits").text()
    assert "“choose”" not in hidden


def test_the_stage_numbers_go_1_to_5_in_reading_order(client, three):
    """The inside of the forward pass, read after the softmax chart, is a closer look at stage 2, not a second 2."""
    doc = parse(client.get(state_url("/", three, **STATE, inside="1")).data)
    numbers = [span.text().strip() for span in doc.find_all("span", "stage")]
    assert numbers == ["1", "2", "3", "4", "5"]
