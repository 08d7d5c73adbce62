"""Who may ask what of a room: ids the server signed, allowances per network, lookups that count wrong codes.

A teacher's key and a student's id are ids the server signed for the room (codes.signed_id, under a
secret kept in the store and so shared by every process on every machine): a browser holds one only
if it started or joined that room, and a made-up one is refused before the store is asked anything.

Whether a code names an open room is answered only to a request that proves it knew the room (a
signed id for it) or that pays for the question: a lookup by anyone else takes a token from their
network's allowance of wrong codes and gives it back if the code was right. So guessing codes stops
at ROOM_FAILED_LOOKUPS_PER_MINUTE, and once that allowance is spent every such lookup gets 429,
right code or wrong, and tells nothing. Joining and starting rooms have allowances per network too:
a token bucket each (store.take), whose burst a class behind one school NAT fits in and whose
steady rate holds a script back. The numbers, and why, are in docs/operations.md.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from dataclasses import dataclass

from flask import Flask, abort, current_app, request

from ...room import codes
from ...room.backends import default_store_url, open_store
from ...room.store import Room, RoomStore
from ..i18n.translations import gettext as _

TEACHER_COOKIE = "tbt_teacher"
STUDENT_COOKIE = "tbt_student_"  # + the room's code: joining the same room again keeps the same student
SECRET_SECONDS = 60  # a process reads the signing secret again after this: a new store makes a new one
_store_lock = threading.Lock()


def store(app: Flask | None = None) -> RoomStore:
    """The app's room store, opened on first use (in each process: after gunicorn forks)."""
    app = app or current_app
    existing = app.extensions.get("room_store")
    if existing is not None:
        return existing
    with _store_lock:
        if "room_store" not in app.extensions:
            url = app.config.get("ROOM_STORE") or default_store_url()
            app.extensions["room_store"] = open_store(url, app.config["ROOM_IDLE_SECONDS"])
        return app.extensions["room_store"]


def now() -> float:
    return time.time()


# --- ids the server signed ------------------------------------------------------------------------

def secret(app: Flask | None = None) -> str:
    """The store's signing secret, read again every SECRET_SECONDS (every process shares it through the store)."""
    app = app or current_app
    kept = app.extensions.get("room_secret")
    if kept is None or time.monotonic() - kept[1] > SECRET_SECONDS:
        kept = app.extensions["room_secret"] = (store(app).secret(), time.monotonic())
    return kept[0]


def new_student_id(code: str) -> str:
    return codes.signed_id(secret(), code, codes.STUDENT)


def new_teacher_key(code: str) -> str:
    return codes.signed_id(secret(), code, codes.TEACHER)


def is_student_of(code: str, cookies, app: Flask | None = None) -> bool:
    """Whether the cookies hold a student id the server signed for this room (the store is not asked)."""
    return codes.is_signed(secret(app), code, codes.STUDENT, cookies.get(STUDENT_COOKIE + code))


def signed_student(code: str) -> str | None:
    """This browser's student id for the room, if the server signed it for that room; else None."""
    return request.cookies.get(STUDENT_COOKIE + code) if is_student_of(code, request.cookies) else None


def has_teacher_key(code: str) -> bool:
    return codes.is_signed(secret(), code, codes.TEACHER, request.cookies.get(TEACHER_COOKIE))


def knows_room(code: str) -> bool:
    """Whether the request proves it knew the room: a student id or teacher key the server signed for it."""
    return signed_student(code) is not None or has_teacher_key(code)


# --- allowances per network -----------------------------------------------------------------------

@dataclass(frozen=True)
class Allowance:
    """What one network may do: `burst` at once, then `per_second` more each second (store.take's bucket)."""

    name: str
    burst: float
    per_second: float


def joins() -> Allowance:
    config = current_app.config
    return Allowance("joins", config["ROOM_JOINS_AT_ONCE"], config["ROOM_JOINS_PER_SECOND"])


def starts() -> Allowance:
    per_hour = current_app.config["ROOM_STARTS_PER_HOUR"]
    return Allowance("starts", per_hour, per_hour / 3600)


def failed_lookups() -> Allowance:
    per_minute = current_app.config["ROOM_FAILED_LOOKUPS_PER_MINUTE"]
    return Allowance("lookups", per_minute, per_minute / 60)


def take(allowance: Allowance, n: int = 1) -> bool:
    """Take n tokens from the allowance of the request's network (a negative n gives them back)."""
    return store().take(f"{allowance.name}:{network()}", allowance.burst, allowance.per_second, now(), n)


def network() -> str:
    """Whom the allowances count: an IPv4 address, or an IPv6 /56 (what an ISP gives a household; a school
    gets a /56 or a /48: its machines may take any address in it, so counting addresses would count nothing)."""
    address = request.remote_addr or ""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:  # ::ffff:192.0.2.7, an IPv4 client of a dual-stack socket
        return str(ip.ipv4_mapped)
    return f"{ipaddress.IPv6Address(int(ip) >> 72 << 72)}/56"


# --- finding a room -------------------------------------------------------------------------------

def lookup(code: str | None) -> Room | None:
    """The open room with this code, or None. Unless the request knows the room, the question takes a token
    from the network's wrong codes and gives it back if the code was right; 429 when none is left."""
    if code and knows_room(code):
        return open_room(code)
    wrong = failed_lookups()
    if not take(wrong):
        abort(429, description=_("too many wrong room codes from this network; wait a minute and try again."))
    room = open_room(code)
    if room is not None:
        take(wrong, -1)
    return room


def open_room(code: str | None) -> Room | None:
    return store().get(code, now()) if code and codes.normalise_code(code) == code else None


def find_room(code: str) -> Room:
    room = lookup(code)
    if room is None:
        abort(404, description=_("there is no open room with that code: it may have ended, or the code is mistyped."))
    return room


def teacher_room(code: str) -> Room:
    """The room, for its teacher only: a browser without a key signed for it gets 403 before the store is asked."""
    room = find_room(code) if has_teacher_key(code) else None
    if room is None or not codes.key_matches(request.cookies.get(TEACHER_COOKIE), room.key_hash):
        abort(403, description=_("only the teacher who started this room can change it "
                                 "(this browser has not its key)."))
    return room


def student_id(room: Room) -> str | None:
    """This browser's student id in the room, if it has joined (with an id the server signed for the room)."""
    student = signed_student(room.code)
    if student is None or store().nickname(room.code, student) is None:
        return None
    return student
