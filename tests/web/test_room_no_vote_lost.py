"""No vote is lost: whatever the teacher does while a vote is open, its round is kept with its votes and comes back
when its step does, or is counted when its pick is shown; results.json says which. Through the Flask test client,
on both stores (an SQLite file, a redis-server)."""

from __future__ import annotations

import re

import pytest

from .test_room import ORIGIN, START, join, publish, push

VOTES = ("5", "5", "9")


class Lesson:
    """A room with class votes on, three students, and the teacher's browser: what its page sends, the room's data."""

    def __init__(self, app):
        self.teacher = app.test_client()
        answer = self.teacher.post("/room", data={"from": START}, headers=ORIGIN)
        self.code = answer.headers["Location"].split("/")[2]
        self.settings(votes_on="1")
        self.students = [join(app, self.code) for _ in VOTES]
        self.url = START + "&predict=1"  # the teacher's screen, as its address bar has it

    def go(self, path: str, action: str, url: str | None = None) -> dict:
        """Press a button of the teacher's stepper (path '/step', '/back', '/', ...), send the screen to the room."""
        self.url = push(self.teacher, path, url or self.url)
        assert publish(self.teacher, self.code, self.url, action).status_code == 200
        return self.results()

    def step(self) -> dict:
        return self.go("/step", "step")

    def reveal(self) -> dict:
        """Reveal as the teacher's page does: its own state (a hidden pick's address leaves the pick out)."""
        return self.go("/", "show", "/?" + self.results()["state"] + "&reveal=1")

    def settings(self, **values) -> dict:
        assert self.teacher.post(f"/room/{self.code}/settings", data=values, headers=ORIGIN).status_code == 303
        return self.results()

    def vote(self, round_: int) -> None:
        for student, token in zip(self.students, VOTES, strict=True):
            vote = {"round": str(round_), "token": token}
            assert student.post(f"/room/{self.code}/vote", data=vote, headers=ORIGIN).status_code == 303

    def results(self) -> dict:
        return self.teacher.get(f"/room/{self.code}/results.json").get_json()

    def my_vote(self, n: int = 2) -> str:
        """What student n's phone says of their vote (the part it asks for, and the whole page)."""
        me = self.students[n].get(f"/room/{self.code}/me").get_data(as_text=True)
        page = self.students[n].get(f"/room/{self.code}").get_data(as_text=True)
        line = re.search(r'<p class="my-vote"[^>]*>(.*?)</p>', me, re.S).group(1)
        assert line in page
        return re.sub(r"<[^>]+>", "", line).strip()


def open_with_votes(data: dict, round_: int = 1) -> None:
    assert (data["round"], data["round_open"], data["open_votes"]) == (round_, True, 3)


def kept(data: dict) -> list[tuple[int, int]]:
    return [(r["round"], r["n_votes"]) for r in data["kept"]]


def counted(data: dict) -> dict[int, dict]:
    return {r["round"]: r["tally"] for r in data["rounds"]}


