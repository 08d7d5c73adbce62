"""The room store, against both backends: SQLite in a temporary file and a real redis-server."""

from __future__ import annotations

import json
import multiprocessing
from collections import Counter

import pytest

from webapp.inference.class_bigram import MAX_SENTENCES, MAX_SENTENCES_PER_STUDENT
from webapp.room.backends import open_store
from webapp.room.sqlite_store import SQLiteStore
from webapp.room.store import Room, RoomsFull, Sent, Vote

IDLE = 600.0
T0 = 1_000_000.0


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    url = request.getfixturevalue("redis_url")
    import redis

    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture
def store(store_url):
    s = open_store(store_url, IDLE)
    yield s
    s.close()


def new_room(code: str = "ABCDEFGH", **fields) -> Room:
    return Room(code=code, key_hash="h" * 64, state="prompt=a", created=T0, touched=T0, **fields)


def open_round(store, code: str = "ABCDEFGH") -> Room:
    room = store.get(code, T0)
    return store.update(room, T0, round=room.round + 1, round_open=True, round_key="k")


def test_a_room_is_created_once_and_read_back(store) -> None:
    assert store.create(new_room(), max_rooms=10)
    assert not store.create(new_room(), max_rooms=10)  # the code is taken
    room = store.get("ABCDEFGH", T0 + 1)
    assert room == new_room()
    assert store.version("ABCDEFGH", T0 + 1) == 1
    assert store.get("ZZZZZZZZ", T0) is None


def test_updates_are_compare_and_set_on_the_version(store) -> None:
    store.create(new_room(), 10)
    room = store.get("ABCDEFGH", T0)
    changed = store.update(room, T0 + 5, state="prompt=b", votes_on=True)
    assert changed.version == 2 and changed.votes_on and changed.state == "prompt=b"
    assert store.update(room, T0 + 6, state="prompt=c") is None  # room.version 1 is stale
    assert store.get("ABCDEFGH", T0 + 6) == changed


def test_rooms_expire_after_their_idle_time_and_are_bounded(store) -> None:
    store.create(new_room(), 2)
    assert store.get("ABCDEFGH", T0 + IDLE - 1) is not None
    assert store.get("ABCDEFGH", T0 + IDLE + 1) is None
    assert store.version("ABCDEFGH", T0 + IDLE + 1) is None
    store.create(new_room("BBBBBBBB"), 2)
    with pytest.raises(RoomsFull):
        store.create(new_room("CCCCCCCC"), 2)
    later = new_room("DDDDDDDD")
    later = Room(**{**later.__dict__, "created": T0 + IDLE + 5, "touched": T0 + IDLE + 5})
    assert store.create(later, 2)  # the two old rooms have expired: room for a new one
    store.purge(T0 + IDLE + 10)


def test_a_second_vote_replaces_the_first(store) -> None:
    store.create(new_room(), 10)
    assert store.join("ABCDEFGH", "s" * 43, "Anna", 10)
    room = open_round(store)
    assert store.vote("ABCDEFGH", room.round, "s" * 43, 7) is Vote.COUNTED
    assert store.vote("ABCDEFGH", room.round, "s" * 43, 9) is Vote.COUNTED
    assert store.votes("ABCDEFGH", room.round) == {"s" * 43: 9}
    assert store.votes_of("ABCDEFGH", "s" * 43) == {room.round: 9}


def test_votes_count_only_while_the_round_is_open_and_from_students_in_the_room(store) -> None:
    store.create(new_room(), 10)
    store.join("ABCDEFGH", "s" * 43, "", 10)
    assert store.vote("ABCDEFGH", 1, "s" * 43, 7) is Vote.CLOSED  # no round yet
    room = open_round(store)
    assert store.vote("ABCDEFGH", room.round, "x" * 43, 7) is Vote.NOT_JOINED
    assert store.vote("ABCDEFGH", room.round + 1, "s" * 43, 7) is Vote.CLOSED
    closed = store.close_round(room, T0, room.round, lambda votes: json.dumps(votes), round_open=False)
    assert json.loads(store.results("ABCDEFGH")[room.round]) == {}
    assert store.vote("ABCDEFGH", closed.round, "s" * 43, 7) is Vote.CLOSED
    assert store.votes("ABCDEFGH", room.round) == {}


