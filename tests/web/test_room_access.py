"""Who may ask what of a room: ids only the server signs, allowances per network, and codes nobody can probe.

Each test's clients come from networks of their own (REMOTE_ADDR), so that one test's allowances are not
another's, and the room's clock is frozen where a test counts tokens (`clock`), so that nothing depends on
how fast the machine runs the requests.
"""

from __future__ import annotations

import time

import pytest

from webapp.room import codes
from webapp.web import create_app
from webapp.web.classroom import room_access, room_support

from .test_room import ORIGIN, START, publish, push, reveal, step

STUDENT = "tbt_student_"
WRONG = "ZZZZZZZZ"  # a code no test starts


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The room's limits as they ship (DEFAULTS), on a store of the module's own."""
    folder = tmp_path_factory.mktemp("rooms")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


class Clock:
    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The room's clock, stopped: buckets refill only when a test moves it on."""
    frozen = Clock()
    monkeypatch.setattr(room_access, "now", frozen)
    monkeypatch.setattr(room_support, "now", frozen)
    return frozen


def client(app, address: str):
    browser = app.test_client()
    browser.environ_base["REMOTE_ADDR"] = address
    return browser


def start(app, address: str):
    """A teacher on `address` starts a room; return the teacher's client and the room's code."""
    teacher = client(app, address)
    answer = teacher.post("/room", data={"from": START}, headers=ORIGIN)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    return teacher, answer.headers["Location"].split("/")[2]


def join(browser, code: str) -> int:
    return browser.post("/join", data={"code": code}, headers=ORIGIN).status_code


def n_students(teacher, code: str) -> int:
    return teacher.get(f"/room/{code}/results.json").get_json()["n_students"]


def vote(browser, code: str, token: str = "5"):
    return browser.post(f"/room/{code}/vote", data={"round": "1", "token": token}, headers=ORIGIN)


def with_votes(teacher, code: str) -> str:
    """Turn class votes on and take a hidden Step: round 1 opens. Return the stepper URL on screen."""
    assert teacher.post(f"/room/{code}/settings", data={"votes_on": "1"}, headers=ORIGIN).status_code == 303
    return step(teacher, code, START + "&predict=1")


def next_step(teacher, code: str, url: str) -> str:
    """Reveal the step on screen and take the next, hidden: another round. Return the stepper URL it pushed."""
    return push(teacher, "/step", reveal(teacher, code, url))


# --- student ids only the server signs --------------------------------------------------------------

@pytest.mark.parametrize("made_up", ["A" * 22, "A" * 44, "x" * 43])  # the audit's; signed-id-shaped; an old id
def test_a_student_id_the_browser_made_up_is_refused_and_joining_issues_a_signed_one(app, made_up) -> None:
    teacher, code = start(app, "198.51.100.1")
    with_votes(teacher, code)
    forger = client(app, "198.51.100.2")
    forger.set_cookie(STUDENT + code, made_up)
    refused = vote(forger, code)
    assert refused.status_code == 403 and "join the room first" in refused.get_data(as_text=True)
    assert forger.get(f"/room/{code}/screen").status_code == 403
    assert forger.get(f"/room/{code}/me").status_code == 403
    assert forger.get(f"/room/{code}").headers["Location"] == f"/join?code={code}"
    assert n_students(teacher, code) == 0
    assert join(forger, code) == 303  # joining again: the server's own id replaces the made-up one
    issued = forger.get_cookie(STUDENT + code).value
    assert issued != made_up and len(issued) == 44
    assert vote(forger, code).status_code == 303 and n_students(teacher, code) == 1


def test_an_id_signed_for_one_room_is_no_student_of_another(app) -> None:
    _, first = start(app, "198.51.100.3")
    teacher, second = start(app, "198.51.100.3")
    with_votes(teacher, second)
    student = client(app, "198.51.100.4")
    assert join(student, first) == 303
    student.set_cookie(STUDENT + second, student.get_cookie(STUDENT + first).value)
    assert vote(student, second).status_code == 403
    assert student.get(f"/room/{second}/screen").status_code == 403


def test_a_made_up_id_is_refused_before_the_store_is_asked(app) -> None:
    forger = client(app, "198.51.100.5")
    forger.set_cookie(STUDENT + WRONG, "A" * 22)
    assert vote(forger, WRONG).status_code == 403  # not 404: whether the room is open was never asked


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_every_server_on_the_store_signs_with_its_one_secret(backend, tmp_path, request) -> None:
    """Two servers on one store (two machines on one Redis, or gunicorn's processes on one file)."""
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}" if backend == "sqlite" else request.getfixturevalue("redis_url")
    one, two = (create_app({"TESTING": True, "ROOM_STORE": url}) for _ in range(2))
    teacher, code = start(one, "198.51.100.6")
    with_votes(teacher, code)
    student = client(one, "198.51.100.7")
    assert join(student, code) == 303
    issued = student.get_cookie(STUDENT + code).value
    assert codes.is_signed(room_access.secret(two), code, codes.STUDENT, issued)  # one secret, from the store
    on_two = client(two, "198.51.100.7")
    on_two.set_cookie(STUDENT + code, issued)
    assert on_two.get(f"/room/{code}").status_code == 200
    assert vote(on_two, code).status_code == 303
    key = teacher.get_cookie("tbt_teacher", path=f"/room/{code}").value
    teacher_on_two = client(two, "198.51.100.6")
    teacher_on_two.set_cookie("tbt_teacher", key, path=f"/room/{code}")
    assert teacher_on_two.get(f"/room/{code}/results.json").get_json()["open_votes"] == 1
    for app in (one, two):  # and neither takes an id it did not sign
        forger = client(app, "198.51.100.8")
        forger.set_cookie(STUDENT + code, "A" * 22)
        assert vote(forger, code).status_code == 403


