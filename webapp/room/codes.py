"""Join codes, teacher keys and student ids: made at random, checked in constant time.

A join code is read aloud and typed on a phone, so its alphabet leaves out 0/O and 1/I:
32 symbols, 8 of them (shown as "ABCD-EFGH"), 32**8 = 1.1e12 codes. With at most
MAX_ROOMS rooms open and failed joins limited per address (see the web layer), guessing a
live room is hopeless: 10 guesses a minute find one of 1,000 rooms once in about 2,000 years.

The teacher key is 256 random bits; the store keeps only its SHA-256, so a copy of the
store cannot be used to take a room over.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0, O, 1, I
CODE_LENGTH = 8
MAX_NICKNAME = 24
_ID = re.compile(r"^[A-Za-z0-9_-]{22,64}$")


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


def new_secret() -> str:
    """256 random bits, URL-safe: a teacher key or a student id."""
    return secrets.token_urlsafe(32)


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
