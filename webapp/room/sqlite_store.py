"""The room store in one SQLite file, shared by every process of the server on one machine.

WAL mode lets readers (students polling the version) go on while a writer commits, and
synchronous=NORMAL commits without waiting for the disk: a crash of the server loses nothing,
a power cut may lose the last commits. Each thread of each process has its own connection
(made after gunicorn forks); the threads of a process take turns to write, and a writer waits
up to BUSY_MS for another process's writer to finish.
"""

from __future__ import annotations

import functools
import os
import secrets
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from ..inference.class_bigram import MAX_SENTENCES, MAX_SENTENCES_PER_STUDENT
from .store import MAX_VOTE_CHANGES, ROOM_FIELDS, Room, RoomsFull, RoomStore, Sent, Vote

BUSY_MS = 10_000
SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, state TEXT NOT NULL, version INTEGER NOT NULL,
    action TEXT NOT NULL, votes_on INTEGER NOT NULL, round INTEGER NOT NULL, round_open INTEGER NOT NULL,
    round_key TEXT NOT NULL, leaderboard INTEGER NOT NULL, created REAL NOT NULL, touched REAL NOT NULL,
    n_rounds INTEGER NOT NULL DEFAULT 0, rounds TEXT NOT NULL DEFAULT '',
    tally_shown INTEGER NOT NULL DEFAULT 0, ended INTEGER NOT NULL DEFAULT 0,
    lesson TEXT NOT NULL DEFAULT '', lesson_screen INTEGER NOT NULL DEFAULT 0,
    topic TEXT NOT NULL DEFAULT '', writing INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS students (
    code TEXT NOT NULL, student TEXT NOT NULL, nickname TEXT NOT NULL, PRIMARY KEY (code, student));
CREATE TABLE IF NOT EXISTS votes (
    code TEXT NOT NULL, round INTEGER NOT NULL, student TEXT NOT NULL, token INTEGER NOT NULL,
    changes INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (code, round, student));
CREATE INDEX IF NOT EXISTS votes_by_student ON votes (code, student);
CREATE TABLE IF NOT EXISTS results (
    code TEXT NOT NULL, round INTEGER NOT NULL, result TEXT NOT NULL, PRIMARY KEY (code, round));
