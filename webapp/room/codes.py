"""Join codes, teacher keys and student ids: made at random, signed by the server, checked in constant time.

A join code is read aloud and typed on a phone, so its alphabet leaves out 0/O and 1/I:
32 symbols, 8 of them (shown as "ABCD-EFGH"), 32**8 = 1.1e12 codes. With at most
MAX_ROOMS rooms open and wrong codes limited per address (see the web layer), guessing a
live room is hopeless: 30 guesses a minute find one of 200 rooms once in about 350 years.

A student id or a teacher key is 128 random bits and, after them, an HMAC of the room's code and
those bits under the server's secret (kept in the room store): the server tells an id it gave out
for that room from a made-up one without asking the store, and only a browser that joined or
started the room can hold one. The store keeps only the teacher key's SHA-256, so a copy of the
store cannot be used to take a room over.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import unicodedata

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0, O, 1, I
CODE_LENGTH = 8
MAX_NICKNAME = 24
_ID = re.compile(r"^[A-Za-z0-9_-]{22,64}$")
RANDOM_CHARS = 22  # 16 bytes, URL-safe base64 without padding
STUDENT, TEACHER = "student", "teacher"  # what a signed id is for: one is never taken for the other


def new_code() -> str:
    """A fresh join code, e.g. 'K7QM3XPA'."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str | None:
    """What a student typed, as a code: ' k7qm-3xpa ' -> 'K7QM3XPA'; None if it cannot be one
    (wrong length, or a symbol the alphabet does not have, such as O or 1)."""
    code = re.sub(r"[\s-]", "", text or "").upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def display_code(code: str) -> str:
    """'K7QM3XPA' -> 'K7QM-3XPA', easier to read aloud."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def signed_id(secret: str, code: str, kind: str) -> str:
    """A new id for a room: 128 random bits, then 128 bits of HMAC-SHA256 over (kind, code, those bits)."""
    random_part = secrets.token_urlsafe(16)
    return random_part + _tag(secret, code, kind, random_part)


def is_signed(secret: str, code: str, kind: str, text: str | None) -> bool:
    """Whether text is an id signed_id gave out for this room and kind (a made-up or older one is not)."""
    if not text or len(text) != 2 * RANDOM_CHARS or not _ID.match(text):
        return False
    random_part, tag = text[:RANDOM_CHARS], text[RANDOM_CHARS:]
    return hmac.compare_digest(tag, _tag(secret, code, kind, random_part))


def _tag(secret: str, code: str, kind: str, random_part: str) -> str:
    message = "\x1f".join((kind, code, random_part)).encode("utf-8", "replace")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def is_secret_shaped(text: str | None) -> bool:
    return bool(text) and bool(_ID.match(text))


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("ascii", "replace")).hexdigest()


def key_matches(key: str | None, stored_hash: str) -> bool:
    """Compare a presented key with the stored hash in constant time."""
    if not is_secret_shaped(key):
        return False
    return hmac.compare_digest(key_hash(key), stored_hash)


def clean_nickname(text: str | None) -> str:
    """A nickname as shown: control characters dropped, spaces squeezed, at most 24 characters.

    It is always shown as text (escaped by the templates); this only keeps it short and on one line.
    """
    text = "".join(c for c in (text or "") if unicodedata.category(c)[0] != "C")
    return " ".join(text.split())[:MAX_NICKNAME].rstrip()  # a cut may end on the space between two words
