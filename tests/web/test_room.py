"""The class room through the Flask test client: who may change what, and what a bad request gets."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from webapp.web import create_app

from .markup import parse

ORIGIN = {"Origin": "http://localhost"}
START = "/?prompt=The+girl+saw+a&seed=44"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """One app for the module (the models load once); each test starts rooms of its own."""
    folder = tmp_path_factory.mktemp("rooms")
    return create_app(
        {
            "TESTING": True,
            "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}",
            "ROOM_FAILED_LOOKUPS_PER_MINUTE": 3,
            "ROOM_MAX_STUDENTS": 3,
        }
    )


@pytest.fixture
def teacher(app):
    return app.test_client()


def start_room(teacher, votes: bool = True, start: str = START) -> str:
    answer = teacher.post("/room", data={"from": start}, headers=ORIGIN)
    assert answer.status_code == 303
    code = answer.headers["Location"].split("/")[2]
    if votes:
        assert teacher.post(f"/room/{code}/settings", data={"votes_on": "1"}, headers=ORIGIN).status_code == 303
    return code


def join(app, code: str, nickname: str = "") -> object:
    student = app.test_client()
    assert student.post("/join", data={"code": code, "nickname": nickname}, headers=ORIGIN).status_code == 303
    return student


def push(client, path: str, url: str) -> str:
    """What the teacher's browser does: ask the stepper for the next screen, then send it to the room."""
    return client.get(f"{path}?{url.split('?', 1)[1]}", headers={"HX-Request": "true"}).headers["HX-Push-Url"]


def publish(client, code: str, url: str, action: str = "show", headers=ORIGIN):
    return client.post(f"/room/{code}/state", data={"url": url, "action": action}, headers=headers)


def step(teacher, code: str, url: str = START + "&predict=1") -> str:
    url = push(teacher, "/step", url)
    assert publish(teacher, code, url, "step").status_code == 200
    return url


def reveal(teacher, code: str, url: str) -> str:
    """Reveal as the teacher's page does: its own state (a hidden pick's address leaves the pick out)."""
    url = push(teacher, "/", "/?" + results(teacher, code)["state"] + "&reveal=1")
    assert publish(teacher, code, url).status_code == 200
    return url


def results(teacher, code: str) -> dict:
    return teacher.get(f"/room/{code}/results.json").get_json()


def test_starting_a_room_gives_only_this_browser_the_teacher_key(teacher) -> None:
    answer = teacher.post("/room", data={"from": START}, headers=ORIGIN)
    cookie = answer.headers["Set-Cookie"]
    key = re.search(r"tbt_teacher=([^;]+)", cookie).group(1)
    assert len(key) >= 43  # 256 bits
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/room/" in cookie
    code = answer.headers["Location"].split("/")[2]
    page = teacher.get(answer.headers["Location"])
    assert page.status_code == 200
    assert key not in page.get_data(as_text=True) and key not in answer.headers["Location"]
    assert "/join?code=" + code in page.get_data(as_text=True)