CREATE TABLE IF NOT EXISTS hits (key TEXT PRIMARY KEY, window INTEGER NOT NULL, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS buckets (
    key TEXT PRIMARY KEY, tokens REAL NOT NULL, stamp REAL NOT NULL, full REAL NOT NULL);
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lessons (id TEXT PRIMARY KEY, text TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS texts (id TEXT PRIMARY KEY, text TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sentences (
    n INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL, student TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sentences_by_room ON sentences (code, student);
"""
BOOLEANS = ("votes_on", "round_open", "leaderboard", "tally_shown", "ended", "writing")
# Columns added since the first release, with their definitions: a file an older server made gets them on opening
# (its rooms read them as their defaults: Room.rounds_opened covers the rounds opened before).
ADDED_COLUMNS = {"n_rounds": "INTEGER NOT NULL DEFAULT 0", "rounds": "TEXT NOT NULL DEFAULT ''",
                 "tally_shown": "INTEGER NOT NULL DEFAULT 0", "ended": "INTEGER NOT NULL DEFAULT 0",
                 "lesson": "TEXT NOT NULL DEFAULT ''", "lesson_screen": "INTEGER NOT NULL DEFAULT 0",
                 "topic": "TEXT NOT NULL DEFAULT ''", "writing": "INTEGER NOT NULL DEFAULT 0"}


def writes(method):
    """Let one thread of a process write at a time: the others wait on a lock that wakes them at once,
    rather than in SQLite's busy handler, which sleeps up to 100 ms between tries."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._writing:
            return method(self, *args, **kwargs)

    return locked


def add_columns(db: sqlite3.Connection) -> None:
    """Add the rooms' columns a file from an older server lacks (another process may be adding them too)."""
    for name, definition in ADDED_COLUMNS.items():
        if name not in {row[1] for row in db.execute("PRAGMA table_info(rooms)")}:
            try:
                db.execute(f"ALTER TABLE rooms ADD COLUMN {name} {definition}")
            except sqlite3.OperationalError as error:  # "duplicate column name": the other process came first
                if "duplicate column" not in str(error):
                    raise


class SQLiteStore(RoomStore):
    def __init__(self, path: Path, idle_seconds: float):
        self.path = Path(path)
        self.idle_seconds = idle_seconds
        self._local = threading.local()
        self._writing = threading.RLock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)
            add_columns(db)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        return db

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection; a forked process makes its own rather than share its parent's."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.db, local.pid = self._connect(), os.getpid()
        return local.db

    def _alive(self, now: float) -> float:
        return now - self.idle_seconds

    @writes
    def create(self, room: Room, max_rooms: int) -> bool:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            (n,) = db.execute("SELECT count(*) FROM rooms WHERE touched > ?", (self._alive(room.touched),)).fetchone()
            if n >= max_rooms:
                raise RoomsFull
            if db.execute("SELECT 1 FROM rooms WHERE code = ?", (room.code,)).fetchone():
                return False
            values = [getattr(room, f) for f in ROOM_FIELDS]
            db.execute(f"INSERT INTO rooms ({', '.join(ROOM_FIELDS)}) VALUES ({', '.join('?' * len(values))})", values)
            return True
        finally:
            db.execute("COMMIT")

    def get(self, code: str, now: float) -> Room | None:
        row = self.db.execute(f"SELECT {', '.join(ROOM_FIELDS)} FROM rooms WHERE code = ? AND touched > ?",
                              (code, self._alive(now))).fetchone()
        if row is None:
            return None
        values = dict(zip(ROOM_FIELDS, row, strict=True))
        return Room(**{k: bool(v) if k in BOOLEANS else v for k, v in values.items()})

    def version(self, code: str, now: float) -> int | None:
        row = self.db.execute("SELECT version FROM rooms WHERE code = ? AND touched > ?",
                              (code, self._alive(now))).fetchone()
        return None if row is None else row[0]

    @writes
    def update(self, room: Room, now: float, **changes) -> Room | None:
        unknown = set(changes) - set(ROOM_FIELDS)
        if unknown or {"code", "version", "key_hash"} & set(changes):
            raise ValueError(f"cannot change {sorted(unknown or changes)}")
        changes["touched"] = now
        sets = ", ".join(f"{k} = ?" for k in changes)
        cursor = self.db.execute(f"UPDATE rooms SET {sets}, version = version + 1 WHERE code = ? AND version = ?",
                                 (*changes.values(), room.code, room.version))
        if cursor.rowcount != 1:
            return None
        return Room(**{**room.__dict__, **changes, "version": room.version + 1})

    @writes
    def close_round(self, room: Room, now: float, round_: int, count: Callable[[dict[str, int]], str],
                    **changes) -> Room | None:
        db = self.db
        db.execute("BEGIN IMMEDIATE")  # the write lock: no vote can land until COMMIT
        try:
            updated = self.update(room, now, **changes)
            if updated is not None:
                self.save_result(room.code, round_, count(self.votes(room.code, round_)))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return updated

    @writes
    def join(self, code: str, student: str, nickname: str, max_students: int) -> bool:
        if self.nickname(code, student) is not None:  # joining again, e.g. with another nickname
            self.db.execute("UPDATE students SET nickname = ? WHERE code = ? AND student = ?",
                            (nickname, code, student))
            return True
        cursor = self.db.execute(
            "INSERT INTO students (code, student, nickname) SELECT ?, ?, ? "
            "WHERE (SELECT count(*) FROM students WHERE code = ?) < ? "
            "ON CONFLICT (code, student) DO UPDATE SET nickname = excluded.nickname",
            (code, student, nickname, code, max_students))
        return cursor.rowcount == 1

    def nickname(self, code: str, student: str) -> str | None:
        row = self.db.execute("SELECT nickname FROM students WHERE code = ? AND student = ?",
                              (code, student)).fetchone()
        return None if row is None else row[0]

    def students(self, code: str) -> dict[str, str]:
        return dict(self.db.execute("SELECT student, nickname FROM students WHERE code = ?", (code,)))

    def n_students(self, code: str) -> int:
        return self.db.execute("SELECT count(*) FROM students WHERE code = ?", (code,)).fetchone()[0]

    @writes
    def remove(self, code: str, student: str) -> bool:
        db = self.db
        db.execute("BEGIN IMMEDIATE")  # a vote racing the removal lands before it (and goes) or is refused
        try:
            removed = db.execute("DELETE FROM students WHERE code = ? AND student = ?", (code, student)).rowcount
            db.execute("DELETE FROM votes WHERE code = ? AND student = ? "
                       "AND round NOT IN (SELECT round FROM results WHERE code = ?)", (code, student, code))
        finally:
            db.execute("COMMIT")
        return removed == 1

    @writes
    def clear_votes(self, code: str, round_: int) -> int:
        return self.db.execute("DELETE FROM votes WHERE code = ? AND round = ?", (code, round_)).rowcount

    @writes
    def vote(self, code: str, round_: int, student: str, token: int) -> Vote:
        cursor = self.db.execute(
            "INSERT INTO votes (code, round, student, token) SELECT ?, ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM rooms WHERE code = ? AND round = ? AND round_open = 1) "
            "AND EXISTS (SELECT 1 FROM students WHERE code = ? AND student = ?) "
            "ON CONFLICT (code, round, student) DO UPDATE SET token = excluded.token, changes = changes + 1 "
            "WHERE changes < ?",
            (code, round_, student, token, code, round_, code, student, MAX_VOTE_CHANGES))
        if cursor.rowcount == 1:
            return Vote.COUNTED
        if self.nickname(code, student) is None:
            return Vote.NOT_JOINED
        open_ = self.db.execute("SELECT 1 FROM rooms WHERE code = ? AND round = ? AND round_open = 1",
                                (code, round_)).fetchone()
        return Vote.TOO_MANY if open_ else Vote.CLOSED

    def votes(self, code: str, round_: int) -> dict[str, int]:
        return dict(self.db.execute("SELECT student, token FROM votes WHERE code = ? AND round = ?", (code, round_)))

    def votes_of(self, code: str, student: str) -> dict[int, int]:
        return dict(self.db.execute("SELECT round, token FROM votes WHERE code = ? AND student = ?", (code, student)))

    def all_votes(self, code: str) -> dict[int, dict[str, int]]:
        every: dict[int, dict[str, int]] = {}
        for round_, student, token in self.db.execute("SELECT round, student, token FROM votes WHERE code = ?",
                                                      (code,)):
            every.setdefault(round_, {})[student] = token
        return every

    @writes
    def save_result(self, code: str, round_: int, result: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO results (code, round, result) VALUES (?, ?, ?)", (code, round_, result))

    def results(self, code: str) -> dict[int, str]:
        return dict(self.db.execute("SELECT round, result FROM results WHERE code = ? ORDER BY round", (code,)))

    @writes
    def hit(self, key: str, limit: int, window: int, now: float) -> bool:
        current = int(now // window) * window  # the window's start, in seconds
        (count,) = self.db.execute(
            "INSERT INTO hits (key, window, count) VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET "
            "count = CASE WHEN window = excluded.window THEN count + 1 ELSE 1 END, window = excluded.window "
            "RETURNING count", (key, current)).fetchone()
        return count <= limit

    @writes
    def take(self, key: str, burst: float, per_second: float, now: float, n: int = 1) -> bool:
        db = self.db
        db.execute("BEGIN IMMEDIATE")  # read, refill and take as one: another process waits
        try:
            row = db.execute("SELECT tokens, stamp FROM buckets WHERE key = ?", (key,)).fetchone()
            if row is None:  # a bucket nobody took from lately is full
                tokens, stamp = burst, now
            else:
                tokens, last = row
                stamp = max(last, now)  # another machine's clock may be a little behind
                tokens = min(burst, tokens + (stamp - last) * per_second)
            taken = tokens >= n
            if taken:
                tokens = min(burst, tokens - n)
            full = stamp + (burst - tokens) / per_second  # from then on the row says what a missing row says
            db.execute("INSERT OR REPLACE INTO buckets (key, tokens, stamp, full) VALUES (?, ?, ?, ?)",
                       (key, tokens, stamp, full))
        finally:
            db.execute("COMMIT")
        return taken

    @writes
    def secret(self) -> str:
        self.db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES ('sign', ?)", (secrets.token_urlsafe(32),))
        return self.db.execute("SELECT value FROM secrets WHERE name = 'sign'").fetchone()[0]

    @writes
    def _keep(self, table: str, file_id: str, text: str, now: float, max_files: int, seconds: float) -> bool:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(f"DELETE FROM {table} WHERE expires <= ?", (now,))
            kept = db.execute(f"SELECT 1 FROM {table} WHERE id = ?", (file_id,)).fetchone()
            if not kept and db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] >= max_files:
                return False
            db.execute(f"INSERT INTO {table} (id, text, expires) VALUES (?, ?, ?) "
                       "ON CONFLICT (id) DO UPDATE SET expires = excluded.expires",
                       (file_id, text, now + seconds))
            return True
        finally:
            db.execute("COMMIT")

    def _kept(self, table: str, file_id: str, now: float, seconds: float) -> str | None:
        row = self.db.execute(f"SELECT text FROM {table} WHERE id = ? AND expires > ?", (file_id, now)).fetchone()
        if row is not None:
            with self._writing:
                self.db.execute(f"UPDATE {table} SET expires = max(expires, ?) WHERE id = ?", (now + seconds, file_id))
        return row[0] if row else None

    def keep_lesson(self, lesson_id: str, text: str, now: float, max_lessons: int, seconds: float) -> bool:
        return self._keep("lessons", lesson_id, text, now, max_lessons, seconds)

    def kept_lesson(self, lesson_id: str, now: float, seconds: float) -> str | None:
        return self._kept("lessons", lesson_id, now, seconds)

    def keep_text(self, text_id: str, text: str, now: float, max_texts: int, seconds: float) -> bool:
        return self._keep("texts", text_id, text, now, max_texts, seconds)

    def kept_text(self, text_id: str, now: float, seconds: float) -> str | None:
        return self._kept("texts", text_id, now, seconds)

    @writes
    def add_sentence(self, code: str, student: str, text: str, now: float,
                     per_student: int = MAX_SENTENCES_PER_STUDENT, most: int = MAX_SENTENCES) -> Sent:
        db = self.db
        db.execute("BEGIN IMMEDIATE")  # count and add as one: a sentence sent at the same moment waits
        try:
            if not db.execute("SELECT 1 FROM rooms WHERE code = ? AND writing = 1 AND touched > ?",
                              (code, self._alive(now))).fetchone():
                return Sent.CLOSED
            if self.nickname(code, student) is None:
                return Sent.NOT_JOINED
            mine, total = db.execute("SELECT coalesce(sum(student = ?), 0), count(*) FROM sentences "
                                     "WHERE code = ?", (student, code)).fetchone()
            if mine >= per_student:
                return Sent.STUDENT_FULL
            if total >= most:
                return Sent.ROOM_FULL
            db.execute("INSERT INTO sentences (code, student, text) VALUES (?, ?, ?)", (code, student, text))
            return Sent.ADDED
        finally:
            db.execute("COMMIT")

    def sentences(self, code: str) -> list[tuple[int, str, str]]:
        return list(self.db.execute("SELECT n, student, text FROM sentences WHERE code = ? ORDER BY n", (code,)))

    @writes
    def remove_sentence(self, code: str, n: int) -> bool:
        return self.db.execute("DELETE FROM sentences WHERE code = ? AND n = ?", (code, n)).rowcount == 1

    @writes
    def clear_sentences(self, code: str) -> int:
        return self.db.execute("DELETE FROM sentences WHERE code = ?", (code,)).rowcount

    @writes
    def purge(self, now: float) -> int:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            old = [code for (code,) in db.execute("SELECT code FROM rooms WHERE touched <= ?", (self._alive(now),))]
            for table in ("votes", "results", "students", "sentences", "rooms"):
                db.executemany(f"DELETE FROM {table} WHERE code = ?", [(c,) for c in old])
            db.execute("DELETE FROM hits WHERE window < ?", (now - 3600,))
            db.execute("DELETE FROM buckets WHERE full < ?", (now,))
            db.execute("DELETE FROM lessons WHERE expires <= ?", (now,))
            db.execute("DELETE FROM texts WHERE expires <= ?", (now,))
        finally:
            db.execute("COMMIT")
        return len(old)

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            del self._local.db, self._local.pid
