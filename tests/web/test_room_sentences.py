"""The room's writing round: students send sentences, the teacher's list shows them, the class's model is built from
them, and every probability of its first step is the counts recomputed here from the sentences."""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter

from webapp.inference.class_bigram import MAX_SENTENCES_PER_STUDENT

from .test_room import ORIGIN, START, join

HTMX = {**ORIGIN, "HX-Request": "true"}
SENTENCES = ["We like lunch .", "Lunch is good !", "We like school .", "School is fun ."]


def start(app, topic: str = "school lunch"):
    teacher = app.test_client()
    # from a network of this module's own: the session's Redis store counts the rooms other modules start too
    started = teacher.post("/room", data={"from": START}, headers=ORIGIN, environ_base={"REMOTE_ADDR": "10.29.0.1"})
    code = started.headers["Location"].split("/")[2]
    assert teacher.post(f"/room/{code}/sentences/open", data={"topic": topic}, headers=ORIGIN).status_code == 303
    return teacher, code


def send(student, code: str, text: str, headers=HTMX):
    return student.post(f"/room/{code}/sentence", data={"text": text}, headers=headers)


def listed(teacher, code: str) -> list[str]:
    page = teacher.get(f"/room/{code}/sentences").get_data(as_text=True)
    return re.findall(r'class="sentence-text">([^<]*)<', page)


def test_sentences_arrive_in_the_teachers_list_and_the_model_built_from_them_is_their_counts(rooms):
    teacher, code = start(rooms)
    students = [join(rooms, code, name) for name in ("ana", "ben")]
    for i, text in enumerate(SENTENCES):
        assert send(students[i % 2], code, text).status_code == 200
    assert listed(teacher, code) == SENTENCES[::-1]  # newest first
    counts = teacher.get(f"/room/{code}/sentences").get_data(as_text=True)
    assert "4 sentences · 16 words and marks · 11 different ones · 20 word pairs counted" in counts
    built = teacher.post(f"/room/{code}/build", data={"mix": "1"}, headers=ORIGIN)
    assert built.status_code == 303
    page = teacher.get(f"/room/{code}/teach").get_data(as_text=True)
    model = re.search(r'<option value="(class:[a-z0-9]{10})" selected', page).group(1)
    answer = rooms.test_client().get(f"/api/step?model={model}&prompt=&full=1").json
    pairs = Counter(p for s in SENTENCES for p in zip(["<s>", *s.split()], [*s.split(), "<s>"], strict=True))
    vocab = {"<unk>", "<p>", "<s>", *(w for s in SENTENCES for w in s.split())}
    n_start = sum(n for (prev, _), n in pairs.items() if prev == "<s>")
    for row in answer["rows"]:
        expected = (pairs["<s>", row["token"]] + 0.01) / (n_start + 0.01 * len(vocab))
        assert math.isclose(row["prob_t1"], expected, rel_tol=1e-12), row["token"]
    assert {row["token"] for row in answer["rows"]} == vocab
    assert "Write a sentence" not in students[0].get(f"/room/{code}").get_data(as_text=True)  # the round closed


def test_a_sentence_over_a_limit_or_from_outside_the_room_is_refused_and_changes_nothing(rooms):
    teacher, code = start(rooms)
    student = join(rooms, code)
    long = send(student, code, "x" * 201)
    assert long.status_code == 400 and "at most 200 characters" in long.get_data(as_text=True)
    assert send(student, code, "!" * 51).status_code == 400
    assert send(student, code, " \x00\t ").status_code == 400
    stranger = rooms.test_client()
    assert send(stranger, code, "Hello .").status_code == 403
    assert listed(teacher, code) == []
    for i in range(MAX_SENTENCES_PER_STUDENT):
        assert send(student, code, f"Sentence {i} .").status_code == 200
    eleventh = send(student, code, "One more .")
    assert eleventh.status_code == 400 and "at most 10 sentences" in eleventh.get_data(as_text=True)
    assert len(listed(teacher, code)) == MAX_SENTENCES_PER_STUDENT
    assert teacher.post(f"/room/{code}/sentences/close", headers=ORIGIN).status_code == 303
    assert send(join(rooms, code), code, "Too late .").status_code == 409


def test_without_javascript_a_sentence_is_sent_by_the_form_and_the_page_lists_it(rooms):
    _, code = start(rooms)
    student = join(rooms, code, "quiet")
    page = student.get(f"/room/{code}").get_data(as_text=True)
    assert 'name="text"' in page and "school lunch" in page
    sent = send(student, code, "We like  lunch\x07 .", headers=ORIGIN)
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/room/{code}#room-write")
    page = student.get(f"/room/{code}").get_data(as_text=True)
    assert "<li>We like lunch .</li>" in page and "You have sent 1 of 10 sentences." in page


def test_the_teacher_removes_a_sentence_and_downloads_them_with_numbers_not_names(rooms):
    teacher, code = start(rooms)
    ana, ben = join(rooms, code, "Ana"), join(rooms, code, "Ben")
    for student, text in ((ana, "A b ."), (ben, "C d ."), (ana, "E f .")):
        send(student, code, text)
    page = teacher.get(f"/room/{code}/sentences").get_data(as_text=True)
    number = re.search(r'<li value="(\d+)"><span class="sentence-text">C d \.', page).group(1)
    assert teacher.post(f"/room/{code}/sentences/remove", data={"n": number}, headers=ORIGIN).status_code == 303
    assert listed(teacher, code) == ["E f .", "A b ."]
    rows = list(csv.reader(io.StringIO(teacher.get(f"/room/{code}/sentences.csv").get_data(as_text=True)
                                       .lstrip("\ufeff"))))
    assert rows == [["n", "author", "sentence"], ["1", "1", "A b ."], ["2", "1", "E f ."]]
    assert ana.get(f"/room/{code}/sentences.csv").status_code in (403, 404)  # the teacher's only


def test_names_reach_the_list_only_with_the_leaderboard_and_never_a_students_page(rooms):
    teacher, code = start(rooms)
    ana, ben = join(rooms, code, "Anastasia"), join(rooms, code, "Benedikt")
    send(ana, code, "<script>alert(1)</script> .")
    send(ben, code, "Hi .")
    page = teacher.get(f"/room/{code}/sentences").get_data(as_text=True)
    assert "Anastasia" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; ." in page and "<script>alert" not in page
    teacher.post(f"/room/{code}/settings", data={"leaderboard": "1"}, headers=ORIGIN)
    assert "Anastasia:" in teacher.get(f"/room/{code}/sentences").get_data(as_text=True)
    for body in (ben.get(f"/room/{code}").get_data(as_text=True), ben.get(f"/room/{code}/me").get_data(as_text=True)):
        assert "Anastasia" not in body and "alert(1)" not in body  # neither her name nor her sentence
