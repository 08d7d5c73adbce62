"""The work budget: a request's forward passes are estimated before they run, and refused beyond the budget."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from flask import request

from webapp.inference.machinery import cost
from webapp.serve import warm
from webapp.web import create_app

from .markup import HTMX, parse

MODEL = "austen-transformer"
IDS = ",".join(str(i) for i in range(10, 210))  # 200 generated ids: the window (128) slides


def budget_app(app, **config):
    return create_app({"TESTING": True, "MODELS": app.extensions["models"], "RESPONSE_CACHE_BYTES": 0, **config})


def url(path: str, **params) -> str:
    return f"{path}?{urlencode({'prompt': 'It is a truth', 'model': MODEL, **params})}"


@pytest.fixture(scope="module")
def tight(app):
    """An app whose budget is below one cold window of the transformer, and above a bigram step."""
    window = cost.step_work(app.extensions["models"][MODEL], range(130)).seconds
    return budget_app(app, WORK_BUDGET_SECONDS=window * 0.75)


@pytest.mark.parametrize("path", ["/", "/step", "/export.csv", "/api/step"])
def test_a_screen_over_the_budget_is_refused_with_a_422_that_says_why(tight, path):
    response = tight.test_client().get(url(path, ids=IDS))
    assert response.status_code == 422
    message = response.get_json()["error"] if path.startswith("/api/") else \
        parse(response.get_data(as_text=True)).find("p", "error-message").text()
    assert "positions of austen-transformer" in message and "limit for one request" in message


def test_in_the_page_the_refusal_is_the_error_fragment_and_the_screen_stays(tight):
    response = tight.test_client().get(url("/step", ids=IDS), headers=HTMX)
    assert response.status_code == 422
    assert response.headers["HX-Retarget"] == "#error"
    assert "hx-swap-oob" not in response.get_data(as_text=True), "no panel is replaced"


def test_within_the_budget_the_same_app_answers(tight):
    client = tight.test_client()
    assert client.get(url("/step", ids="5,6")).status_code == 303
    assert client.get(url("/", model="austen-bigram", ids=IDS)).status_code == 200


def test_an_export_stops_at_the_last_step_that_fits_and_says_so(tight, app):
    trace = json.loads(tight.test_client().get(url("/export.json", ids=IDS)).get_data())
    assert not trace["complete"]
    assert 0 < len(trace["steps"]) < 200 and trace["steps_left_out"] == 200 - len(trace["steps"])
    assert "left out" in trace["note"]
    full = json.loads(budget_app(app).test_client().get(url("/export.json", ids="5,6,7")).get_data())
    assert full["complete"] and len(full["steps"]) == 3 and "note" not in full


def test_a_heavy_request_beyond_the_concurrent_bound_gets_a_503_with_retry_after(app):
    busy = budget_app(app, HEAVY_SECONDS=0.0)  # every computing request is heavy
    slots = busy.extensions["heavy_slots"]
    assert slots.acquire(blocking=False), "another heavy request is running"
    try:
        response = busy.test_client().get(url("/api/step"))
        assert response.status_code == 503 and response.headers["Retry-After"]
        assert "busy" in response.get_json()["error"]
        assert busy.test_client().get("/healthz").status_code == 200, "cheap requests still answered"
    finally:
        slots.release()
    assert busy.test_client().get(url("/api/step")).status_code == 200, "the slot is given back after each request"
    assert busy.test_client().get(url("/api/step")).status_code == 200


def test_every_answer_says_its_time_on_the_server(client):
    timing = client.get("/healthz").headers["Server-Timing"]
    assert timing.startswith("app;dur=") and "cpu;dur=" in timing and "est;dur=" not in timing
    assert "est;dur=" in client.get(url("/api/step", ids="5")).headers["Server-Timing"], "and what was estimated"


def test_warming_a_process_shows_each_model_s_screen_once_before_any_request(app):
    """What a process does once (a fetched model's weights read in, its labels, the templates) is done
    before it listens, not in a request whose estimate does not count it."""
    bundled = {name: app.extensions["models"][name] for name in ("austen-bigram", "austen-transformer")}
    fresh = create_app({"TESTING": True, "MODELS": bundled})
    shown = []

    @fresh.after_request
    def seen(response):
        shown.append((request.args.get("model"), response.status_code))
        return response

    warm(fresh)
    assert shown == [(name, 200) for name in ("austen-bigram", "austen-transformer", "article")]


def test_the_estimate_grows_with_the_positions_and_knows_the_window(app):
    model = app.extensions["models"][MODEL]
    one, full, beyond = (cost.step_work(model, range(n)) for n in (1, model.n_ctx, 5 * model.n_ctx))
    assert one.positions == 1 and full.positions == beyond.positions == model.n_ctx
    assert one.seconds < full.seconds == beyond.seconds
    assert cost.step_work(model, range(50), cached=49).positions == 1
    bigram = cost.step_work(app.extensions["models"]["austen-bigram"], range(1000))
    assert bigram.seconds < one.seconds


def test_affordable_steps_counts_what_fits():
    works = [cost.Work(seconds=0.4)] * 3
    assert cost.affordable_steps(works, 1.0) == 2
    assert cost.affordable_steps(works, 2.0) == 3
    assert cost.affordable_steps([], 1.0) == 0


def test_an_export_past_its_deadline_stops_there_and_is_not_kept(app):
    late = create_app({"TESTING": True, "MODELS": app.extensions["models"], "HEAVY_SECONDS": 0.0,
                       "DEADLINE_SECONDS": 0.0})
    client, cache = late.test_client(), late.extensions["response_cache"]
    trace = json.loads(client.get(url("/export.json", ids="5,6,7")).get_data())
    assert not trace["complete"] and trace["steps"] == [] and trace["steps_left_out"] == 3
    assert len(cache) == 0, "a cut answer is not kept: the next request may get all of it"
    assert json.loads(client.get(url("/export.json", ids="5,6")).get_data())["steps"] == []


def test_reset_from_a_screen_over_the_budget_still_works(tight):
    """Only what a request computes is charged: Reset reads the prompt alone, a redirect nothing."""
    client = tight.test_client()
    assert client.get(url("/reset", ids=IDS), headers=HTMX).status_code == 200
    assert client.get(url("/back", ids=IDS)).status_code == 303
    assert client.get(url("/back", ids=IDS), headers=HTMX).status_code == 422


def test_what_the_kv_cache_holds_is_not_charged_again(app):
    model = app.extensions["models"][MODEL]
    ids = list(range(40, 100))  # 60 ids: one block of 32 kept, and a tail
    model.logits(ids)
    assert cost.cached_positions(model, ids) == len(ids), "these very logits are kept"
    assert cost.cached_positions(model, [*ids, 7]) == 32, "the next step reuses the whole block"
    assert cost.cached_positions(model, [1, 2, *ids]) == 0, "another text shares nothing"


def test_colouring_a_text_by_surprise_is_charged_for_every_step(tight):
    """surprise=1 recomputes every generated token's step: 40 of them are over the tight budget,
    though the screen alone fits."""
    client = tight.test_client()
    ids = ",".join(str(i) for i in range(10, 50))
    assert client.get(url("/", ids=ids)).status_code == 200
    refused = client.get(url("/", ids=ids, surprise="1"))
    assert refused.status_code == 422 and "limit for one request" in refused.get_data(as_text=True)


def test_looking_inside_runs_the_window_again_and_is_charged_for_it(app):
    model = app.extensions["models"][MODEL]
    once = cost.step_work(model, range(100)).seconds
    between = budget_app(app, WORK_BUDGET_SECONDS=once * 1.5).test_client()
    ids = ",".join(str(i) for i in range(10, 110))
    assert between.get(url("/api/step", ids=ids)).status_code == 200
    assert between.get(url("/api/inside", ids=ids)).status_code == 422
    assert between.get(url("/", ids=ids + ",5", inside="1")).status_code == 422


def test_sampling_many_times_is_charged_for_its_draws(app):
    """many=10000 draws ten thousand seeded generators: a tenth of a second on a cheap model's screen,
    so it waits for the heavy slot like a long pass (16 at once starved /healthz of its thread)."""
    busy = budget_app(app)
    slots = busy.extensions["heavy_slots"]
    screen = url("/", model="austen-bigram", ids="5,6")
    assert slots.acquire(blocking=False)
    try:
        assert busy.test_client().get(screen).status_code == 200, "a screen of the bigram is not heavy"
        answer = busy.test_client().get(screen + "&many=10000")
        assert answer.status_code == 503 and answer.headers["Retry-After"]
        assert busy.test_client().get(screen + "&many=100").status_code == 200
    finally:
        slots.release()
    assert busy.test_client().get(screen + "&many=10000").status_code == 200
