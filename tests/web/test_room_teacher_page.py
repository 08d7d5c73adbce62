"""The teacher's page through the Flask test client: the join screen, and presenter mode kept through the room.

A room opens on its join screen (join=1), in presenter mode when it was started from it (present=1); both flags
are kept by the settings form's answer and by the panel the page gets back for each screen it sends.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from webapp.web import create_app

from .markup import Element, parse

ORIGIN = {"Origin": "http://127.0.0.1:5000"}
BASE = "http://127.0.0.1:5000"  # the server's default address: only this computer can open it
START = "/?prompt=The+girl+saw+a&seed=44"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


@pytest.fixture
def teacher(app):
    return app.test_client()


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def start(teacher, screen: str = START, host: str = BASE) -> tuple[str, str]:
    """Start a room from `screen`; return its code and the teacher's page it sends the browser to."""
    answer = teacher.post("/room", data={"from": screen}, headers=ORIGIN, base_url=host)
    assert answer.status_code == 303
    location = answer.headers["Location"]
    return location.split("/")[2], location


def page(teacher, url: str, host: str = BASE) -> Element:
    answer = teacher.get(url, base_url=host)
    assert answer.status_code == 200
    return parse(answer.get_data(as_text=True))


def panel_of(doc: Element) -> Element:
    return doc.by_id("room-panel")


def settings_fields(panel: Element) -> dict[str, str]:
    form = panel.find("form", "room-settings")
    return {i.attrs["name"]: i.attrs["value"] for i in form.find_all("input") if i.attrs.get("type") == "hidden"}


@pytest.mark.parametrize(("screen", "present"), [(START + "&present=1", ["1"]), (START, None)])
def test_a_room_opens_on_its_join_screen_in_the_mode_it_was_started_from(teacher, screen, present):
    code, location = start(teacher, screen)
    assert urlsplit(location).path == f"/room/{code}/teach"
    assert query(location).get("join") == ["1"] and query(location).get("present") == present
    doc = page(teacher, location)
    assert ("present" in doc.by_id("main").classes) is bool(present)
    panel = panel_of(doc)
    assert "joining" in panel.classes
    assert doc.by_id("room-code").text() == f"{code[:4]}-{code[4:]}"
    qr = panel.find("img", "room-qr")
    assert qr.attrs["src"] == f"/room/{code}/qr.svg"
    address = panel.find("p", "room-address").find("a")
    assert address.text() == f"{BASE}/join" and address.attrs["href"] == f"{BASE}/join?code={code}"
    hide = doc.by_id("join-hide")
    assert hide.text() == "Start the lesson"
    assert urlsplit(hide.attrs["href"]).path == f"/room/{code}/teach"
    assert "join" not in query(hide.attrs["href"]) and query(hide.attrs["href"]).get("present") == present


def test_on_127_0_0_1_the_join_screen_says_phones_cannot_open_it_and_how_to_serve_the_network(teacher):
    code, location = start(teacher, START + "&present=1")
    warning = page(teacher, location).by_id("join-loopback")
    assert "Phones cannot open this link yet." in warning.text()
    assert " ".join(warning.find("code").text().split()) == "token-by-token --host 0.0.0.0 --port 5000"
    typed = warning.find("strong", "address")
    assert typed is None or typed.text().endswith(":5000/join")  # the LAN address, when this machine has one


def test_served_on_the_network_the_join_screen_has_no_warning(teacher):
    host = "http://192.168.1.20:8000"
    code, location = start(teacher, host=host)
    doc = page(teacher, location, host=host)
    assert "joining" in panel_of(doc).classes and doc.by_id("join-loopback") is None
    assert panel_of(doc).find("p", "room-address").find("a").text() == f"{host}/join"


@pytest.mark.parametrize("join", ["0", None])
def test_without_join_1_the_join_screen_is_put_away_and_can_be_brought_back(teacher, join):
    code, _ = start(teacher)
    url = f"/room/{code}/teach?present=1" + (f"&join={join}" if join else "")
    doc = page(teacher, url)
    assert "joining" not in panel_of(doc).classes
    show = doc.by_id("join-show")
    assert show.text() == "Show how to join"
    assert query(show.attrs["href"]) == {"present": ["1"], "join": ["1"]}
    assert settings_fields(panel_of(doc)) == {"present": "1", "join": "0"}


