"""The teacher's controls a class expects: who is in and who has voted (on the laptop, never the projector), a
student taken out (their votes leave the tally, their page says so), the open vote started again, the live tally
shown or hidden, and the end of the lesson. Through the Flask test client, on both stores (an SQLite file, a
redis-server)."""

from __future__ import annotations

import html
import re

import pytest

from .test_room import ORIGIN, START, join, publish, push

NICKNAMES = ("Adalind", "<i>Bodo</i>", "")


class Class:
    """A room with class votes on, three students (one with a nickname that is markup, one without), a vote open."""

    def __init__(self, app):
        self.teacher = app.test_client()
        answer = self.teacher.post("/room", data={"from": START}, headers=ORIGIN)
        self.code = answer.headers["Location"].split("/")[2]
        assert self.post("settings", votes_on="1").status_code == 303
        self.students = [join(app, self.code, nickname) for nickname in NICKNAMES]
        self.url = push(self.teacher, "/step", START + "&predict=1")
        assert publish(self.teacher, self.code, self.url, "step").status_code == 200

    def post(self, path: str, **form):
        return self.teacher.post(f"/room/{self.code}/{path}", data=form, headers=ORIGIN)

    def data(self) -> dict:
        return self.teacher.get(f"/room/{self.code}/results.json").get_json()

    def vote(self, n: int, token: str) -> int:
        form = {"round": str(self.data()["round"]), "token": token}
        return self.students[n].post(f"/room/{self.code}/vote", data=form, headers=ORIGIN).status_code

    def roster(self) -> str:
        answer = self.teacher.get(f"/room/{self.code}/roster")
        assert answer.status_code == 200
        return answer.get_data(as_text=True)

    def handle(self, nickname: str) -> str:
        entries = r'<li class="roster-entry[^"]*" data-handle="(\w+)">\s*<span class="roster-name">(.*?)<'
        for handle, name in re.findall(entries, self.roster()):
            if html.unescape(name) == nickname:
                return handle
        raise AssertionError(f"{nickname!r} is not in the roster")

    def teach(self, query: str = "") -> str:
        return self.teacher.get(f"/room/{self.code}/teach{query}").get_data(as_text=True)

    def screen(self, n: int):
        return self.students[n].get(f"/room/{self.code}/screen")


@pytest.fixture
def lesson(rooms) -> Class:
    return Class(rooms)


def test_the_roster_names_who_is_in_and_who_voted_on_the_laptop_only(lesson) -> None:
    assert lesson.vote(0, "5") == 303
    roster = lesson.roster()
    assert roster.count('class="roster-entry') == 3
    assert roster.count('class="roster-entry voted"') == 1
    assert "&lt;i&gt;Bodo&lt;/i&gt;" in roster and "<i>Bodo</i>" not in roster  # a nickname is text
    assert "(no nickname)" in roster
    for student in lesson.students:  # the page never holds the id a student's cookie does
        cookie = next(c.value for c in student._cookies.values() if c.key.startswith("tbt_student_"))
        assert cookie not in roster and cookie not in lesson.teach()
    assert 'id="room-roster"' in lesson.teach()
    assert 'id="room-roster"' not in lesson.teach("?present=1")  # names stay off the projector
    assert "Adalind" not in lesson.teach("?present=1")
    assert lesson.students[0].get(f"/room/{lesson.code}/roster").status_code == 403  # the teacher's alone


def test_the_counts_say_how_many_of_the_class_voted(lesson) -> None:
    lesson.vote(0, "5")
    lesson.vote(1, "9")
    line = re.sub(r"<[^>]+>", "", lesson.teacher.get(f"/room/{lesson.code}/live").get_data(as_text=True))
    assert "3 students in the room · 2 of 3 voted on this step" in " ".join(line.split())


def test_a_student_taken_out_leaves_the_tally_and_is_told_and_may_join_again(rooms, lesson) -> None:
    assert lesson.vote(1, "5") == 303 and lesson.vote(0, "9") == 303
    before = lesson.screen(1)
    assert before.status_code == 200
    etag = before.headers["ETag"]
    answer = lesson.post("remove", student=lesson.handle("<i>Bodo</i>"))
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#room-roster")
    data = lesson.data()
    assert data["n_students"] == 2 and data["open_votes"] == 1  # Bodo's vote left the tally, Adalind's stays
    assert "Bodo" not in html.unescape(lesson.roster())
    # Bodo's phone: its next poll (a new version) is refused, its page leads to the join form, which says why
    poll = lesson.students[1].get(f"/room/{lesson.code}/screen", headers={"If-None-Match": etag})
    assert poll.status_code == 403 and "took you out of the room" in poll.get_data(as_text=True)
    page = lesson.students[1].get(f"/room/{lesson.code}")
    assert page.status_code == 303 and page.headers["Location"].endswith(f"/join?code={lesson.code}&removed=1")
    assert "tbt_room=;" in page.headers["Set-Cookie"]  # no way back offered to a room they are not in
    form = lesson.students[1].get(page.headers["Location"]).get_data(as_text=True)
    assert "The teacher took you out of the room" in form
    assert lesson.vote(1, "5") == 403 and lesson.data()["open_votes"] == 1
    # the others follow as before, a kept screen too (another student asked for it first)
    assert lesson.screen(0).status_code == 200 and lesson.screen(2).status_code == 200
    assert lesson.students[1].get(f"/room/{lesson.code}/screen").status_code == 403
    # joining again, as anyone may: a new nickname
    again = lesson.students[1].post("/join", data={"code": lesson.code, "nickname": "Bodo"}, headers=ORIGIN)
    assert again.status_code == 303 and lesson.data()["n_students"] == 3


