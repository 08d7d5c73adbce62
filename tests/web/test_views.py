"""The student's view and the teacher's: what "More" folds, and view=teacher kept through every action and link.

The student's view (the default) folds what a first-time student does not need under a closed "More": the
seed, the penalties and the ranges' order, the model's perplexity, the teacher's r, predict-then-reveal and the
presenter-mode link. The teacher's view (view=teacher) sends the same fold open; presenter mode folds nothing.
A shared link, its QR code and a class room's students always get the student's view.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .markup import HTMX, Element, hidden_fields, parse, query_of, seen_words
from .models import bigram

ORIGIN = {"Origin": "http://127.0.0.1:5000"}
BASE_URL = "http://127.0.0.1:5000"
# Under More, by the id of each control (the predict box and the presenter link have none: found by name).
FOLDED = ("seed", "seed-hint", "repetition_penalty", "presence_penalty", "frequency_penalty", "range_order",
          "model-measure", "next-r")
# Kept in sight of a student.
IN_SIGHT = ("temperature", "top_k", "top_p", "min_p", "model", "play", "view-link")


def url(path: str = "/", **params: str) -> str:
    return path + "?" + urlencode(bigram(prompt="Mr. Darcy", **params))


def get(client, path: str = "/", headers: dict | None = None, **params: str) -> Element:
    answer = client.get(url(path, **params), headers=headers or {}, follow_redirects=True)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    return parse(answer.data)


def more(doc: Element) -> Element:
    fold = doc.by_id("more")
    assert fold is not None, "no More"
    return fold


def controls_outside_more(doc: Element) -> set[str]:
    inside = {e.attrs.get("id") for e in more(doc).iter()}
    ids = {e.attrs.get("id") for e in doc.by_id("controls-panel").iter()}
    return ids - inside - {None}


def presenter_link(fold: Element) -> Element | None:
    return next((a for a in fold.find_all("a") if a.text() == "Presenter mode"), None)


def test_the_students_view_folds_the_seed_the_penalties_and_the_classroom_controls_under_a_closed_more(client):
    doc = get(client, ids="5,6")
    fold = more(doc)
    assert fold.tag == "details" and "open" not in fold.attrs
    assert fold.find("summary").text() == "More"
    inside = {e.attrs.get("id") for e in fold.iter()}
    assert set(FOLDED) <= inside
    assert seen_words(fold.find("p", "model-measure")) == "Held-out perplexity 131.3."
    assert any(e.attrs.get("name") == "predict" for e in fold.find_all("input"))
    assert presenter_link(fold) is not None
    assert set(IN_SIGHT) <= controls_outside_more(doc)
    assert {b.attrs.get("data-control") for b in doc.by_id("controls-panel").find_all("button")} >= {
        "step", "back", "reset"}
    assert doc.by_id("prompt") is not None and "Held-out" not in doc.find("p", "model-description").text()


def test_the_teachers_view_sends_more_open(client):
    fold = more(get(client, ids="5,6", view="teacher"))
    assert fold.tag == "details" and "open" in fold.attrs
    assert set(FOLDED) <= {e.attrs.get("id") for e in fold.iter()} and presenter_link(fold) is not None


@pytest.mark.parametrize("view", ["", "teacher"])
def test_presenter_mode_folds_nothing(client, view):
    doc = get(client, ids="5", present="1", view=view)
    assert more(doc).tag == "div" and not any(s.text() == "More" for s in doc.find_all("summary"))
    assert doc.by_id("view-link").find("a") is None  # as before: no new link on the projector
    assert [a.text() for a in doc.by_id("controls-panel").find_all("a")] == ["Leave presenter mode"]


def test_the_link_under_the_controls_switches_view_and_keeps_the_screen(client):
    student = get(client, ids="5,6", temperature="0.7")
    link = student.by_id("view-link").find("a")
    assert link.text() == "Teacher's view"
    assert query_of(link.attrs["href"]) == {**bigram(prompt="Mr. Darcy"), "temperature": "0.7", "seed": "1",
                                            "ids": "5,6", "view": "teacher"}
    teacher = parse(client.get(link.attrs["href"]).data)
    back = teacher.by_id("view-link").find("a")
    assert back.text() == "Student's view" and "view" not in query_of(back.attrs["href"])
    assert "open" in more(teacher).attrs and "open" not in more(parse(client.get(back.attrs["href"]).data)).attrs


@pytest.mark.parametrize("path", ["/step", "/back", "/reset", "/"])
def test_view_teacher_survives_every_action(client, path):
    """Step, Back, Reset and a setting (here the temperature, through `/`): the hidden field, the links, the address."""
    params = {"ids": "5,6", "view": "teacher", "temperature": "0.5"}
    answer = client.get(url(path, **params), headers=HTMX)
    assert answer.status_code == 200
    doc = parse(answer.data)
    assert hidden_fields(doc)["view"] == "teacher"
    assert query_of(doc.by_id("view-link").find("a").attrs["href"]).get("view") is None  # the way back
    folds = [a.attrs["href"] for a in doc.find_all("a", "fold-link")]
    assert folds and all(query_of(href)["view"] == "teacher" for href in folds)
    address = answer.headers.get("HX-Push-Url") or answer.headers.get("HX-Replace-Url")
    assert query_of(address)["view"] == "teacher"
    page = client.get(url(path, **params), follow_redirects=True)  # without JavaScript: the form, then a reload
    assert "open" in more(parse(page.data)).attrs and query_of(page.request.url)["view"] == "teacher"


def test_the_students_view_sends_no_view_field(client):
    doc = parse(client.get(url("/step", ids="5"), headers=HTMX).data)
    assert "view" not in hidden_fields(doc)
    assert query_of(doc.by_id("view-link").find("a").attrs["href"])["view"] == "teacher"


def test_the_share_link_and_the_qr_code_give_the_students_view(client):
    doc = get(client, ids="5,6", view="teacher")
    link = doc.by_id("share-link").attrs["value"]
    assert "view" not in query_of(link)
    shared = parse(client.get(link.removeprefix("http://localhost")).data)
    assert "open" not in more(shared).attrs
    qr = doc.by_id("share").find("img").attrs["src"]
    assert query_of(qr)["view"] == "teacher"  # the screen's own link: the answer draws the students'
    assert client.get(qr).data == client.get(url("/qr.svg", ids="5,6")).data


@pytest.mark.parametrize("value", ["", "student", "Student", " teacher ", "TEACHER"])
def test_a_view_is_read_as_the_flags_are(client, value):
    doc = get(client, view=value)
    assert ("open" in more(doc).attrs) == (value.strip().lower() == "teacher")


@pytest.mark.parametrize("value", ["1", "teachers", "presenter", "x" * 200])
def test_any_other_view_is_a_400_that_says_which(client, value):
    answer = client.get(url("/", view=value))
    assert answer.status_code == 400
    assert "view must be student or teacher, not " + repr(value[:20]) in parse(answer.data).text()


def test_the_cache_keeps_the_views_apart_and_view_student_with_the_default(app):
    cache = app.extensions["response_cache"]
    client = app.test_client()
    student = client.get(url("/", ids="5", seed="31"))
    teacher = client.get(url("/", ids="5", seed="31", view="teacher"))
    assert teacher.data != student.data
    assert "open" in more(parse(teacher.data)).attrs
    # Each view is kept as an entry of its own (counted by hits: the session's cache may be full, and evicting
    # an old entry for each new one leaves its length as it was).
    hits = cache.hits
    assert client.get(url("/", ids="5", seed="31", view="teacher")).data == teacher.data
    assert cache.hits == hits + 1
    again = client.get(url("/", ids="5", seed="31", view="student"))
    assert cache.hits == hits + 2 and again.data == student.data


def hints(doc: Element) -> list[Element]:
    return doc.by_id("guide").find("ol", "guide-hints").find_all("li")


def test_the_students_guide_follows_the_loop_and_names_top_k_top_p_and_the_seed(client):
    doc = get(client, guide="1")
    texts = [h.text() for h in hints(doc)]
    assert [t.split(":")[0] for t in texts if t.startswith("Stage")] == [
        "Stage 1", "Stage 2, the forward pass", "Stage 3", "Stage 4", "Stage 5"]
    assert any("Top-k" in t and "Top-p" in t for t in texts)
    assert any("Seed" in t and "More" in t for t in texts)
    assert not any("Presenter mode" in t or "QR code" in t for t in texts)
    assert all(doc.by_id(h.attrs["data-target"]) is not None for h in hints(doc))


def test_the_teachers_guide_names_presenter_mode_the_qr_code_and_the_class_room(client):
    doc = get(client, guide="1", view="teacher")
    texts = [h.text() for h in hints(doc)]
    assert doc.by_id("guide-heading").text() == "The teacher's tools, one at a time"
    for name in ("Presenter mode", "QR code", "Start a class room", "Predict, then reveal"):
        assert any(name in t for t in texts), name
    assert not any(t.startswith("Stage") for t in texts)
    assert all(doc.by_id(h.attrs["data-target"]) is not None for h in hints(doc))


def test_the_class_rooms_teacher_gets_the_teachers_view_and_its_students_the_students(app):
    teacher = app.test_client()
    screen = url("/", ids="5", view="teacher")
    answer = teacher.post("/room", data={"from": screen}, headers=ORIGIN, base_url=BASE_URL)
    code = answer.headers["Location"].split("/")[2]
    page = parse(teacher.get(f"/room/{code}/teach", base_url=BASE_URL).data)
    assert "open" in more(page).attrs and hidden_fields(page)["view"] == "teacher"
    stepped = teacher.get(url("/step", ids="5", view="teacher"), headers=HTMX, base_url=BASE_URL)
    pushed = stepped.headers["HX-Push-Url"]
    assert query_of(pushed)["view"] == "teacher"
    published = teacher.post(f"/room/{code}/state", data={"url": pushed, "action": "step"}, headers=ORIGIN,
                             base_url=BASE_URL)
    assert published.status_code == 200
    stored = teacher.get(f"/room/{code}/results.json", base_url=BASE_URL).get_json()["state"]
    assert "ids=" in stored and "view" not in query_of("/?" + stored)
    student = app.test_client()
    assert student.post("/join", data={"code": code}, headers=ORIGIN, base_url=BASE_URL).status_code == 303
    follow = student.get(f"/room/{code}", base_url=BASE_URL)
    assert follow.status_code == 200 and b"view=teacher" not in follow.data
    page = parse(teacher.get(f"/room/{code}/teach", base_url=BASE_URL).data)
    assert "open" in more(page).attrs  # the teacher's page again, from the stored screen
