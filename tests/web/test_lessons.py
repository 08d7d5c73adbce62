"""Lessons on the web: opened from a file, listed, played alone and in a class room, printed, saved again.

The teacher's notes reach the teacher's own pages only: every byte a student's browser receives in a room that
plays the lesson is read for them.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3

import pytest

from webapp.lessons.lesson import FORMAT, MAX_BYTES, VERSION, dumps, parse
from webapp.web import create_app

from .markup import HTMX
from .markup import parse as parse_html
from .test_room import ORIGIN, join, results

NOTE = "NOTE-FOR-THE-TEACHER"
SCREENS = [
    {"title": "The bigram", "state": {"model": "austen-bigram", "prompt": "It is a truth", "temperature": "0.5"},
     "question": "Which word comes next?", "vote": False, "notes": f"{NOTE} one"},
    {"title": "Vote <b>now</b>", "state": {"model": "austen-transformer", "prompt": "The girl saw a", "seed": 44},
     "question": "Guess <script>alert(1)</script> the next word", "vote": True, "notes": f"{NOTE} two"},
    {"title": "A model this server lacks", "state": {"model": "no-such-model"}, "question": "Pieces?",
     "vote": False, "notes": f"{NOTE} three"},
    {"title": "Three tokens", "state": {"model": "article", "range_order": "vocabulary"},
     "question": "Which range does r = 0.25 fall in?", "vote": False, "notes": f"{NOTE} four"},
]


def lesson_json(**changes) -> str:
    raw = {"format": FORMAT, "version": VERSION, "title": "A test lesson", "lang": "en", "about": "For tests.",
           "screens": SCREENS}
    return json.dumps({**raw, **changes})


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


def upload(client, text: str | bytes, name: str = "my.lesson.json"):
    data = text.encode() if isinstance(text, str) else text
    return client.post("/lessons/open", data={"file": (io.BytesIO(data), name)}, headers=ORIGIN,
                       content_type="multipart/form-data")


@pytest.fixture(scope="module")
def kept(app) -> str:
    """The test lesson, opened: its address, /l/ID."""
    answer = upload(app.test_client(), lesson_json())
    assert answer.status_code == 303
    return answer.headers["Location"].split("?")[0]


def test_an_opened_file_is_kept_under_its_short_link_and_saved_back_the_same(app, kept) -> None:
    lesson = parse(lesson_json())
    assert kept == f"/l/{lesson.id}"
    saved = app.test_client().get(kept + "/file")  # another browser: no cookie, only the link
    assert saved.status_code == 200 and "attachment" in saved.headers["Content-Disposition"]
    assert saved.data.decode() == dumps(lesson) and parse(saved.data) == lesson
    assert upload(app.test_client(), saved.data).headers["Location"].split("?")[0] == kept  # the same lesson


def test_the_lesson_page_lists_every_screen_with_its_notes_and_says_which_cannot_be_shown(app, kept) -> None:
    page = app.test_client().get(kept)
    html = page.data.decode()
    assert page.status_code == 200 and html.count(NOTE) == 4
    assert "Vote &lt;b&gt;now&lt;/b&gt;" in html and "<script>alert" not in html
    screens = parse_html(html).find_all("li", cls="lesson-screen")
    assert ["unplayable" in s.classes for s in screens] == [False, False, True, False]
    assert "no-such-model" in screens[2].text()
    assert 'src="' + kept + '/qr.svg"' in html


def test_a_screen_played_alone_shows_its_question_not_its_notes_unless_in_the_teachers_view(app, kept) -> None:
    client = app.test_client()
    student = client.get(kept + "/1").data.decode()
    assert "Which word comes next?" in student and NOTE not in student
    assert 'href="' + kept + '/2"' in student and 'rel="prev"' not in student
    teacher = client.get(kept + "/1?view=teacher").data.decode()
    assert f"{NOTE} one" in teacher and 'href="' + kept + '/2?view=teacher"' in teacher


def test_a_voted_screen_played_alone_asks_for_a_guess_before_the_pick(app, kept) -> None:
    html = app.test_client().get(kept + "/2").data.decode()
    assert "Guess first" in html and 'name="predict"' in html and "Guess &lt;script&gt;" in html


def test_a_screen_this_server_cannot_show_says_why_and_the_lesson_goes_on(app, kept) -> None:
    page = app.test_client().get(kept + "/3")
    html = page.data.decode()
    assert page.status_code == 200 and "cannot be shown on this server" in html and "no-such-model" in html
    assert 'href="' + kept + '/4"' in html
    assert app.test_client().get(kept + "/4").status_code == 200


def test_a_screen_past_the_end_or_a_lesson_that_is_not_there_is_a_404(app, kept) -> None:
    client = app.test_client()
    assert client.get(kept + "/5").status_code == 404
    assert client.get(kept + "/0").status_code == 404
    assert client.get("/l/aaaaaaaaaa").status_code == 404
    assert client.get("/l/..%2F..%2Fetc").status_code == 404
    assert client.get("/lessons/no-such-lesson").status_code == 404


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"x" * (MAX_BYTES + 1), "at most 60 KB"),
        ("[" * 20_000 + "]" * 20_000, "nested deeper"),
        ("{ not json", "not JSON"),
        ('{"title": "slides"}', "not a lesson file"),
        (lesson_json(screens=[]), "1 to 40 screens"),
        (b"\xff\xfe\x00", "not text"),
    ],
)
def test_a_file_that_is_not_a_lesson_is_refused_and_nothing_is_kept(app, data, says) -> None:
    before = kept_lessons(app)
    answer = upload(app.test_client(), data)
    assert answer.status_code == 400 and says in answer.data.decode()
    assert kept_lessons(app) == before


def test_a_file_larger_than_a_request_may_be_is_refused_with_a_clear_message(app) -> None:
    answer = upload(app.test_client(), b" " * 70_000)
    assert answer.status_code == 413 and "too large" in answer.data.decode().lower()


def kept_lessons(app) -> list[str]:
    path = app.config["ROOM_STORE"].removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        return sorted(row[0] for row in db.execute("SELECT id FROM lessons"))


def test_a_newer_file_opens_with_a_note_and_plays_what_it_understands(app) -> None:
    answer = upload(app.test_client(), lesson_json(version=VERSION + 1, theme="dark"))
    html = app.test_client().get(answer.headers["Location"]).data.decode()
    assert "newer version of this app" in html and html.count("<li class=\"lesson-screen") == 4


def test_the_worksheet_has_each_question_a_figure_and_room_for_a_guess(app, kept) -> None:
    html = app.test_client().get(kept + "/worksheet").data.decode()
    assert html.count('class="worksheet-screen"') == 4 and NOTE not in html
    assert html.count("My guess:") == 4
    figure = app.test_client().get(kept + "/1/figure.svg")
    assert figure.status_code == 200 and figure.content_type.startswith("image/svg+xml")
    svg = figure.data.decode()
    assert svg.count("<rect") == 6 and "T = 0.5" in svg
    assert "cannot be shown" in app.test_client().get(kept + "/3/figure.svg").data.decode()


def test_the_figure_draws_the_probabilities_the_step_gives(app, kept) -> None:
    twin = app.test_client().get("/api/step?model=article&range_order=vocabulary").get_json()
    svg = app.test_client().get(kept + "/4/figure.svg").data.decode()
    rows = sorted(twin["rows"], key=lambda row: -row["prob"])
    shown = re.findall(r">([^<>]+)</text>\s*<rect[^>]*/>\s*<text[^>]*>([^<]+)</text>", svg)
    assert shown == [(row["token"], f"{100 * row['prob']:.1f} %") for row in rows], "each token beside its probability"


def test_the_bundled_lessons_are_listed_in_the_pages_language(app) -> None:
    html = app.test_client().get("/lessons").data.decode()
    assert 'href="/lessons/article' in html and 'action="/lessons/open' in html


# --- in a class room -----------------------------------------------------------------------------------------

def start_lesson_room(app, kept: str):
    teacher = app.test_client()
    first = "/?" + "&".join(f"{k}={v}" for k, v in SCREENS[0]["state"].items()).replace(" ", "+")
    answer = teacher.post("/room", data={"from": first, "lesson": "l:" + kept.split("/")[-1]}, headers=ORIGIN)
    assert answer.status_code == 303, answer.data
    return teacher, answer.headers["Location"].split("/")[2]


def go(teacher, code: str, n: int, **form):
    return teacher.post(f"/room/{code}/lesson/go", data={"to": str(n), **form}, headers=ORIGIN)


def every_byte(student, code: str) -> str:
    """What a student's browser receives: the page, the polled panels (page and htmx), their own part."""
    return "".join(student.get(url, headers=headers).data.decode()
                   for url in (f"/room/{code}", f"/room/{code}/screen", f"/room/{code}/me")
                   for headers in ({}, HTMX))


