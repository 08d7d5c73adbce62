"""Open the room store a URL names: SQLite on one machine (the default), Redis across several."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .redis_store import RedisStore
from .sqlite_store import SQLiteStore
from .store import DEFAULT_IDLE_SECONDS, RoomStore

STORE_ENV = "TOKEN_BY_TOKEN_ROOM_STORE"


def data_dir() -> Path:
    """The user's data folder for the app: $XDG_DATA_HOME or ~/.local/share on Linux, and so on."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "token-by-token"


def default_store_url() -> str:
    return os.environ.get(STORE_ENV) or f"sqlite:///{data_dir() / 'rooms.sqlite3'}"


def open_store(url: str | None = None, idle_seconds: float = DEFAULT_IDLE_SECONDS) -> RoomStore:
    """Open the store a URL names: sqlite:///path/rooms.sqlite3 (or a plain path), or redis://host:port/db."""
    url = url or default_store_url()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url, idle_seconds)
    path = url[len("sqlite://"):] if url.startswith("sqlite://") else url  # sqlite:///tmp/r.db -> /tmp/r.db
    return SQLiteStore(Path(path).expanduser(), idle_seconds)


def check_store_url(url: str) -> str:
    """Refuse a --store value that names neither backend (a typo should stop the server, not later)."""
    if url.startswith(("redis://", "rediss://", "unix://", "sqlite://")) or "://" not in url:
        return url
    raise ValueError(f"--store must be sqlite:///PATH or redis://HOST:PORT/DB, not {url!r}")