def test_back_then_step_brings_the_round_back_with_its_votes(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    voted = lesson.my_vote()
    assert voted.startswith("Your vote on this step:")
    data = lesson.go("/back", "back")
    assert (data["round_open"], kept(data)) == (False, [(1, 3)])
    open_with_votes(lesson.step())
    assert lesson.results()["kept"] == [] and lesson.my_vote() == voted
    assert counted(lesson.reveal()) == {1: {"5": 2, "9": 1}}


def test_reset_then_steps_back_to_the_same_step_bring_its_round_back(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.reveal()
    lesson.step()
    lesson.vote(2)
    assert kept(lesson.go("/reset", "reset")) == [(2, 3)]
    again = lesson.step()  # the first step again: revealed already, so no vote opens on it
    assert (again["round_open"], kept(again)) == (False, [(2, 3)])
    lesson.reveal()
    open_with_votes(lesson.step(), round_=2)
    assert lesson.my_vote().startswith("Your vote on this step:")
    data = lesson.reveal()
    assert counted(data) == {1: {}, 2: {"5": 2, "9": 1}} and data["kept"] == []


def test_a_temperature_change_and_back_keep_the_round_and_its_votes(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    hidden = "/?" + lesson.results()["state"]  # the teacher's page's controls: the hidden pick in its form
    colder = lesson.go("/", "show", hidden.replace("temperature=1.0", "temperature=0.3"))
    open_with_votes(colder)
    assert "temperature=0.3" in colder["state"]
    open_with_votes(lesson.go("/", "show", hidden))
    assert lesson.my_vote().startswith("Your vote on this step:")
    assert counted(lesson.reveal()) == {1: {"5": 2, "9": 1}}


def test_class_votes_off_keep_the_round_unrevealed_and_on_again_bring_it_back(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    off = lesson.settings(votes_on="0")
    assert (off["round_open"], kept(off), off["rounds"]) == (False, [(1, 3)], [])
    assert "predict=1" in off["state"] and "reveal=1" not in off["state"]  # the pick stays hidden
    open_with_votes(lesson.settings(votes_on="1"))
    assert lesson.my_vote().startswith("Your vote on this step:")


def test_a_round_kept_with_class_votes_off_is_counted_when_its_pick_is_revealed(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    lesson.settings(votes_on="0")
    data = lesson.reveal()
    assert counted(data) == {1: {"5": 2, "9": 1}} and data["kept"] == []


def test_a_model_change_keeps_the_round_for_when_the_model_comes_back(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    first_model = lesson.url
    other = lesson.go("/", "show", START.replace("?", "?model=austen-bigram&") + "&predict=1")
    assert kept(other) == [(1, 3)]
    assert lesson.step()["round"] == 2  # the other model's step: a round of its own
    lesson.go("/", "show", first_model.replace("/step?", "/?"))
    open_with_votes(lesson.step())
    assert kept(lesson.results()) == [(2, 0)]


def test_choosing_a_token_by_hand_keeps_the_round_and_back_and_step_bring_it_back(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    state = lesson.results()["state"]
    chosen = lesson.go("/choose", "choose", "/choose?" + state + "&token=7")
    assert (chosen["round_open"], kept(chosen), chosen["rounds"]) == (False, [(1, 3)], [])
    lesson.go("/back", "back")
    open_with_votes(lesson.step())


def test_a_step_past_the_hidden_pick_counts_its_round(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    state = lesson.results()["state"]
    data = lesson.go("/step", "step", "/step?" + state)  # the teacher's page's own state: the pick goes in the text
    assert counted(data) == {1: {"5": 2, "9": 1}} and (data["round"], data["round_open"]) == (2, True)


def test_the_results_say_how_surprised_class_and_model_were(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    (round_,) = lesson.reveal()["rounds"]
    assert round_["n_vocab"] == 5000 and round_["model_bits"] > 0
    if str(round_["picked"]) not in round_["tally"]:  # nobody guessed it: 1 / (5,000 x 4)
        assert round_["class_bits"] == pytest.approx(14.29, abs=0.01)


def test_a_round_kept_and_revealed_after_a_later_one_is_the_one_the_projector_shows(rooms) -> None:
    lesson = Lesson(rooms)
    lesson.step()
    lesson.vote(1)
    lesson.go("/choose", "choose", "/choose?" + lesson.results()["state"] + "&token=7")  # what if the text said ...?
    lesson.step()
    lesson.reveal()  # round 2, on step 2
    lesson.go("/back", "back")
    lesson.go("/back", "back")
    open_with_votes(lesson.step())
    data = lesson.reveal()
    assert [r["round"] for r in data["rounds"]] == [2, 1]  # in the order they were revealed
    page = lesson.teacher.get(f"/room/{lesson.code}/teach").get_data(as_text=True)
    assert "Step 1: the class beside the model" in page and "Step 2: the class" not in page
