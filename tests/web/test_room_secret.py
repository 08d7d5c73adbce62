"""While the class votes, nothing a student receives names the pending pick; Reveal lets it out.

Every answer a student's browser gets during an open round (their page, the polled panels, their own part,
the answers to a vote, in English and German, with and without htmx) is read whole: every address, form field
and attribute that holds a list of ids ends at the revealed text, the text so far shows '?' where the pick
will be, and no title names it. Exploring on one's own starts from the revealed text, with an r of its own.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient

from webapp.inference import Settings, run_step_table
from webapp.web import create_app

from .markup import HTMX, Element, hidden_fields, parse, query_of
from .test_room import ORIGIN, join, publish, push, results, start_room

PROMPT = "The girl saw a"
START = "/?prompt=The+girl+saw+a&seed=44&predict=1"
IDS_IN_TEXT = re.compile(r"(?:\bids=|name=\"ids\" value=\")([0-9,%C]*)")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


@pytest.fixture(scope="module")
def model(app):
    return app.extensions["models"]["austen-transformer"]


def teacher_steps(teacher, code: str, url: str) -> str:
    """The teacher presses Step (the room opens a round on the hidden pick); the stepper URL pushed."""
    url = push(teacher, "/step", url)
    assert publish(teacher, code, url, "step").status_code == 200
    return url


def teacher_reveals(teacher, code: str) -> str:
    url = push(teacher, "/", "/?" + results(teacher, code)["state"] + "&reveal=1")
    assert publish(teacher, code, url).status_code == 200
    return url


def ids_of_state(teacher, code: str) -> list[int]:
    return [int(i) for i in query_of("/?" + results(teacher, code)["state"]).get("ids", "").split(",") if i]


class Round(NamedTuple):
    teacher: FlaskClient
    student: FlaskClient
    code: str
    revealed: list[int]  # the ids of the text the class has seen
    pick: int  # the hidden one
    text: list[str]  # the generated tokens as the text so far showed them when the class last saw it


def open_round(app, settings: str = "", typed: bool = False) -> Round:
    """A room whose teacher revealed two steps and stepped a third (by an r typed, if `typed`)."""
    teacher = app.test_client()
    code = start_room(teacher)
    student = join(app, code, "Ada")
    url = START + settings
    for _ in range(2):
        teacher_steps(teacher, code, url)
        url = teacher_reveals(teacher, code)
    revealed = ids_of_state(teacher, code)
    text = generated_text(parse(teacher.get(url).data))
    teacher_steps(teacher, code, url + ("&r=0.25" if typed else ""))
    *before, pick = ids_of_state(teacher, code)
    assert before == revealed and len(revealed) == 2 and results(teacher, code)["round_open"]
    return Round(teacher, student, code, revealed, pick, text)


def everything_a_student_receives(student, code: str) -> list:
    """Every answer a student's browser gets in a round: page, polls, own part, votes; English and German."""
    vote_token = parse(student.get(f"/room/{code}").data).find("button", "ballot-token").attrs["value"]
    answers = []
    for lang, header in ((None, {}), (None, {"Accept-Language": "de"}), ("de", {}), ("en", {})):
        query = f"?lang={lang}" if lang else ""
        for extra in ({}, HTMX):
            headers = {**header, **extra}
            answers += [
                student.get(f"/room/{code}{query}", headers=headers),
                student.get(f"/room/{code}/screen{query}", headers=headers),
                student.get(f"/room/{code}/me{query}", headers=headers),
            ]
    vote = f"/room/{code}/vote"
    answers += [
        student.post(vote, data={"round": "3", "text": "Mr."}, headers={**ORIGIN, **HTMX}),  # refused: 2 tokens
        student.post(vote, data={"round": "3", "token": vote_token}, headers={**ORIGIN, **HTMX}),
        student.post(vote, data={"round": "3", "text": "Mr."}, headers=ORIGIN),
        student.post(vote, data={"round": "3", "token": vote_token}, headers=ORIGIN),
    ]
    answers.append(student.get(answers[-1].headers["Location"]))  # where a vote without JavaScript leads
    return answers


def ids_lists(doc: Element) -> list[list[int]]:
    """Every list of ids the answer holds: in each attribute's address (href, action, hx-get, data-*...), and in
    each form's `ids` field."""
    lists = []
    for element in doc.iter():
        for name, value in element.attrs.items():
            if not value:
                continue
            if name == "name" and value == "ids":
                lists.append(value_ids(element.attrs.get("value") or ""))
            for key in ("ids", "src"):  # src: how each id was picked, the pick's typed r too
                for found in parse_qs(urlsplit(value).query).get(key, []):
                    lists.append(value_ids(found) if key == "ids" else [0] * len(found.split(",")))
    return lists