def test_the_settings_form_keeps_presenter_mode_and_the_join_screen(teacher):
    code, location = start(teacher, START + "&present=1")
    assert settings_fields(panel_of(page(teacher, location))) == {"present": "1", "join": "1"}
    for fields, kept in [({"present": "1", "join": "1"}, {"present": ["1"], "join": ["1"]}),
                         ({"present": "1", "join": "0"}, {"present": ["1"]}),
                         ({}, {})]:
        answer = teacher.post(f"/room/{code}/settings", data={"votes_on": "1", **fields}, headers=ORIGIN,
                              base_url=BASE)
        assert answer.status_code == 303
        assert query(answer.headers["Location"]) == kept


def test_the_presenter_mode_link_keeps_the_join_screen(teacher):
    code, location = start(teacher)
    assert query(page(teacher, location).by_id("presenter-link").attrs["href"]) == {"present": ["1"], "join": ["1"]}
    leaving = page(teacher, f"/room/{code}/teach?present=1").by_id("presenter-link")
    assert leaving.text() == "Leave presenter mode" and query(leaving.attrs["href"]) == {}


def publish(teacher, code: str, url: str, action: str, **flags: str) -> Element:
    answer = teacher.post(f"/room/{code}/state", data={"url": url, "action": action, **flags}, headers=ORIGIN,
                          base_url=BASE)
    assert answer.status_code == 200
    return parse(answer.get_data(as_text=True)).by_id("room-panel")


def pushed(teacher, path: str, url: str) -> str:
    """What the teacher's browser does before it sends a screen: ask the stepper for it."""
    answer = teacher.get(f"{path}?{url.split('?', 1)[1]}", headers={"HX-Request": "true"}, base_url=BASE)
    return answer.headers["HX-Push-Url"]


def test_the_panel_sent_back_after_a_step_keeps_the_page_s_presenter_mode_and_join_screen(teacher):
    code, _ = start(teacher, START + "&present=1")
    url = pushed(teacher, "/step", START)
    presenting = publish(teacher, code, url, "step", present="1", join="")
    assert presenting.by_id("presenter-link").text() == "Leave presenter mode"
    assert settings_fields(presenting) == {"present": "1", "join": "0"}
    assert query(presenting.by_id("join-show").attrs["href"]) == {"present": ["1"], "join": ["1"]}
    joining = publish(teacher, code, url, "show", present="1", join="1")
    assert "joining" in joining.classes and settings_fields(joining) == {"present": "1", "join": "1"}
    plain = publish(teacher, code, url, "show")
    assert plain.by_id("presenter-link").text() == "Presenter mode" and settings_fields(plain) == {"join": "0"}


def test_the_results_come_to_the_front_after_reveal_and_step_back_when_the_next_vote_opens(app, teacher):
    code, _ = start(teacher, START + "&present=1")
    teacher.post(f"/room/{code}/settings", data={"votes_on": "1"}, headers=ORIGIN, base_url=BASE)
    student = app.test_client()
    assert student.post("/join", data={"code": code}, headers=ORIGIN, base_url=BASE).status_code == 303
    hidden = pushed(teacher, "/step", START + "&predict=1")
    publish(teacher, code, hidden, "step", present="1")
    assert student.post(f"/room/{code}/vote", data={"round": "1", "token": "3"}, headers=ORIGIN,
                        base_url=BASE).status_code in (200, 303)
    state = teacher.get(f"/room/{code}/results.json", base_url=BASE).get_json()["state"]
    revealed = pushed(teacher, "/", f"/?{state}&reveal=1")
    after_reveal = publish(teacher, code, revealed, "show", present="1")
    assert "results-on-screen" in after_reveal.classes and after_reveal.by_id("room-results") is not None
    next_vote = publish(teacher, code, pushed(teacher, "/step", revealed), "step", present="1")
    assert "results-on-screen" not in next_vote.classes and next_vote.by_id("room-results") is not None
