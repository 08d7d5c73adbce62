"""The state survives the trip through a URL: what a redirect or HX-Push-Url writes reads back the same."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from flask import url_for
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference import Settings
from webapp.web.url.links import state_links
from webapp.web.url.state import State

from .markup import HTMX, ids_of, parse, query_of

SETTINGS = ("temperature", "top_k", "top_p", "min_p", "seed")


@pytest.mark.parametrize(
    "params",
    [
        pytest.param({"temperature": "0.75", "top_k": "40", "top_p": "0.9", "min_p": "0.05", "seed": "17"}, id="plain"),
        pytest.param({"temperature": "0", "seed": str(2**63 - 1)}, id="greedy-max-seed"),
        pytest.param({"top_k": "999999"}, id="top_k-999999"),
        pytest.param({"top_k": "1000000"}, id="top_k-1e6"),
        pytest.param({"top_k": "1234567"}, id="top_k-7-digits"),
        pytest.param({"temperature": "0.1234567"}, id="temperature-7-digits"),
        pytest.param({"top_p": "0.1234567"}, id="top_p-7-digits"),
        pytest.param({"min_p": "0.00012345678"}, id="min_p-small"),
    ],
)
def test_redirect_keeps_the_settings_exactly(client, params):
    """The 303 after Step leads to a screen with the settings that took the step."""
    step = client.get(f"/step?{urlencode(params)}")
    assert step.status_code == 303
    location = step.headers["Location"]
    assert client.get(location).status_code == 200, "the redirect leads to a screen"
    written = query_of(location)
    for name, value in params.items():
        kind = int if name in ("top_k", "seed") else float
        assert kind(written[name]) == kind(value), f"{name}={value} came back as {written[name]}"
    htmx = client.get(f"/step?{urlencode(params)}", headers=HTMX)
    assert htmx.headers["HX-Push-Url"] == location


@pytest.mark.parametrize(
    "prompt",
    ["", "  two  spaces  ", "a&b=c?d#e", "line one\nline two", "café ✓ naïve", "100% + 50%", "ids=1,2&seed=3"],
)
def test_awkward_prompts_survive_the_url(client, prompt):
    location = client.get(f"/step?{urlencode({'prompt': prompt})}").headers["Location"]
    assert query_of(location).get("prompt", "") == prompt
    assert len(ids_of(location)) == 1


def test_defaults_are_written_out(client):
    """A bare /step writes every setting into the URL, so the link does not depend on the server's defaults."""
    written = query_of(client.get("/step").headers["Location"])
    assert {"prompt", "model", "temperature", "seed", "ids"} <= set(written)
    assert not {"top_k", "top_p", "min_p"} & set(written), "switched-off truncations stay out"


def test_three_steps_by_redirect_equal_three_steps_of_the_api(client):
    params = {"temperature": "1.1", "top_p": "0.95", "seed": "31"}
    location = f"/?{urlencode(params)}"
    for _ in range(3):
        location = client.get(location.replace("/?", "/step?", 1)).headers["Location"]
    ids: list[int] = []
    for _ in range(3):
        query = {**params, **({"ids": ",".join(map(str, ids))} if ids else {})}
        ids.append(client.get(f"/api/step?{urlencode(query)}").json["chosen"]["id"])
    assert ids_of(location) == ids
    assert {k: v for k, v in query_of(location).items() if k in SETTINGS} == params


SOURCES = st.sampled_from(["s", "f"]) | st.floats(0, 1, exclude_max=True)


@settings(max_examples=150, deadline=None)
@given(
    prompt=st.text(max_size=40),
    ids_and_sources=st.lists(st.tuples(st.integers(0, 4999), SOURCES), max_size=12),
    temperature=st.floats(0, 5),
    top_k=st.none() | st.integers(1, 5000),
    min_p=st.none() | st.floats(0, 1),
    at=st.none() | st.integers(0, 11),
    next_r=st.none() | st.floats(0, 1, exclude_max=True),
    flags=st.lists(st.booleans(), min_size=4, max_size=4),
    change=st.sampled_from([{}, {"at": 3}, {"at": None}, {"present": "1"}, {"present": None}, {"q": "a b&c"},
                            {"token": 17}]),
)
def test_state_urls_are_the_urls_url_for_writes(app, prompt, ids_and_sources, temperature, top_k, min_p, at, next_r,
                                                flags, change):
    """The state's one encoder (links, redirects, HX-Push-Url) must write exactly what url_for writes."""
    ids = tuple(i for i, _ in ids_and_sources)
    predict, revealed, present, guide = flags
    state = State(prompt=prompt, model="austen-bigram", ids=ids,
                  settings=Settings(temperature=temperature, top_k=top_k, min_p=min_p, seed=5),
                  sources=tuple(source for _, source in ids_and_sources),
                  at=at if at is not None and at < len(ids) else None, next_r=next_r, predict=predict,
                  revealed=revealed, present=present, guide=guide)
    with app.test_request_context("/"):
        link = state_links(state)
        for endpoint in ("stepper.show", "stepper.step", "stepper.qr_code", "stepper.export_csv"):
            merged = {k: v for k, v in {**state.query(), **change}.items() if v is not None}
            expected = url_for(endpoint, **merged)
            assert state.url(url_for(endpoint), **change) == expected
            assert link(endpoint, **change) == expected


def test_redirect_push_url_and_share_link_name_the_same_state(client):
    """One encoder: the 303, HX-Push-Url and the share link (escaped further, for pasting) read back the same."""
    params = {"prompt": "Don't (ever) say: 'never', Sir!", "seed": "3", "top_p": "0.9"}
    location = client.get(f"/step?{urlencode(params)}").headers["Location"]
    assert client.get(f"/step?{urlencode(params)}", headers=HTMX).headers["HX-Push-Url"] == location
    assert "'" in location and "(" in location, "the page's own URLs leave what url_for leaves"
    share = parse(client.get(location).data).by_id("share-link").attrs["value"]
    assert share.startswith("http://localhost/?")
    assert "'" not in share and "(" not in share and "," in share, "a link to paste escapes all but commas"
    assert query_of(share) == {**query_of(location), "guide": "0", "lang": "en"}, \
        "students by the link skip the guide, and read it in the sender's language"
