"""A teacher's pages and a student's own are stored by no browser cache or proxy; shared screens are not marked."""

from __future__ import annotations

ORIGIN = {"Origin": "http://localhost"}


def start_room(client) -> str:
    return client.post("/room", data={"from": "/"}, headers=ORIGIN).headers["Location"].split("/")[2]


def test_the_teachers_pages_say_private_no_store(app):
    teacher = app.test_client()
    code = start_room(teacher)
    for path in ("teach", "panel", "live", "results.json"):
        answer = teacher.get(f"/room/{code}/{path}")
        assert answer.status_code == 200, path
        assert answer.headers["Cache-Control"] == "private, no-store", path


def test_a_students_pages_say_private_no_store_and_the_classs_poll_revalidates(app):
    code = start_room(app.test_client())
    student = app.test_client()
    student.post("/join", data={"code": code, "nickname": "Ada"}, headers=ORIGIN)
    for path in (f"/room/{code}", f"/room/{code}/me", f"/join?code={code}"):
        answer = student.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["Cache-Control"] == "private, no-store", path
    assert student.get(f"/room/{code}/screen").headers["Cache-Control"] == "no-cache"  # one room, its ETag


def test_a_screen_anyone_may_share_is_not_marked_private(client):
    assert "Cache-Control" not in client.get("/?prompt=It+is").headers