def test_a_room_plays_the_lesson_screen_by_screen_and_notes_never_reach_a_student(app, kept) -> None:
    teacher, code = start_lesson_room(app, kept)
    ada, bo = join(app, code, "Ada"), join(app, code, "Bo")
    teach = teacher.get(f"/room/{code}/teach").data.decode()
    assert f"{NOTE} one" in teach and "screen 1 of 4" in teach
    seen = every_byte(ada, code)
    assert "Which word comes next?" in seen and NOTE not in seen and "screen 1 of 4" not in seen
    assert 'href="/lessons' not in seen and 'href="/l/' not in seen, "no way from a student's page to the notes"
    assert not results(teacher, code)["round_open"]

    assert go(teacher, code, 2).status_code == 303  # a voted screen: class votes on, its round open at once
    opened = results(teacher, code)
    state = opened["state"]
    assert "austen-transformer" in state and "predict=1" in state and opened["round_open"]
    assert "ids=" in state and "reveal" not in state  # the pick taken, hidden from the class
    for student in (ada, bo):
        seen = every_byte(student, code)
        assert "Guess &lt;script&gt;alert(1)&lt;/script&gt; the next word" in seen and NOTE not in seen

    assert go(teacher, code, 3).status_code == 303  # the server lacks its model: the class keeps the screen
    assert results(teacher, code)["state"] == state
    teach = teacher.get(f"/room/{code}/teach").data.decode()
    assert "cannot be shown on this server" in teach and f"{NOTE} three" in teach
    assert "Pieces?" not in every_byte(ada, code)

    assert go(teacher, code, 4).status_code == 303
    assert "model=article" in results(teacher, code)["state"]
    assert "Which range does r = 0.25" in every_byte(bo, code)