def test_closing_a_round_counts_its_votes_with_it(store) -> None:
    store.create(new_room(), 10)
    for n in range(5):
        store.join("ABCDEFGH", f"{n}" * 43, "", 10)
    room = open_round(store)
    for n in range(5):
        store.vote("ABCDEFGH", room.round, f"{n}" * 43, n % 2)
    closed = store.close_round(room, T0, room.round, lambda votes: json.dumps(sorted(votes.values())),
                               round_open=False)
    assert closed.version == room.version + 1 and not closed.round_open
    assert json.loads(store.results("ABCDEFGH")[room.round]) == [0, 0, 0, 1, 1]
    assert store.close_round(room, T0, room.round, lambda v: "x", round_open=False) is None  # stale version


def test_vote_changes_are_limited_per_step(store) -> None:
    from webapp.room.store import MAX_VOTE_CHANGES

    store.create(new_room(), 10)
    store.join("ABCDEFGH", "s" * 43, "", 10)
    room = open_round(store)
    outcomes = [store.vote("ABCDEFGH", room.round, "s" * 43, n) for n in range(MAX_VOTE_CHANGES + 3)]
    assert outcomes[: MAX_VOTE_CHANGES + 1] == [Vote.COUNTED] * (MAX_VOTE_CHANGES + 1)
    assert outcomes[-1] is Vote.TOO_MANY
    assert store.votes("ABCDEFGH", room.round) == {"s" * 43: MAX_VOTE_CHANGES}


def test_a_removed_student_leaves_the_rounds_not_yet_counted_and_may_join_again(store) -> None:
    store.create(new_room(), 10)
    for who in ("a", "b"):
        store.join("ABCDEFGH", who * 43, who.upper(), 10)
    room = open_round(store)
    for who in ("a", "b"):
        store.vote("ABCDEFGH", room.round, who * 43, 3)
    counted = store.close_round(room, T0, room.round, lambda votes: json.dumps(votes), round_open=False)
    second = open_round(store)
    assert second.round == counted.round + 1
    for who in ("a", "b"):
        store.vote("ABCDEFGH", second.round, who * 43, 5)

    assert store.remove("ABCDEFGH", "a" * 43)
    assert not store.remove("ABCDEFGH", "a" * 43)  # already out
    assert store.students("ABCDEFGH") == {"b" * 43: "B"}
    assert store.votes("ABCDEFGH", second.round) == {"b" * 43: 5}  # the open round's tally loses the vote
    assert store.votes_of("ABCDEFGH", "a" * 43) == {room.round: 3}  # the revealed round stays as counted
    assert json.loads(store.results("ABCDEFGH")[room.round]) == {"a" * 43: 3, "b" * 43: 3}
    assert store.vote("ABCDEFGH", second.round, "a" * 43, 5) is Vote.NOT_JOINED
    assert store.join("ABCDEFGH", "a" * 43, "Anna", 10)  # as anyone may
    assert store.vote("ABCDEFGH", second.round, "a" * 43, 6) is Vote.COUNTED


def test_clearing_a_round_deletes_its_votes_alone(store) -> None:
    from webapp.room.store import MAX_VOTE_CHANGES

    store.create(new_room(), 10)
    store.join("ABCDEFGH", "a" * 43, "", 10)
    first = open_round(store)
    store.vote("ABCDEFGH", first.round, "a" * 43, 1)
    second = open_round(store)
    for n in range(MAX_VOTE_CHANGES + 1):
        store.vote("ABCDEFGH", second.round, "a" * 43, n)
    assert store.clear_votes("ABCDEFGH", second.round) == 1
    assert store.clear_votes("ABCDEFGH", second.round) == 0
    assert store.votes_of("ABCDEFGH", "a" * 43) == {first.round: 1}
    # a cleared round starts afresh, its changes too
    assert store.vote("ABCDEFGH", second.round, "a" * 43, 2) is Vote.COUNTED
    assert store.vote("ABCDEFGH", second.round, "a" * 43, 4) is Vote.COUNTED


def test_the_teachers_flags_are_stored(store) -> None:
    store.create(new_room(), 10)
    room = store.update(store.get("ABCDEFGH", T0), T0, tally_shown=True, ended=True)
    assert store.get("ABCDEFGH", T0) == room and room.tally_shown and room.ended


def test_students_per_room_are_bounded(store) -> None:
    store.create(new_room(), 10)
    assert store.join("ABCDEFGH", "a" * 43, "A", 2)
    assert store.join("ABCDEFGH", "b" * 43, "B", 2)
    assert not store.join("ABCDEFGH", "c" * 43, "C", 2)
    assert store.join("ABCDEFGH", "a" * 43, "A again", 2)  # already in: joining again is fine
    assert store.students("ABCDEFGH") == {"a" * 43: "A again", "b" * 43: "B"}
    assert store.n_students("ABCDEFGH") == 2