def test_removing_someone_not_there_changes_nothing(lesson) -> None:
    version = lesson.data()["version"]
    assert lesson.post("remove", student="0123456789abcdef").status_code == 303
    assert lesson.post("remove", student="<script>").status_code == 303
    assert lesson.data()["version"] == version and lesson.data()["n_students"] == 3
    hx = lesson.teacher.post(f"/room/{lesson.code}/remove", data={"student": lesson.handle("Adalind")},
                             headers={**ORIGIN, "HX-Request": "true"})
    assert hx.status_code == 200 and 'id="room-roster"' in hx.get_data(as_text=True)  # htmx: the roster alone
    assert lesson.data()["n_students"] == 2


def test_starting_the_vote_again_drops_its_votes_and_refuses_late_ones(lesson) -> None:
    lesson.vote(0, "5")
    lesson.vote(1, "5")
    first = lesson.data()
    old_round = first["round"]
    assert first["open_votes"] == 2
    assert 'id="restart-vote"' in lesson.teach()
    assert lesson.post("vote/restart").status_code == 303
    data = lesson.data()
    assert (data["round"], data["round_open"], data["open_votes"]) == (old_round + 1, True, 0)
    assert data["kept"] == []  # the old round is gone, not kept
    late = lesson.students[2].post(f"/room/{lesson.code}/vote", data={"round": str(old_round), "token": "5"},
                                   headers=ORIGIN)
    assert late.status_code == 409  # a vote sent for the old round is late, never counted in the new one
    assert lesson.vote(2, "9") == 303 and lesson.data()["open_votes"] == 1
    assert lesson.screen(0).headers["X-Room-Round"] == f"{old_round + 1}-open"
    # Reveal counts the new round alone
    url = push(lesson.teacher, "/", "/?" + lesson.data()["state"] + "&reveal=1")
    publish(lesson.teacher, lesson.code, url)
    (counted,) = lesson.data()["rounds"]
    assert (counted["round"], counted["n_votes"]) == (old_round + 1, 1)
    assert lesson.post("vote/restart").status_code == 409  # nothing open to start again


def test_the_live_tally_is_hidden_until_the_teacher_shows_it_and_never_names_anyone(lesson) -> None:
    lesson.vote(0, "5")
    lesson.vote(1, "5")
    lesson.vote(2, "9")
    live = lambda: lesson.teacher.get(f"/room/{lesson.code}/live").get_data(as_text=True)  # noqa: E731
    assert "live-tally" not in live()
    assert "Live votes: hidden" in lesson.teach()
    assert lesson.post("settings", tally_shown="1", present="1").headers["Location"].endswith("?present=1")
    shown = live()
    assert re.findall(r'data-token="(\d+)" data-votes="(\d+)"', shown) == [("5", "2"), ("9", "1")]
    assert "Adalind" not in shown and "Bodo" not in shown
    assert "live-tally" in lesson.teach("?present=1")  # on the projector, where the teacher shows it
    assert lesson.data()["round_open"]  # showing the tally changes nothing of the vote
    assert lesson.post("settings", tally_shown="2").status_code == 400


def test_the_end_of_the_lesson_closes_votes_keeps_the_secret_and_lets_students_explore(lesson) -> None:
    lesson.vote(0, "5")
    hidden_state = lesson.data()["state"]
    assert lesson.post("end").status_code == 303
    data = lesson.data()
    assert not data["round_open"] and [(r["round"], r["n_votes"]) for r in data["kept"]] == [(1, 1)]
    assert data["state"] == hidden_state  # the pick stays hidden
    screen = lesson.screen(1)
    assert screen.headers["X-Room-Round"].endswith("-ended")
    text = screen.get_data(as_text=True)
    assert "The lesson has ended." in text and 'class="room-explore"' in text
    assert "What comes next?" not in text and "When the teacher turns on class votes" not in text
    assert lesson.vote(1, "5") == 409
    page = lesson.teach()
    assert "This lesson has ended." in page and 'data-room-role="ended"' in page and "data-room-publish" not in page
    # nothing changes an ended lesson: the teacher's screen, settings, votes, joins
    assert publish(lesson.teacher, lesson.code, lesson.url, "step").status_code == 409
    assert lesson.post("settings", votes_on="1").status_code == 409
    assert lesson.post("end").status_code == 409
    assert lesson.data()["version"] == data["version"]
    late = lesson.teacher.application.test_client().post("/join", data={"code": lesson.code}, headers=ORIGIN)
    assert late.status_code == 409 and "has ended" in late.get_data(as_text=True)