def test_presenter_mode_shows_the_question_and_leaves_out_the_notes_and_the_count(app, kept) -> None:
    teacher, code = start_lesson_room(app, kept)
    html = teacher.get(f"/room/{code}/teach?present=1").data.decode()
    assert "Which word comes next?" in html and NOTE not in html and "screen 1 of 4" not in html
    assert 'data-lesson-key="PageDown"' in html


def test_moving_in_a_lesson_is_the_teachers_alone_and_a_bad_screen_number_is_refused(app, kept) -> None:
    teacher, code = start_lesson_room(app, kept)
    student = join(app, code)
    assert go(student, code, 2).status_code in (401, 403)
    assert go(teacher, code, 9).status_code == 409
    assert go(teacher, code, 0).status_code == 400
    assert teacher.post(f"/room/{code}/lesson/go", data={"to": "x"}, headers=ORIGIN).status_code == 400
    assert teacher.post(f"/room/{code}/lesson/go", data={"to": "2"}).status_code in (400, 403)  # no Origin
    assert "model=austen-bigram" in results(teacher, code)["state"]


def test_a_room_starts_a_bundled_lesson_or_one_pasted_by_its_link_and_stops_it(app, kept) -> None:
    teacher = app.test_client()
    answer = teacher.post("/room", data={"from": "/"}, headers=ORIGIN)
    code = answer.headers["Location"].split("/")[2]
    link = "http://school.example" + kept
    assert teacher.post(f"/room/{code}/lesson", data={"link": link}, headers=ORIGIN).status_code == 303
    assert "screen 1 of 4" in teacher.get(f"/room/{code}/teach").data.decode()
    assert teacher.post(f"/room/{code}/lesson", data={"stop": "1"}, headers=ORIGIN).status_code == 303
    assert "screen 1 of" not in teacher.get(f"/room/{code}/teach").data.decode()
    assert teacher.post(f"/room/{code}/lesson", data={"lesson": "article"}, headers=ORIGIN).status_code == 303
    assert "model=article" in results(teacher, code)["state"]
    assert teacher.post(f"/room/{code}/lesson", data={"link": "/l/zzzzzzzzzz"}, headers=ORIGIN).status_code == 404
    assert teacher.post(f"/room/{code}/lesson", data={}, headers=ORIGIN).status_code == 400