def test_rate_limits_count_in_windows(store) -> None:
    assert [store.hit("join:1.2.3.4", 3, 60, T0) for _ in range(4)] == [True, True, True, False]
    assert store.hit("join:1.2.3.4", 3, 60, T0 + 60)  # a new window
    assert store.hit("join:5.6.7.8", 3, 60, T0)


def vote_from_a_process(url: str, students: list[str]) -> None:
    store = open_store(url, IDLE)
    for s in students:
        store.vote("ABCDEFGH", 1, s, len(s) % 7)


def test_processes_share_the_store_and_lose_no_vote(store, store_url) -> None:
    store.create(new_room(), 10)
    students = [f"{n:043d}" for n in range(200)]
    for s in students:
        store.join("ABCDEFGH", s, "", 500)
    open_round(store)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=vote_from_a_process, args=(store_url, students[i::4])) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0] * 4
    assert len(store.votes("ABCDEFGH", 1)) == 200


def test_a_room_survives_reopening_the_store(tmp_path) -> None:
    path = tmp_path / "rooms.sqlite3"
    first = SQLiteStore(path, IDLE)
    first.create(new_room(), 10)
    first.join("ABCDEFGH", "s" * 43, "Anna", 10)
    room = open_round(first)
    first.vote("ABCDEFGH", room.round, "s" * 43, 5)
    first.close()
    again = SQLiteStore(path, IDLE)
    assert again.get("ABCDEFGH", T0) == room
    assert again.votes("ABCDEFGH", room.round) == {"s" * 43: 5}
    assert again.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_round_closed_while_votes_arrive_counts_exactly_the_votes_accepted(store, store_url) -> None:
    import threading

    store.create(new_room(), 10)
    students = [f"{n:043d}" for n in range(50)]
    for s in students:
        store.join("ABCDEFGH", s, "", 100)
    room = open_round(store)
    voter = open_store(store_url, IDLE)
    accepted: dict[str, int] = {}
    stop = threading.Event()

    def keep_voting() -> None:
        n = 0
        while not stop.is_set():
            student = students[n % 50]
            if voter.vote("ABCDEFGH", room.round, student, n % 11) is Vote.COUNTED:
                accepted[student] = n % 11
            n += 1

    thread = threading.Thread(target=keep_voting)
    thread.start()
    while len(accepted) < 50:
        pass
    closed = store.close_round(room, T0, room.round, json.dumps, round_open=False)
    stop.set()
    thread.join()
    assert closed is not None
    assert json.loads(store.results("ABCDEFGH")[room.round]) == accepted == store.votes("ABCDEFGH", room.round)


def test_nobody_sees_a_round_closed_before_it_is_counted_and_every_vote_is_counted_once_or_refused(
        store, store_url) -> None:
    """Three students' devices vote and a fourth reads the room, each on a connection of its own, while
    the teacher's reveal counts the round slowly (counting is the server's work: the model's step)."""
    import threading
    import time

    store.create(new_room(), 10)
    students = [f"{n:043d}" for n in range(30)]
    for s in students:
        store.join("ABCDEFGH", s, "", 100)
    room = open_round(store)
    accepted: dict[str, int] = {}
    closed_uncounted: list[int] = []
    reads = [0]
    stop = threading.Event()

    def keep_voting(mine: list[str]) -> None:
        voter, n = open_store(store_url, IDLE), 0
        while not stop.is_set():
            token = n % 11
            if voter.vote("ABCDEFGH", room.round, mine[n % len(mine)], token) is Vote.COUNTED:
                accepted[mine[n % len(mine)]] = token
            n += 1
        voter.close()

    def keep_reading() -> None:
        reader = open_store(store_url, IDLE)
        while not stop.is_set():
            now = reader.get("ABCDEFGH", T0)
            if not now.round_open and room.round not in reader.results("ABCDEFGH"):
                closed_uncounted.append(now.version)
            reads[0] += 1
        reader.close()

    def count_slowly(votes: dict[str, int]) -> str:
        time.sleep(0.05)
        return json.dumps(votes)

    threads = [threading.Thread(target=keep_voting, args=(students[i::3],)) for i in range(3)]
    threads.append(threading.Thread(target=keep_reading))
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 60
        while (len(accepted) < len(students) or reads[0] < 10) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert len(accepted) == len(students) and reads[0] >= 10
        closed = store.close_round(room, T0, room.round, count_slowly, round_open=False)
        time.sleep(0.05)  # the reader and the voters go on a while after the reveal
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert closed is not None and closed_uncounted == []
    assert json.loads(store.results("ABCDEFGH")[room.round]) == accepted == store.votes("ABCDEFGH", room.round)


