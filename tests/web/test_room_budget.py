"""A room's pages and changes are refused as `/` refuses the same screen: a 422 with the same sentence.

Two apps share one room store: the usual one starts rooms; the tight one has a budget below a cold
window of the transformer, so a long text is over it, and so is colouring a shorter one by surprise
(every generated token's step again), though its screen alone fits. A room must never start with,
or be sent, a screen its own pages would refuse; starting one from such a screen says why on the
teacher's page, in its error area (htmx), or on an error page that links back to the screen.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from webapp.inference.machinery import cost
from webapp.web import create_app

from .markup import HTMX, parse

MODEL = "austen-transformer"
ORIGIN = {"Origin": "http://localhost"}
LONG = "/?" + urlencode({"prompt": "It is a truth", "model": MODEL, "ids": ",".join(map(str, range(10, 210)))})
SURPRISED = "/?" + urlencode({"prompt": "It is a truth", "model": MODEL, "ids": ",".join(map(str, range(10, 50))),
                              "surprise": "1"})
SCREENS = {"long": LONG, "surprise": SURPRISED}


@pytest.fixture(scope="module")
def apps(app, tmp_path_factory):
    store = f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"
    models = app.extensions["models"]
    window = cost.step_work(models[MODEL], range(130)).seconds
    usual = create_app({"TESTING": True, "MODELS": models, "ROOM_STORE": store})
    tight = create_app({"TESTING": True, "MODELS": models, "ROOM_STORE": store, "WORK_BUDGET_SECONDS": window * 0.75})
    return usual, tight


def message(response) -> str:
    """The error's sentence, without the lead a page or a fragment puts before it ('Not changed:')."""
    return parse(response.get_data(as_text=True)).find("p", "error-message").own_text().strip()


def refusal_of(tight, screen: str) -> str:
    """What `/` says of the screen on the tight app: the sentence every room route must say of it."""
    answer = tight.test_client().get(screen)
    assert answer.status_code == 422
    return message(answer)


def started(usual, tight, screen: str):
    """A room started on the usual app from the screen; the tight app's clients: the teacher and a student."""
    answer = usual.test_client().post("/room", data={"from": screen}, headers=ORIGIN)
    assert answer.status_code == 303
    code = answer.headers["Location"].split("/")[2]
    teacher = tight.test_client()
    teacher.set_cookie("tbt_teacher", re.search(r"tbt_teacher=([^;]+)", answer.headers["Set-Cookie"]).group(1),
                       path=f"/room/{code}")
    student = tight.test_client()
    assert student.post("/join", data={"code": code, "nickname": "Ada"}, headers=ORIGIN).status_code == 303
    return code, teacher, student


def room_now(usual, code: str) -> tuple:
    room = usual.extensions["room_store"].get(code, 0)
    return room.version, room.state


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_a_room_s_pages_are_refused_as_the_stepper_refuses_their_screen(apps, screen):
    usual, tight = apps
    code, teacher, student = started(usual, tight, screen)
    said = refusal_of(tight, screen)
    pages = [(teacher, f"/room/{code}/teach"), (student, f"/room/{code}"), (student, f"/room/{code}/screen")]
    for client, page in pages:
        answer = client.get(page)
        assert answer.status_code == 422, page
        assert message(answer) == said, page


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_a_room_s_changes_are_refused_as_the_stepper_refuses_their_screen_and_the_room_stays(apps, screen):
    usual, tight = apps
    code, teacher, _student = started(usual, tight, screen)
    said, before = refusal_of(tight, screen), room_now(usual, code)
    for path, form in [("/room", {"from": screen}), (f"/room/{code}/state", {"url": screen, "action": "show"}),
                       (f"/room/{code}/settings", {"votes_on": "1"})]:
        answer = teacher.post(path, data=form, headers=ORIGIN)
        assert answer.status_code == 422, path
        assert message(answer) == said, path
        assert "tbt_teacher" not in answer.headers.get("Set-Cookie", ""), "no room started"
    assert room_now(usual, code) == before


def test_starting_a_room_from_a_step_is_charged_for_the_screen_after_it(apps):
    """A hidden pick's address is the Step that takes it: the room stores the screen after that Step."""
    _usual, tight = apps
    step = SURPRISED.replace("/?", "/step?")
    said = tight.test_client().get(step, headers=HTMX)
    assert said.status_code == 422
    answer = tight.test_client().post("/room", data={"from": step}, headers={**ORIGIN, **HTMX})
    assert answer.status_code == 422 and message(answer) == message(said)


def test_the_teacher_s_page_starts_a_room_with_htmx_and_shows_a_refusal_in_its_error_area(apps):
    usual, tight = apps
    page = parse(usual.test_client().get(SURPRISED).get_data(as_text=True))
    form = page.find("form", "start-room")
    assert form.attrs["hx-post"] == "/room" and form.attrs["hx-swap"] == "none"
    assert form.attrs["hx-include"] == "unset", "the controls form is not sent twice"
    assert page.by_id("error") is not None
    refused = tight.test_client().post("/room", data={"from": SURPRISED}, headers={**ORIGIN, **HTMX})
    assert refused.status_code == 422
    assert (refused.headers["HX-Retarget"], refused.headers["HX-Reswap"]) == ("#error", "innerHTML")
    assert message(refused) == refusal_of(tight, SURPRISED)
    assert "Set-Cookie" not in refused.headers
    started_ = usual.test_client().post("/room", data={"from": SURPRISED}, headers={**ORIGIN, **HTMX})
    assert started_.status_code == 204, "htmx goes to the teacher's page itself"
    assert re.fullmatch(r"/room/[A-Z0-9]{8}/teach\?join=1", started_.headers["HX-Redirect"])  # on its join screen
    assert "tbt_teacher=" in started_.headers["Set-Cookie"]


def test_without_javascript_the_refusal_is_a_page_that_links_back_to_the_screen(apps):
    _usual, tight = apps
    refused = tight.test_client().post("/room", data={"from": SURPRISED}, headers=ORIGIN)
    assert refused.status_code == 422
    page = parse(refused.get_data(as_text=True))
    assert message(refused) == refusal_of(tight, SURPRISED)
    links = {a.text(): a.attrs["href"] for a in page.find_all("a")}
    assert links["Back to the screen you were on"] == SURPRISED
    assert "Start again from the default screen" in links


@pytest.mark.parametrize("elsewhere", ["//evil.example/?x", "https://evil.example/", "javascript:alert(1)",
                                       "/\\evil.example", "/?prompt=a\nb"])
def test_the_error_page_links_back_only_to_a_screen_of_this_site(apps, elsewhere):
    _usual, tight = apps
    refused = tight.test_client().post("/room", data={"from": elsewhere})  # no Origin: refused, with a page
    assert refused.status_code == 403
    links = [a.attrs["href"] for a in parse(refused.get_data(as_text=True)).find_all("a")]
    assert elsewhere not in links and not any("evil" in link or "javascript" in link for link in links)