def value_ids(text: str) -> list[int]:
    return [int(i) for i in text.split(",") if i]


def generated_text(doc: Element) -> list[str]:
    """The generated tokens the text so far shows, as its buttons (and a student's '?') read."""
    text = doc.find("p", "text-so-far")
    return [e.text() for e in text.iter() if "gen" in e.classes] if text is not None else []


def text_at_top(doc: Element) -> list[str]:
    """The generated tokens the text so far near the top of a student's screen shows (#text-now)."""
    block = doc.by_id("text-now")
    return [e.text() for e in block.iter() if "gen" in e.classes] if block is not None else []


@pytest.mark.parametrize(
    ("settings", "typed"),
    [("", False), ("", True), ("&inside=1&surprise=1&many=100", False), ("&top_k=5&temperature=0.7", False)],
)
def test_no_byte_a_student_receives_holds_the_pick_until_reveal(app, settings, typed):
    teacher, student, code, revealed, pick, text = open_round(app, settings, typed)
    answers = everything_a_student_receives(student, code)
    assert all(a.status_code in (200, 303, 400) for a in answers), [a.status_code for a in answers]
    assert any(a.status_code == 400 for a in answers), "a refused vote is read too"
    seen_lists = tops = 0
    for answer in answers:
        raw = answer.get_data(as_text=True) + str(answer.headers)
        for found in IDS_IN_TEXT.findall(raw.replace("%2C", ",")):
            ids = value_ids(found)
            assert len(ids) <= len(revealed) and ids == revealed[: len(ids)], found
        doc = parse(raw)
        for ids in ids_lists(doc):
            seen_lists += 1
            assert len(ids) <= len(revealed) and ids == revealed[: len(ids)], (ids, revealed, pick)
        chips = doc.find_all("li", "chip-generated")
        if chips:
            assert chips[-1].text().strip() == "?" and not re.search(r"\d", chips[-1].attrs["title"]), "its id"
        if doc.find("p", "text-so-far") is not None:
            assert generated_text(doc) == [*text, "?"]
        if doc.by_id("text-now") is not None:
            tops += 1
            assert text_at_top(doc) == [*text, "?"], "the text at the top is the panel's, '?' where the pick will be"
    assert seen_lists > 20, "the answers hold links and fields to read"
    assert tops == 17, "every page and poll (4 ways to a language, with and without htmx), and where a vote leads back"

    shown = generated_text(parse(teacher.get(teacher_reveals(teacher, code)).data))  # Reveal lets the pick out
    assert shown[:-1] == text and shown[-1] != "?"
    for lang in ("en", "de"):
        doc = parse(student.get(f"/room/{code}?lang={lang}").data)
        assert [*revealed, pick] in ids_lists(doc) and generated_text(doc) == shown == text_at_top(doc)
        assert value_ids(query_of(doc.find("a", "room-explore").attrs["href"])["ids"]) == [*revealed, pick]


def test_exploring_on_one_s_own_during_a_vote_starts_from_the_revealed_text_with_an_r_of_its_own(app, model):
    teacher, student, code, revealed, pick, text = open_round(app)
    page = parse(student.get(f"/room/{code}").data)
    explore = page.find("a", "room-explore").attrs["href"]
    query = query_of(explore)
    assert urlsplit(explore).path == "/" and value_ids(query["ids"]) == revealed
    assert query["reveal"] == "1", "the last revealed step is shown as the class saw it"
    teachers_r = run_step_table(model, PROMPT, revealed, Settings(temperature=1.0, seed=44)).r
    assert float(query["r"]) != teachers_r, "the seeded r would pick the teacher's token again"
    screen = parse(student.get(explore).data)
    assert value_ids(hidden_fields(screen)["ids"]) == revealed
    assert generated_text(screen) == text
    stepped = student.get(explore.replace("/?", "/step?", 1).replace("&predict=1", ""))
    assert stepped.status_code in (200, 303)  # their own Step: r as the link says, from the same distribution


def test_a_student_s_hidden_pick_is_no_button_to_a_step_the_form_does_not_hold(app):
    teacher, student, code, *_ = open_round(app)
    text = parse(student.get(f"/room/{code}").data).find("p", "text-so-far")
    buttons = [b.attrs["value"] for b in text.find_all("button")]
    assert buttons == ["0", "1"], "the revealed tokens show their steps again; the '?' is no button"
    teacher_page = parse(teacher.get(f"/room/{code}/teach").data).find("p", "text-so-far")
    assert [b.attrs["value"] for b in teacher_page.find_all("button")] == ["0", "1", "2"], "the teacher's as it was"