def test_a_bucket_allows_its_burst_at_once_then_its_rate(store) -> None:
    takes = [store.take("joins:1.2.3.4", 5, 2, T0) for _ in range(7)]
    assert takes == [True] * 5 + [False] * 2  # a refused take takes nothing
    assert store.take("joins:5.6.7.8", 5, 2, T0)  # another key has a bucket of its own
    assert [store.take("joins:1.2.3.4", 5, 2, T0 + 1) for _ in range(3)] == [True, True, False]  # 2 a second
    assert [store.take("joins:1.2.3.4", 5, 2, T0 + 100) for _ in range(6)] == [True] * 5 + [False]  # full, no more


def test_tokens_given_back_are_there_to_take_again_up_to_the_burst(store) -> None:
    assert store.take("lookups:a", 2, 0.01, T0) and store.take("lookups:a", 2, 0.01, T0)
    assert not store.take("lookups:a", 2, 0.01, T0)
    assert store.take("lookups:a", 2, 0.01, T0, n=-1)  # the code was right: the lookup is not counted
    assert store.take("lookups:a", 2, 0.01, T0) and not store.take("lookups:a", 2, 0.01, T0)
    for _ in range(5):
        store.take("lookups:a", 2, 0.01, T0, n=-1)
    assert [store.take("lookups:a", 2, 0.01, T0) for _ in range(3)] == [True, True, False]


def test_a_bucket_is_kept_until_full_again_then_forgotten(store, store_url) -> None:
    store.take("starts:a", 2, 1, T0)
    store.purge(T0 + 0.5)  # 1.5 tokens: kept
    assert [store.take("starts:a", 2, 1, T0 + 0.5) for _ in range(2)] == [True, False]
    if not isinstance(store, SQLiteStore):  # 0.5 tokens: full again 1.5 s later, and the key expires then
        import redis

        assert 0 < redis.Redis.from_url(store_url).ttl("tbt:bucket:starts:a") <= 3
    store.purge(T0 + 10)
    if isinstance(store, SQLiteStore):  # Redis lets the key expire on its own
        assert store.db.execute("SELECT count(*) FROM buckets").fetchone()[0] == 0
    assert [store.take("starts:a", 2, 1, T0 + 10) for _ in range(3)] == [True, True, False]


def take_from_a_process(url: str, n: int, taken) -> None:
    store = open_store(url, IDLE)
    taken.put(sum(store.take("joins:nat", 100, 0.001, T0) for _ in range(n)))


def test_processes_share_a_bucket(store, store_url) -> None:
    context = multiprocessing.get_context("spawn")
    taken = context.Queue()
    workers = [context.Process(target=take_from_a_process, args=(store_url, 60, taken)) for _ in range(4)]
    for w in workers:
        w.start()
    counts = [taken.get(timeout=60) for _ in workers]
    for w in workers:
        w.join(60)
    assert sum(counts) == 100  # 240 asked for from four processes at once: exactly the burst is taken


def secret_from_a_process(url: str, secrets) -> None:
    secrets.put(open_store(url, IDLE).secret())


def test_the_signing_secret_is_made_once_and_shared(store, store_url) -> None:
    context = multiprocessing.get_context("spawn")
    found = context.Queue()
    workers = [context.Process(target=secret_from_a_process, args=(store_url, found)) for _ in range(4)]
    for w in workers:
        w.start()
    secrets = {found.get(timeout=60) for _ in workers}
    for w in workers:
        w.join(60)
    assert secrets == {store.secret()} and len(store.secret()) >= 43  # one secret of 256 bits, whoever came first
    store.purge(T0 + 10 * IDLE)
    assert open_store(store_url, IDLE).secret() == store.secret()  # rooms expire; the secret stays


