"""Each student reads the teacher's screen in their own language, and the room's messages are translated."""

from __future__ import annotations

import re

import pytest

from webapp.web import create_app

from .test_room import START, join, start_room, step

PERCENT_DE = re.compile(r"\d,\d\xa0%")
PERCENT_EN = re.compile(r"\d\.\d %")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


def test_students_in_two_languages_each_get_the_screen_in_their_own(app):
    teacher = app.test_client()
    code = start_room(teacher, votes=False)
    step(teacher, code, START)
    german, english = join(app, code), join(app, code)
    for _ in range(2):  # the second answers come from the kept screens: each language keeps its own
        de = german.get(f"/room/{code}/screen", headers={"Accept-Language": "de"}).get_data(as_text=True)
        en = english.get(f"/room/{code}/screen", headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert PERCENT_DE.search(de) and not PERCENT_EN.search(de)
        assert PERCENT_EN.search(en) and not PERCENT_DE.search(en)
    by_lang = german.get(f"/room/{code}/screen?lang=fr", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert PERCENT_DE.search(by_lang), "lang= in the address wins, as on the stepper (French: 11,0 %)"


def test_a_wrong_room_code_is_explained_in_the_page_language(app):
    student = app.test_client()
    answer = student.post(
        "/join", data={"code": "ZZZZ-ZZZZ"}, headers={"Origin": "http://localhost", "Accept-Language": "es"}
    )
    assert answer.status_code == 404
    assert "No hay ninguna sala abierta con ese código" in answer.get_data(as_text=True)


def test_a_room_started_in_a_language_keeps_it_on_the_teachers_pages(app):
    teacher = app.test_client()
    answer = teacher.post("/room", data={"from": START + "&lang=fr"}, headers={"Origin": "http://localhost"})
    assert answer.status_code == 303 and "lang=fr" in answer.headers["Location"].split("?")[1].split("&")
    page = teacher.get(answer.headers["Location"]).get_data(as_text=True)
    assert '<html lang="fr">' in page
    outside_switcher = re.sub(r'<nav id="languages".*?</nav>', "", page, flags=re.S)
    links = re.findall(r'(?:href|src|action|hx-get|hx-post)="(/room/[^"]+)"', outside_switcher)
    assert links and all("lang=fr" in link for link in links), links


def test_a_student_explores_in_their_own_language_not_the_teachers(app):
    teacher = app.test_client()
    code = start_room(teacher, votes=False)
    step(teacher, code, START + "&lang=fr")
    student = join(app, code)
    page = student.get(f"/room/{code}?lang=es").get_data(as_text=True)
    assert '<html lang="es">' in page
    explore = re.search(r'<a[^>]+href="(/[^"]*ids=[^"]*)"', page).group(1)
    outside_switcher = re.sub(r'<nav id="languages".*?</nav>', "", page, flags=re.S)
    assert "lang=es" in explore and "lang=fr" not in outside_switcher


def test_the_teachers_page_keeps_its_language_after_a_settings_change(app):
    teacher = app.test_client()
    start = teacher.post("/room", data={"from": START + "&lang=de"}, headers={"Origin": "http://localhost"})
    page = teacher.get(start.headers["Location"]).get_data(as_text=True)
    action = re.search(r'action="(/room/[^"]+/settings[^"]*)"', page).group(1).replace("&amp;", "&")
    answer = teacher.post(action, data={"votes_on": "1"}, headers={"Origin": "http://localhost"})
    assert answer.status_code == 303 and "lang=de" in answer.headers["Location"]
    assert '<html lang="de">' in teacher.get(answer.headers["Location"]).get_data(as_text=True)
