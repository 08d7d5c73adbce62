"""A room's screen is built once per version for the whole class: a student's reload costs what a poll costs.

The teacher's screen, as students see it (the forward pass and the panels' views), is kept by each
process per (room, version, language); each student's own part (their nickname, vote and record) is
read for their request. build_screen is counted by wrapping the real one.
"""

from __future__ import annotations

import pytest

from webapp.web import create_app
from webapp.web.routes import room_students

from .markup import parse

ORIGIN = {"Origin": "http://localhost"}
START = "/?prompt=The+girl+saw+a&seed=44"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """Every computing request is heavy here (HEAVY_SECONDS 0): one that is charged waits for the slot."""
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}", "HEAVY_SECONDS": 0.0})


@pytest.fixture
def builds(monkeypatch) -> list:
    """The states room_students.build_screen is called with, the real one answering."""
    calls = []
    real = room_students.build_screen

    def counting(models, state, *args, **kwargs):
        calls.append(state)
        return real(models, state, *args, **kwargs)

    monkeypatch.setattr(room_students, "build_screen", counting)
    return calls


def start_room(app):
    teacher = app.test_client()
    answer = teacher.post("/room", data={"from": START}, headers=ORIGIN)
    assert answer.status_code == 303
    return teacher, answer.headers["Location"].split("/")[2]


def join(app, code: str, nickname: str):
    student = app.test_client()
    assert student.post("/join", data={"code": code, "nickname": nickname}, headers=ORIGIN).status_code == 303
    return student


def next_screen(teacher, code: str, url: str) -> None:
    """The teacher steps: the room stores a new screen, a new version."""
    pushed = teacher.get("/step?" + url.split("?", 1)[1], headers={"HX-Request": "true"}).headers["HX-Push-Url"]
    answer = teacher.post(f"/room/{code}/state", data={"url": pushed, "action": "step"}, headers=ORIGIN)
    assert answer.status_code == 200


def whose(page: str) -> str:
    return parse(page).by_id("me-heading").text()


def test_students_reloads_build_the_teacher_s_screen_once_per_version(app, builds):
    teacher, code = start_room(app)
    students = [join(app, code, name) for name in ("Ada", "Bo", "Cy")]
    for _ in range(3):
        for student in students:
            assert student.get(f"/room/{code}").status_code == 200
    assert students[0].get(f"/room/{code}/screen").status_code == 200, "a poll shares it too"
    assert len(builds) == 1
    next_screen(teacher, code, START)
    for student in students:
        assert student.get(f"/room/{code}").status_code == 200
    assert len(builds) == 2, "a new version: built once more"
    assert students[0].get(f"/room/{code}?lang=de").status_code == 200
    assert len(builds) == 3 and builds[-1].lang == "de", "in another language: its own"


def test_each_student_s_own_part_is_theirs_on_a_kept_screen(app, builds):
    _teacher, code = start_room(app)
    ada, bo = join(app, code, "Ada"), join(app, code, "Bo")
    assert whose(ada.get(f"/room/{code}").get_data(as_text=True)).startswith("Ada")
    assert whose(bo.get(f"/room/{code}").get_data(as_text=True)).startswith("Bo")
    assert len(builds) == 1


def test_a_reload_of_a_kept_screen_is_not_charged(app):
    teacher, code = start_room(app)
    student = join(app, code, "Ada")
    slots = app.extensions["heavy_slots"]
    assert slots.acquire(blocking=False)
    try:
        assert student.get(f"/room/{code}").status_code == 503, "the first builds it: charged, and the slot is taken"
    finally:
        slots.release()
    assert student.get(f"/room/{code}").status_code == 200
    assert slots.acquire(blocking=False)
    try:
        assert student.get(f"/room/{code}").status_code == 200, "kept: nothing to compute, nothing charged"
    finally:
        slots.release()
    next_screen(teacher, code, START)
    assert slots.acquire(blocking=False)
    try:
        assert student.get(f"/room/{code}").status_code == 503, "a new version is built, and charged"
    finally:
        slots.release()