# --- joins: a class at once, not a script -------------------------------------------------------------

def test_a_class_of_300_behind_one_nat_joins_at_once_and_a_script_then_gets_what_is_left(app, clock) -> None:
    teacher, code = start(app, "203.0.113.1")
    assert [join(client(app, "203.0.113.9"), code) for _ in range(300)] == [303] * 300
    assert n_students(teacher, code) == 300
    assert [join(client(app, "203.0.113.9"), code) for _ in range(150)] == [303] * 100 + [429] * 50


def test_a_script_joining_500_at_once_gets_the_burst_and_then_a_few_a_second(app, clock) -> None:
    teacher, code = start(app, "203.0.113.2")
    in_the_room = client(app, "203.0.113.10")
    assert join(in_the_room, code) == 303
    answers = [client(app, "203.0.113.10").post("/join", data={"code": code}, headers=ORIGIN) for _ in range(500)]
    statuses = [a.status_code for a in answers]
    assert statuses == [303] * 399 + [429] * 101
    assert "Too many joins from this network at once" in answers[-1].get_data(as_text=True)
    assert f'value="{code}"' in answers[-1].get_data(as_text=True)  # in the join form, to send again
    assert join(in_the_room, code) == 303  # a student already in the room joins again: not counted
    clock.now += 5
    assert [join(client(app, "203.0.113.10"), code) for _ in range(12)] == [303] * 10 + [429] * 2  # 2 a second
    assert join(client(app, "203.0.113.11"), code) == 303  # another network has its own
    assert n_students(teacher, code) == 1 + 399 + 10 + 1


# --- new rooms per network ----------------------------------------------------------------------------

def test_a_network_starts_20_rooms_an_hour_and_another_still_can(app, clock) -> None:
    for _ in range(20):
        start(app, "203.0.113.20")
    refused = client(app, "203.0.113.20").post("/room", data={"from": START}, headers=ORIGIN)
    assert refused.status_code == 429 and "too many rooms" in refused.get_data(as_text=True)
    start(app, "203.0.113.21")
    clock.now += 180  # one more every three minutes
    start(app, "203.0.113.20")
    assert client(app, "203.0.113.20").post("/room", data={"from": START}, headers=ORIGIN).status_code == 429


def test_a_start_refused_because_the_server_is_full_costs_the_network_nothing(app, clock, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "ROOM_MAX_ROOMS", 0)
    for _ in range(25):
        assert client(app, "203.0.113.22").post("/room", data={"from": START}, headers=ORIGIN).status_code == 503
    monkeypatch.setitem(app.config, "ROOM_MAX_ROOMS", 10**6)
    for _ in range(20):
        start(app, "203.0.113.22")


# --- the room's size ----------------------------------------------------------------------------------

def test_a_rooms_rounds_are_bounded(app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "ROOM_MAX_ROUNDS", 2)
    teacher, code = start(app, "203.0.113.30")
    url = next_step(teacher, code, with_votes(teacher, code))
    assert publish(teacher, code, url, "step").status_code == 200  # round 2
    refused = publish(teacher, code, next_step(teacher, code, url), "step")
    assert refused.status_code == 409 and "as many votes as one room may" in refused.get_data(as_text=True)
    teacher.post(f"/room/{code}/settings", data={"votes_on": "0"}, headers=ORIGIN)
    assert publish(teacher, code, push(teacher, "/step", START), "step").status_code == 200  # no vote: no round


def test_a_rooms_rounds_times_students_are_bounded(app, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "ROOM_MAX_VOTES", 4)
    teacher, code = start(app, "203.0.113.31")
    students = [client(app, "203.0.113.32") for _ in range(2)]
    assert [join(s, code) for s in students] == [303, 303]
    url = next_step(teacher, code, with_votes(teacher, code))
    assert publish(teacher, code, url, "step").status_code == 200  # round 2: 2 rounds x 2 students
    full = client(app, "203.0.113.32").post("/join", data={"code": code}, headers=ORIGIN)
    assert full.status_code == 409 and "full" in full.get_data(as_text=True)
    assert publish(teacher, code, next_step(teacher, code, url), "step").status_code == 409  # a third round
    assert join(students[0], code) == 303  # already in: joining again is fine


# --- codes nobody can probe ---------------------------------------------------------------------------