def test_a_kept_lesson_is_read_back_until_it_expires_and_reading_keeps_it(store) -> None:
    assert store.keep_lesson("abc", '{"title": "é"}', T0, max_lessons=2, seconds=100)
    assert store.kept_lesson("abc", T0 + 50, seconds=100) == '{"title": "é"}'  # read at 50: kept until 150
    assert store.kept_lesson("abc", T0 + 120, seconds=100) == '{"title": "é"}'
    assert store.kept_lesson("abc", T0 + 221, seconds=100) is None
    assert store.kept_lesson("nope", T0, seconds=100) is None


def test_kept_lessons_are_bounded_but_keeping_one_again_is_not_refused(store) -> None:
    assert store.keep_lesson("a", "A", T0, max_lessons=2, seconds=100)
    assert store.keep_lesson("b", "B", T0, max_lessons=2, seconds=100)
    assert not store.keep_lesson("c", "C", T0 + 1, max_lessons=2, seconds=100)
    assert store.kept_lesson("c", T0 + 1, seconds=100) is None
    assert store.keep_lesson("a", "A", T0 + 1, max_lessons=2, seconds=100)  # already kept: kept longer
    assert store.keep_lesson("c", "C", T0 + 101, max_lessons=2, seconds=100)  # b has expired, making room
    assert store.kept_lesson("b", T0 + 101, seconds=100) is None


def test_kept_texts_are_a_shelf_of_their_own_beside_the_lessons(store) -> None:
    assert store.keep_lesson("a", "lesson", T0, max_lessons=1, seconds=100)
    assert store.keep_text("a", "We like lunch.", T0, max_texts=1, seconds=100)  # same id, other shelf, own bound
    assert not store.keep_text("b", "Hi.", T0, max_texts=1, seconds=100)
    assert store.kept_text("a", T0 + 50, seconds=100) == "We like lunch."
    assert store.kept_lesson("a", T0 + 50, seconds=100) == "lesson"
    assert store.kept_text("a", T0 + 151, seconds=100) is None  # read at 50: kept until 150
    assert store.keep_text("b", "Hi.", T0 + 151, max_texts=1, seconds=100)


def test_reading_a_kept_file_for_a_shorter_while_never_shortens_its_life(store) -> None:
    assert store.keep_text("a", "We like lunch.", T0, max_texts=5, seconds=1000)
    assert store.kept_text("a", T0 + 1, seconds=10) == "We like lunch."  # kept until T0 + 1000 still
    if hasattr(store, "r"):  # Redis: the key's own expiry too
        assert store.r.ttl("tbt:text:a") > 900
    assert store.kept_text("a", T0 + 900, seconds=10) == "We like lunch."
    assert store.kept_text("a", T0 + 1001, seconds=10) is None
    assert store.keep_lesson("b", "lesson", T0, max_lessons=5, seconds=1000)
    assert store.kept_lesson("b", T0 + 1, seconds=10) == "lesson"
    assert store.kept_lesson("b", T0 + 900, seconds=10) == "lesson"


def test_a_room_plays_a_lesson_screen_by_screen(store) -> None:
    store.create(new_room(), 10)
    room = store.update(store.get("ABCDEFGH", T0), T0, lesson="article", lesson_screen=3)
    assert store.get("ABCDEFGH", T0).lesson == "article" and room.lesson_screen == 3


def writing_room(store, *students: str) -> Room:
    store.create(new_room(), 10)
    for s in students:
        store.join("ABCDEFGH", s, "", 500)
    room = store.get("ABCDEFGH", T0)
    return store.update(room, T0, writing=True, topic="school lunch")