def test_a_student_follows_the_teachers_screen(app, teacher) -> None:
    code = start_room(teacher, votes=False)
    student = join(app, code)
    url = step(teacher, code, START)
    first = student.get(f"/room/{code}/screen")
    assert first.status_code == 200 and first.headers["X-Room-Round"] == "0-closed"
    assert 'data-state="ready"' in first.get_data(as_text=True)  # the pick animates, as on the teacher's screen
    assert student.get(f"/room/{code}/screen", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    push_back = push(teacher, "/back", url)
    publish(teacher, code, push_back, "back")
    again = student.get(f"/room/{code}/screen", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.headers["ETag"] != first.headers["ETag"]
    page = student.get(f"/room/{code}")
    assert "Following the teacher" in page.get_data(as_text=True)


def test_a_student_s_screen_has_the_text_so_far_above_the_ballot_in_the_page_and_each_poll(app, teacher) -> None:
    code = start_room(teacher, votes=False)
    student = join(app, code)
    step(teacher, code, START)
    for answer in (student.get(f"/room/{code}"), student.get(f"/room/{code}/screen")):
        doc = parse(answer.data)
        top, panel = doc.by_id("text-now"), doc.find("p", "text-so-far")
        assert top is not None and panel is not None
        assert top.text().split() == ["Text", "so", "far", *panel.text().split()], "the decode panel's text"
        order = [e.attrs.get("id") for e in doc.iter() if e.attrs.get("id") in ("room-status", "text-now", "ballot")]
        assert order == ["room-status", "text-now", "ballot"], "under the room's line, above the ballot"
    assert top.attrs["hx-swap-oob"] == "true", "each poll swaps it with the panels"


@pytest.mark.parametrize("payload", ['<img src=x onerror=alert(1)> & "Mr', "</p><b>bold</b>"])
def test_the_text_so_far_at_the_top_shows_the_prompt_as_text(app, teacher, payload) -> None:
    code = start_room(teacher, votes=False, start="/?" + urlencode({"prompt": payload, "seed": "44"}))
    student = join(app, code)
    for answer in (student.get(f"/room/{code}"), student.get(f"/room/{code}/screen")):
        html = answer.get_data(as_text=True)
        assert payload not in html, "raw markup from the prompt"
        top = parse(html).by_id("text-now")
        assert top.find("span", "prompt-text").text() == payload
        assert [e.tag for e in top.iter()] == ["section", "h2", "div", "p", "span"], "no element from the prompt"


def test_a_student_cannot_step_reveal_or_change_the_room(app, teacher) -> None:
    code = start_room(teacher)
    url = step(teacher, code)
    student = join(app, code)
    key = teacher.get_cookie("tbt_teacher", path=f"/room/{code}").value
    for answer in (
        student.get(f"/room/{code}"),
        student.get(f"/room/{code}/screen"),
        student.get(f"/room/{code}/me"),
        student.get(f"/room/{code}/qr.svg"),
        student.get(f"/join?code={code}"),
    ):
        assert key not in answer.get_data(as_text=True) and key not in str(answer.headers)  # never shown to a student
    before = results(teacher, code)
    revealed = push(student, "/", url + "&reveal=1")
    assert publish(student, code, revealed).status_code == 403
    assert publish(student, code, push(student, "/step", url), "step").status_code == 403
    assert student.post(f"/room/{code}/settings", data={"votes_on": "0"}, headers=ORIGIN).status_code == 403
    assert student.get(f"/room/{code}/teach").status_code == 403
    assert student.get(f"/room/{code}/results.json").status_code == 403
    assert results(teacher, code) == before


def test_a_forged_key_or_code_is_refused(app, teacher) -> None:
    code = start_room(teacher)
    forger = app.test_client()
    forger.set_cookie("tbt_teacher", "A" * 43, path=f"/room/{code}")
    assert forger.get(f"/room/{code}/teach").status_code == 403
    assert publish(forger, code, START).status_code == 403
    assert teacher.get("/room/ZZZZZZZZ/teach").status_code == 403  # no key for that room: as for an open one
    assert teacher.get("/room/zzzz/screen").status_code == 403  # not a student of that room


def test_a_foreign_origin_or_none_is_refused_and_nothing_changes(app, teacher) -> None:
    code = start_room(teacher)
    before = results(teacher, code)
    assert publish(teacher, code, START + "&ids=5", headers={"Origin": "https://evil.example"}).status_code == 403
    assert publish(teacher, code, START + "&ids=5", headers={}).status_code == 403
    assert teacher.post("/room", data={"from": START}, headers={"Origin": "https://evil.example"}).status_code == 403
    assert app.test_client().post("/join", data={"code": code}, headers={"Origin": "null"}).status_code == 403
    assert results(teacher, code) == before


def test_a_second_vote_replaces_the_first(app, teacher) -> None:
    code = start_room(teacher)
    url = step(teacher, code)
    student = join(app, code)
    assert student.post(f"/room/{code}/vote", data={"round": "1", "token": "5"}, headers=ORIGIN).status_code == 303
    assert student.post(f"/room/{code}/vote", data={"round": "1", "token": "9"}, headers=ORIGIN).status_code == 303
    assert results(teacher, code)["open_votes"] == 1
    reveal(teacher, code, url)
    assert results(teacher, code)["rounds"][0]["tally"] == {"9": 1}


def test_bad_votes_get_a_clear_4xx_and_change_nothing(app, teacher) -> None:
    code = start_room(teacher)
    url = step(teacher, code)
    student = join(app, code)
    vote = lambda **data: student.post(f"/room/{code}/vote", data=data, headers=ORIGIN)  # noqa: E731
    assert vote(round="1", token="999999").status_code == 400
    assert "not in the vocabulary" in vote(round="1", token="5000").get_data(as_text=True)
    assert vote(round="1", token="-3").status_code == 400
    assert vote(round="1", text="Mr.").status_code == 400
    assert vote(round="2", token="5").status_code == 409  # no such round open
    assert vote(token="5").status_code == 400
    assert vote(round=str(2**63), token="5").status_code == 400  # past the store's integers
    assert vote(round="9" * 4301, token="5").status_code == 400  # past Python's int() of a string
    assert results(teacher, code)["open_votes"] == 0
    assert (
        app.test_client().post(f"/room/{code}/vote", data={"round": "1", "token": "5"}, headers=ORIGIN).status_code
        == 403
    )  # not in the room
    assert vote(round="1", token="5").status_code == 303
    reveal(teacher, code, url)
    late = vote(round="1", token="7")
    assert late.status_code == 409 and "closed" in late.get_data(as_text=True)
    assert results(teacher, code)["rounds"][0]["tally"] == {"5": 1}


def test_a_typed_word_is_counted_as_its_token(app, teacher) -> None:
    code = start_room(teacher)
    url = step(teacher, code)
    student = join(app, code)
    answer = student.post(
        f"/room/{code}/vote", data={"round": "1", "text": "her"}, headers={**ORIGIN, "HX-Request": "true"}
    )
    assert answer.status_code == 200 and "'<strong class=\"tok\">her</strong>'" in answer.get_data(as_text=True)
    reveal(teacher, code, url)
    tally = results(teacher, code)["rounds"][0]["tally"]
    assert sum(tally.values()) == 1


def test_nicknames_and_guesses_are_shown_as_text(app, teacher) -> None:
    code = start_room(teacher)
    url = step(teacher, code)
    student = join(app, code, '<img src=x onerror="alert(1)">{{7*7}}')
    bad = student.post(f"/room/{code}/vote", data={"round": "1", "text": "<script>alert(1)</script>"}, headers=ORIGIN)
    assert bad.status_code == 400 and "<script>alert" not in bad.get_data(as_text=True)
    student.post(f"/room/{code}/vote", data={"round": "1", "token": "5"}, headers=ORIGIN)
    reveal(teacher, code, url)
    teacher.post(f"/room/{code}/settings", data={"leaderboard": "1"}, headers=ORIGIN)
    for page in (teacher.get(f"/room/{code}/teach"), student.get(f"/room/{code}")):
        html = page.get_data(as_text=True)
        assert "<img src=x" not in html and "&lt;img src=x onerror=" in html
        assert "49" not in re.findall(r"nick\">([^<]*)<", html)


def test_joining_is_bounded_and_failed_joins_are_rate_limited(app, teacher) -> None:
    code = start_room(teacher)
    for _ in range(3):
        join(app, code)
    full = app.test_client().post("/join", data={"code": code}, headers=ORIGIN)
    assert full.status_code == 409 and "full" in full.get_data(as_text=True)
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "192.0.2.77"  # its wrong codes count for its own network only
    answers = [guesser.post("/join", data={"code": "ABCD-EFGH"}, headers=ORIGIN).status_code for _ in range(5)]
    assert answers[:3] == [404, 404, 404] and answers[3:] == [429, 429]


def test_joining_again_keeps_the_same_student(app, teacher) -> None:
    code = start_room(teacher)
    student = join(app, code, "Anna")
    student.post("/join", data={"code": code, "nickname": "Anna B."}, headers=ORIGIN)
    assert results(teacher, code)["n_students"] == 1
    assert "Anna B." in student.get(f"/room/{code}").get_data(as_text=True)


def test_a_student_without_a_cookie_is_sent_to_the_join_form(app, teacher) -> None:
    code = start_room(teacher)
    answer = app.test_client().get(f"/room/{code}")
    assert answer.status_code == 303 and answer.headers["Location"] == f"/join?code={code}"
    form = app.test_client().get(f"/join?code={code}")
    assert f'value="{code}"' in form.get_data(as_text=True)


def test_the_room_qr_code_carries_the_join_address_only(app, teacher) -> None:
    code = start_room(teacher)
    svg = teacher.get(f"/room/{code}/qr.svg")
    assert svg.status_code == 200 and svg.headers["Content-Type"] == "image/svg+xml"


def test_the_start_button_is_on_the_stepper(client) -> None:
    html = client.get(START).get_data(as_text=True)
    assert 'action="/room"' in html and "Start a class room" in html


def test_a_teacher_who_has_the_room_qr_code_gets_a_304(teacher) -> None:
    code = start_room(teacher)
    first = teacher.get(f"/room/{code}/qr.svg")
    again = teacher.get(f"/room/{code}/qr.svg", headers={"If-None-Match": first.headers["ETag"]})
    assert (first.status_code, again.status_code, again.data) == (200, 304, b"")
    other = start_room(teacher)
    assert teacher.get(f"/room/{other}/qr.svg").headers["ETag"] != first.headers["ETag"]
