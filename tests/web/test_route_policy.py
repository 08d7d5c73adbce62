"""Every route declares what it may cost and how it may be cached; the budget and the cache read only that."""

from __future__ import annotations

import itertools
import re
from urllib.parse import urlencode

import pytest
from flask import Flask

from webapp.inference.machinery import cost
from webapp.web import create_app
from webapp.web.serving.policy import Cache, Work, check_declared, costs, undeclared

from .markup import HTMX, parse

MODEL = "austen-transformer"
ORIGIN = {"Origin": "http://localhost"}
LONG = "/?" + urlencode({"prompt": "It is a truth", "model": MODEL, "ids": ",".join(map(str, range(10, 210)))})


def test_every_route_declares_its_policy(app):
    assert undeclared(app) == [], "these views need @costs(...) under their route"


def test_a_route_added_without_a_declaration_is_named():
    bare = Flask(__name__)

    @bare.get("/declared")
    @costs(Work.NONE)
    def declared_view():
        return "ok"

    @bare.get("/forgotten")
    def forgotten():
        return "ok"

    assert undeclared(bare) == ["forgotten"]
    with pytest.raises(RuntimeError, match="forgotten"):
        check_declared(bare)


def test_a_request_to_an_undeclared_route_is_an_error_not_a_free_pass(app):
    late = create_app({"TESTING": True, "MODELS": app.extensions["models"]})

    @late.get("/late")
    def late_view():
        return "computed for free"

    response = late.test_client().get("/late")
    assert response.status_code == 500 and b"computed for free" not in response.data


def test_an_action_names_the_state_it_moves_to():
    with pytest.raises(ValueError, match="action"):
        costs(Work.ACTION)
    with pytest.raises(ValueError, match="URL"):
        costs(Work.SCREEN, cache=Cache.SHARED, state=lambda: None)


def test_a_shared_answer_is_kept_and_a_private_one_is_not(app):
    counted = create_app({"TESTING": True, "MODELS": app.extensions["models"]})
    counter = itertools.count()

    @counted.get("/shared")
    @costs(Work.NONE, cache=Cache.SHARED, state=None, reads=("q",))
    def shared():
        return str(next(counter))

    @counted.get("/private")
    @costs(Work.NONE)
    def private():
        return str(next(counter))

    client = counted.test_client()
    assert client.get("/shared?q=1").data == client.get("/shared?q=1&x=2").data, "kept: x is not read"
    assert client.get("/shared?q=2").data != client.get("/shared?q=1").data, "q is part of the key"
    assert client.get("/private").data != client.get("/private").data, "never kept"


@pytest.fixture(scope="module")
def rooms(app, tmp_path_factory):
    """Two apps on one room store: one with the usual budget, one below a cold window of the transformer."""
    store = f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"
    models = app.extensions["models"]
    window = cost.step_work(models[MODEL], range(130)).seconds
    usual = create_app({"TESTING": True, "MODELS": models, "ROOM_STORE": store})
    tight = create_app({"TESTING": True, "MODELS": models, "ROOM_STORE": store, "WORK_BUDGET_SECONDS": window * 0.75})
    return usual, tight


def start_long_room(usual, tight):
    """A room started on the usual app from a long text; the tight app's client holds the teacher's key."""
    answer = usual.test_client().post("/room", data={"from": LONG}, headers=ORIGIN)
    assert answer.status_code == 303
    code = answer.headers["Location"].split("/")[2]
    key = re.search(r"tbt_teacher=([^;]+)", answer.headers["Set-Cookie"]).group(1)
    teacher = tight.test_client()
    teacher.set_cookie("tbt_teacher", key, path=f"/room/{code}")
    return code, teacher


def room_now(usual, code: str) -> tuple:
    room = usual.extensions["room_store"].get(code, 0)
    return room.version, room.state


@pytest.mark.parametrize("page", ["/room/{code}/teach", "/room/{code}/screen"])
def test_a_room_page_over_the_budget_is_refused_and_the_room_stays(rooms, page):
    usual, tight = rooms
    code, teacher = start_long_room(usual, tight)
    before = room_now(usual, code)
    response = teacher.get(page.format(code=code))
    assert response.status_code == 422
    message = parse(response.get_data(as_text=True)).find("p", "error-message").text()
    assert "positions of austen-transformer" in message and "limit for one request" in message
    assert room_now(usual, code) == before
    assert usual.test_client().get(page.format(code=code)).status_code != 422, "within the usual budget"


def test_a_long_text_posted_to_a_room_is_refused_and_the_room_stays(rooms):
    usual, tight = rooms
    code, teacher = start_long_room(usual, tight)
    before = room_now(usual, code)
    answer = teacher.post(f"/room/{code}/state", data={"url": LONG.replace("/?", "/step?"), "action": "step"},
                          headers={**ORIGIN, **HTMX})
    assert answer.status_code == 422 and answer.headers["HX-Retarget"] == "#error"
    assert room_now(usual, code) == before
    assert tight.test_client().post("/room", data={"from": LONG}, headers=ORIGIN).status_code == 422


def test_a_step_as_htmx_is_charged_for_colouring_the_text_by_surprise(rooms):
    """The new screen colours every generated token by its surprise: each of their steps again."""
    _usual, tight = rooms
    ids = ",".join(str(i) for i in range(10, 50))
    step = "/step?" + urlencode({"prompt": "It is a truth", "model": MODEL, "ids": ids})
    client = tight.test_client()
    assert client.get(step, headers=HTMX).status_code == 200
    refused = client.get(step + "&surprise=1", headers=HTMX)
    assert refused.status_code == 422 and refused.headers["HX-Retarget"] == "#error"