def test_sentences_are_stored_in_order_while_the_room_is_writing(store) -> None:
    store.create(new_room(), 10)
    anna, ben = "a" * 43, "b" * 43
    store.join("ABCDEFGH", anna, "Anna", 10)
    store.join("ABCDEFGH", ben, "", 10)
    assert store.add_sentence("ABCDEFGH", anna, "We like lunch .", T0) is Sent.CLOSED  # not writing yet
    room = store.update(store.get("ABCDEFGH", T0), T0, writing=True, topic="school lunch")
    assert (room.writing, room.topic) == (True, "school lunch")
    assert store.get("ABCDEFGH", T0) == room
    assert store.add_sentence("ABCDEFGH", anna, "We like lunch .", T0) is Sent.ADDED
    assert store.add_sentence("ABCDEFGH", ben, "Lunch is <b>late</b> .", T0) is Sent.ADDED
    assert store.add_sentence("ABCDEFGH", "c" * 43, "Not here .", T0) is Sent.NOT_JOINED
    assert store.add_sentence("ABCDEFGH", anna, "Soup again !", T0) is Sent.ADDED
    sent = store.sentences("ABCDEFGH")
    assert [(s, t) for _n, s, t in sent] == [(anna, "We like lunch ."), (ben, "Lunch is <b>late</b> ."),
                                             (anna, "Soup again !")]
    ns = [n for n, _s, _t in sent]
    assert ns == sorted(set(ns))
    assert store.remove_sentence("ABCDEFGH", ns[1])
    assert not store.remove_sentence("ABCDEFGH", ns[1])
    assert [t for _n, _s, t in store.sentences("ABCDEFGH")] == ["We like lunch .", "Soup again !"]
    assert store.add_sentence("ABCDEFGH", ben, "Chips .", T0)
    assert store.sentences("ABCDEFGH")[-1][0] > ns[-1]  # a removed sentence's number is not given again
    store.update(store.get("ABCDEFGH", T0), T0, writing=False)
    assert store.add_sentence("ABCDEFGH", ben, "Late .", T0) is Sent.CLOSED
    assert store.sentences("ABCDEFGH")[-1][2] == "Chips ."
    assert store.clear_sentences("ABCDEFGH") == 3
    assert store.sentences("ABCDEFGH") == []
    assert store.sentences("ZZZZZZZZ") == []


def test_sentences_are_limited_per_student_and_per_room(store) -> None:
    students = [f"{n:043d}" for n in range(41)]
    writing_room(store, *students)
    for i in range(MAX_SENTENCES_PER_STUDENT):
        assert store.add_sentence("ABCDEFGH", students[0], f"Sentence {i} .", T0) is Sent.ADDED
    assert store.add_sentence("ABCDEFGH", students[0], "One more .", T0) is Sent.STUDENT_FULL
    for s in students[1:40]:
        for i in range(MAX_SENTENCES_PER_STUDENT):
            assert store.add_sentence("ABCDEFGH", s, f"Sentence {i} .", T0) is Sent.ADDED
    assert len(store.sentences("ABCDEFGH")) == MAX_SENTENCES == 400
    assert store.add_sentence("ABCDEFGH", students[40], "The 401st .", T0) is Sent.ROOM_FULL
    assert len(store.sentences("ABCDEFGH")) == MAX_SENTENCES
    store.remove_sentence("ABCDEFGH", store.sentences("ABCDEFGH")[0][0])  # the first student's: room for one more
    assert store.add_sentence("ABCDEFGH", students[0], "Again .", T0) is Sent.ADDED


def test_sentences_sent_at_once_never_pass_the_limits(store) -> None:
    import threading

    students = [f"{n:043d}" for n in range(8)]
    writing_room(store, *students)
    outcomes: list[Sent] = []

    def keep_sending(student: str) -> None:
        for i in range(3 * MAX_SENTENCES_PER_STUDENT):
            outcomes.append(store.add_sentence("ABCDEFGH", student, f"Sentence {i} .", T0))
            outcomes.append(store.add_sentence("ABCDEFGH", students[0], f"Mine {i} .", T0))

    threads = [threading.Thread(target=keep_sending, args=(s,)) for s in students]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    sent = store.sentences("ABCDEFGH")
    authors = Counter(s for _n, s, _t in sent)
    assert set(authors.values()) == {MAX_SENTENCES_PER_STUDENT}
    assert len(sent) == outcomes.count(Sent.ADDED) == 8 * MAX_SENTENCES_PER_STUDENT


def test_sentences_expire_with_their_room(store, store_url) -> None:
    writing_room(store, "a" * 43)
    store.add_sentence("ABCDEFGH", "a" * 43, "We like lunch .", T0)
    assert store.add_sentence("ABCDEFGH", "a" * 43, "Too late .", T0 + IDLE + 1) is Sent.CLOSED
    if isinstance(store, SQLiteStore):
        store.purge(T0 + IDLE + 1)
        assert store.sentences("ABCDEFGH") == []
    else:  # the sentences' keys expire with the room's, and the room's changes keep them as long as its other keys
        import redis

        r = redis.Redis.from_url(store_url)
        assert 0 < r.ttl("tbt:room:ABCDEFGH:sentences") <= IDLE
        r.expire("tbt:room:ABCDEFGH:sentences", 5)
        store.update(store.get("ABCDEFGH", T0), T0 + 1, topic="soup")
        assert r.ttl("tbt:room:ABCDEFGH:sentences") > 5 and r.ttl("tbt:room:ABCDEFGH:authors") > 5
