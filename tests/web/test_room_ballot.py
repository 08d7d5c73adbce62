"""The student's ballot: the tokens it offers, the vote it marks, and the words it says when a vote is refused.

No <unk> among the buttons (and none counted if sent anyway); the student's own vote pressed on their page
and named by id in the answer to a vote sent with htmx (room.js marks its button from it); a refusal that says
what became of the vote (none counted, or the one before still standing), never the stepper's "Not changed:",
taken away by the next vote that gets through; the note about class votes only while they are off.
"""

from __future__ import annotations

import pytest

from webapp.web import create_app

from .markup import HTMX, Element, parse, words
from .test_room import ORIGIN, START, join, results, start_room, step

NOT_YET = "When the teacher turns on class votes"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


@pytest.fixture
def voting(app):
    """A room with a vote open on its first step, and a student in it: (teacher, student, code)."""
    teacher = app.test_client()
    code = start_room(teacher)
    step(teacher, code)
    return teacher, join(app, code, "Ada"), code


def buttons(doc: Element) -> list[Element]:
    return doc.by_id("ballot").find_all("button", "ballot-token")


def vote(student, code: str, htmx: bool = True, **data):
    headers = {**ORIGIN, **HTMX} if htmx else ORIGIN
    return student.post(f"/room/{code}/vote", data={"round": "1", **data}, headers=headers)


def test_the_ballot_offers_no_unk_and_a_vote_for_it_is_not_counted(app, voting):
    teacher, student, code = voting
    unk = app.extensions["models"]["austen-transformer"].tokenizer.unk_id
    assert f"ids={unk}" not in results(teacher, code)["state"]  # <unk> is among this step's top tokens...
    offered = [b.attrs["value"] for b in buttons(parse(student.get(f"/room/{code}").data))]
    assert len(offered) == 8 and str(unk) not in offered  # ...and not on the ballot, which still offers 8
    refused = vote(student, code, token=str(unk))
    assert refused.status_code == 400 and "not a token to vote for" in words(parse(refused.data))
    assert results(teacher, code)["open_votes"] == 0


def test_a_students_vote_is_marked_on_their_page_and_named_in_the_answer_to_it(app, voting):
    teacher, student, code = voting
    before = buttons(parse(student.get(f"/room/{code}").data))
    assert [b.attrs["aria-pressed"] for b in before] == ["false"] * 8
    choice = before[2].attrs["value"]
    answer = parse(vote(student, code, token=choice).data)
    assert answer.by_id("my-vote").attrs["data-token"] == choice
    for sent in (vote(student, code, htmx=False, token=before[5].attrs["value"]),):  # without JavaScript
        assert sent.status_code == 303
        page = parse(student.get(sent.headers["Location"]).data)
        pressed = [b.attrs["value"] for b in buttons(page) if b.attrs["aria-pressed"] == "true"]
        assert pressed == [before[5].attrs["value"]]
    other = join(app, code, "Ben")
    assert all(b.attrs["aria-pressed"] == "false" for b in buttons(parse(other.get(f"/room/{code}").data)))
    screen = other.get(f"/room/{code}/screen").get_data(as_text=True)
    assert 'aria-pressed="true"' not in screen, "the panels every student polls mark no one's vote"


def test_a_refused_first_vote_is_not_counted_a_refused_change_keeps_the_vote_and_a_good_vote_clears_it(app, voting):
    teacher, student, code = voting
    first = vote(student, code, text="Mr.")
    said = words(parse(first.data))
    assert first.status_code == 400 and first.headers["HX-Retarget"] == "#error"
    assert said.startswith("Your vote was not counted: 'Mr.' is 2 tokens") and "Not changed" not in said

    good = parse(vote(student, code, text="her").data)
    error = good.by_id("error")
    assert error is not None and error.attrs["hx-swap-oob"] == "true" and words(error) == ""  # the refusal goes
    assert "'her'" in words(good.by_id("my-vote"))

    change = vote(student, code, text="Mr.")
    assert words(parse(change.data)).startswith("Your vote stays 'her': 'Mr.' is 2 tokens")
    assert results(teacher, code)["open_votes"] == 1

    page = vote(student, code, htmx=False, text="Mr.", **{"from": f"/room/{code}"})  # without JavaScript, as the form
    doc = parse(page.data)
    assert page.status_code == 400 and words(doc.by_id("error")).startswith("Your vote stays 'her':")
    assert f"/room/{code}" in [a.attrs["href"] for a in doc.find_all("a")], "the way back to the room"


def test_a_refused_vote_in_german_says_so_in_german(app, voting):
    teacher, student, code = voting
    said = words(parse(student.post(f"/room/{code}/vote?lang=de", data={"round": "1", "text": "Mr."},
                                    headers={**ORIGIN, **HTMX}).data))
    assert said.startswith("Deine Stimme wurde nicht gezählt:")


def test_the_note_on_class_votes_shows_only_while_they_are_off(app):
    teacher = app.test_client()
    code = start_room(teacher, votes=False)
    student = join(app, code)
    assert NOT_YET in words(parse(student.get(f"/room/{code}").data).by_id("ballot"))
    teacher.post(f"/room/{code}/settings", data={"votes_on": "1"}, headers=ORIGIN)
    for answer in (student.get(f"/room/{code}"), student.get(f"/room/{code}/screen"), student.get(f"/room/{code}/me")):
        text = answer.get_data(as_text=True)
        assert NOT_YET not in text
    assert "No vote open" in words(parse(student.get(f"/room/{code}/screen").data).by_id("ballot"))
    step(teacher, code, START + "&predict=1")
    assert NOT_YET not in student.get(f"/room/{code}").get_data(as_text=True)