ROUTES = [
    ("GET", ""), ("GET", "/screen"), ("GET", "/me"), ("POST", "/vote"),
    ("GET", "/teach"), ("GET", "/panel"), ("GET", "/live"), ("GET", "/results.json"),
    ("POST", "/state"), ("POST", "/settings"),
]


def ask(browser, method: str, code: str, path: str):
    data = {"round": "1", "token": "5", "url": START, "votes_on": "1"} if method == "POST" else None
    return browser.open(f"/room/{code}{path}", method=method, data=data, headers=ORIGIN)


def test_without_an_id_for_the_room_every_route_answers_the_same_for_a_live_code_and_a_wrong_one(app) -> None:
    _, code = start(app, "203.0.113.40")
    prober = client(app, "203.0.113.41")
    for method, path in ROUTES:
        for _ in range(5):  # 50 probes in all: more than the wrong codes a network may try, and none counted
            live, wrong = ask(prober, method, code, path), ask(prober, method, WRONG, path)
            assert live.status_code == wrong.status_code != 200, (method, path)
            assert live.get_data(as_text=True).replace(code, WRONG) == wrong.get_data(as_text=True), (method, path)
            assert live.headers.get("Location", "").replace(code, WRONG) == wrong.headers.get("Location", "")
    assert join(prober, code) == 303  # the network was never held back: those routes never asked the store


def test_guessing_codes_is_stopped_after_30_wrong_ones_and_then_the_right_one_tells_nothing(app, clock) -> None:
    teacher, code = start(app, "203.0.113.50")
    student = client(app, "203.0.113.51")
    assert join(student, code) == 303
    with_votes(teacher, code)
    guesser = client(app, "203.0.113.51")  # the same school's network as the student
    wrong = [f"ZZZZ{n:04d}".translate(str.maketrans("01", "AB")) for n in range(40)]
    qr = [guesser.get(f"/room/{w}/qr.svg").status_code for w in wrong[:20]]
    joins = [join(guesser, w) for w in wrong[20:]]
    assert qr == [404] * 20 and joins == [404] * 10 + [429] * 10
    assert guesser.get(f"/room/{code}/qr.svg").status_code == 429  # the right code too: nothing told
    refused = guesser.post("/join", data={"code": code, "nickname": "Kitty"}, headers=ORIGIN)
    assert refused.status_code == 429 and "Too many wrong room codes" in refused.get_data(as_text=True)
    page = refused.get_data(as_text=True)  # the join form again, as it was filled in, to send once more
    assert 'action="/join"' in page and f'value="{code}"' in page and 'value="Kitty"' in page
    assert vote(student, code).status_code == 303  # a student already in the room goes on
    assert student.get(f"/room/{code}/screen").status_code == 200
    assert join(student, code) == 303
    assert teacher.get(f"/room/{code}/qr.svg").status_code == 200  # and the teacher, from any network
    assert client(app, "203.0.113.52").get(f"/room/{code}/qr.svg").status_code == 200  # another network is not held
    clock.now += 2  # one more wrong code every two seconds
    assert join(guesser, code) == 303
    assert [join(guesser, WRONG), join(guesser, WRONG)] == [404, 429]


def test_the_right_code_gives_back_what_asking_took(app, clock) -> None:
    _, code = start(app, "203.0.113.60")
    visitor = client(app, "203.0.113.61")
    for _ in range(100):
        assert visitor.get(f"/room/{code}/qr.svg").status_code == 200
    assert [join(visitor, WRONG) for _ in range(31)] == [404] * 30 + [429]


def test_a_class_whose_room_ended_polls_it_without_holding_back_its_network(app, clock) -> None:
    teacher, code = start(app, "203.0.113.70")
    students = [client(app, "203.0.113.71") for _ in range(20)]
    assert [join(s, code) for s in students] == [303] * 20
    clock.now += app.config["ROOM_IDLE_SECONDS"] + 1  # the room has ended
    for _ in range(3):
        assert {s.get(f"/room/{code}/screen").status_code for s in students} == {404}  # 60 polls: not counted
    assert {s.get(f"/room/{code}").status_code for s in students} == {404}
    _, another = start(app, "203.0.113.72")
    assert join(client(app, "203.0.113.71"), another) == 303
    stranger = client(app, "203.0.113.71")  # without an id for the ended room, asking for it counts
    assert [stranger.get(f"/room/{code}/qr.svg").status_code for _ in range(31)] == [404] * 30 + [429]


def test_an_ipv6_network_is_counted_by_its_56(app, clock) -> None:
    first, same, other = "2001:db8:1:200::1", "2001:db8:1:2ff:ffff::9", "2001:db8:1:300::1"
    assert [join(client(app, first), WRONG) for _ in range(30)] == [404] * 30
    assert join(client(app, same), WRONG) == 429
    assert join(client(app, other), WRONG) == 404
    assert join(client(app, "::ffff:192.0.2.200"), WRONG) == 404
    assert [join(client(app, "192.0.2.200"), WRONG) for _ in range(30)] == [404] * 29 + [429]  # the same client