def small_app(tmp_path, **config):
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{tmp_path / 'rooms.sqlite3'}", **config})


def test_the_lessons_kept_are_bounded_in_number(tmp_path) -> None:
    client = small_app(tmp_path, LESSON_MAX_KEPT=2).test_client()
    texts = [lesson_json(title=f"Lesson {n}") for n in range(3)]
    assert [upload(client, t).status_code for t in texts[:2]] == [303, 303]
    assert upload(client, texts[0]).status_code == 303  # kept already: kept longer, never refused
    full = upload(client, texts[2])
    assert full.status_code == 503 and "as many lessons as it may" in full.data.decode()


def test_one_network_may_open_so_many_new_lessons_an_hour(tmp_path) -> None:
    client = small_app(tmp_path, LESSON_MAX_KEPT=1, LESSON_KEEPS_PER_HOUR=2).test_client()
    texts = [lesson_json(title=f"Lesson {n}") for n in range(3)]
    assert [upload(client, t).status_code for t in texts] == [303, 503, 503]  # a refusal spends nothing
    assert [upload(client, t).status_code for t in texts[:1]] == [303]
    client = small_app(tmp_path / "b", LESSON_KEEPS_PER_HOUR=2).test_client()
    assert [upload(client, t).status_code for t in texts] == [303, 303, 429]
    assert "too many lessons" in upload(client, texts[2]).data.decode()


def test_two_voted_screens_on_the_same_step_are_two_rounds(app) -> None:
    article = {"model": "article", "range_order": "vocabulary"}
    screens = [{"title": "r = 0.1", "state": {**article, "r": "0.1"}, "question": "A, B or C?", "vote": True},
               {"title": "r = 0.3", "state": {**article, "r": "0.3"}, "question": "And now?", "vote": True}]
    found = upload(app.test_client(), lesson_json(screens=screens)).headers["Location"].split("?")[0]
    teacher = app.test_client()
    answer = teacher.post("/room", data={"from": "/?model=article", "lesson": "l:" + found.split("/")[-1]},
                          headers=ORIGIN)
    code = answer.headers["Location"].split("/")[2]
    ada = join(app, code, "Ada")
    first = results(teacher, code)
    assert first["round_open"] and "ids=1" in first["state"]  # r = 0.1 picks B, hidden
    assert ada.post(f"/room/{code}/vote", data={"round": str(first["round"]), "token": "1"},
                    headers=ORIGIN).status_code in (200, 303)
    assert go(teacher, code, 2).status_code == 303
    second = results(teacher, code)
    assert second["round_open"] and second["round"] == first["round"] + 1 and "ids=2" in second["state"]
    assert second["open_votes"] == 0, "the second question starts with no votes"
    assert [k["round"] for k in second["kept"]] == [first["round"]], "the first question's vote is kept"


def test_a_screen_meant_for_the_projector_is_a_students_own_screen_when_played_alone(app) -> None:
    screens = [{"title": "Big", "state": {"model": "austen-bigram", "present": "1"}, "question": "Q?"}]
    found = upload(app.test_client(), lesson_json(screens=screens)).headers["Location"].split("?")[0]
    student = app.test_client().get(found + "/1").data.decode()
    teacher = app.test_client().get(found + "/1?view=teacher").data.decode()
    assert 'class="stepper"' in student and 'class="stepper present"' in teacher
