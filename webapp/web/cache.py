"""Finished answers kept by URL: a screen is a pure function of its address, so it is made once.

Everything that decides a screen travels in the query string (state.py), and the step's r comes
from the seed and the step number, so the same request always gets the same bytes. A lecture hall
asks for the same few addresses again and again: every student who scans the QR code opens the
teacher's screen, and every student who follows along presses Step on the same state. The first
request renders; the rest are answered from here, for about what /healthz costs.

The key is everything a view reads: the path, the raw query string, the host (the share link and
the QR code name it), whether htmx asks (fragments or the page) and whether gzip is accepted.
Only 200 and 303 answers to GET are kept, in a least-recently-used store bounded by
RESPONSE_CACHE_BYTES (0 turns it off). Errors are not kept, so hostile input cannot fill it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from flask import Flask, Response, g, request

CACHED_ENDPOINTS = frozenset({
    "stepper.show", "stepper.step", "stepper.back", "stepper.reset", "stepper.choose",
    "stepper.qr_code", "stepper.vocabulary", "stepper.export_json", "stepper.export_csv",
    "api.step", "api.models",
})
KEPT_STATUSES = (200, 303)
DEFAULT_BYTES = 32 * 2**20  # per process: about 3,500 gzipped step answers of ~9 KB with their headers


@dataclass(frozen=True)
class Kept:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    @property
    def size(self) -> int:
        return len(self.body) + sum(len(k) + len(v) for k, v in self.headers) + 200  # the entry's own overhead


class ResponseCache:
    """A thread-safe LRU of finished answers, bounded in bytes."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[tuple, Kept] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: tuple) -> Kept | None:
        with self._lock:
            kept = self._items.get(key)
            if kept is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return kept

    def clear(self) -> None:
        """Forget every answer: the screens changed (a model was added while the server runs)."""
        with self._lock:
            self._items.clear()
            self.bytes = 0

    def put(self, key: tuple, kept: Kept) -> None:
        if kept.size > self.max_bytes // 8:  # one huge answer must not flush everything else
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old.size
            self._items[key] = kept
            self.bytes += kept.size
            while self.bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self.bytes -= dropped.size


def request_key() -> tuple:
    headers = request.headers
    return (
        request.path,
        request.query_string,
        request.host,
        request.scheme,
        headers.get("HX-Request") == "true",
        headers.get("HX-History-Restore-Request") == "true",
        "gzip" in headers.get("Accept-Encoding", "").lower(),
    )


def register(app: Flask) -> None:
    """Answer from the cache before the view; keep the finished answer after every other hook.

    Call this before registering the other after_request hooks: Flask runs them last registered
    first, so this one sees the answer as it leaves (gzipped, with its security headers).
    """
    max_bytes = int(app.config.get("RESPONSE_CACHE_BYTES", DEFAULT_BYTES))
    if max_bytes <= 0:
        return
    cache = app.extensions["response_cache"] = ResponseCache(max_bytes)

    @app.before_request
    def answer_from_cache():
        if request.method != "GET" or request.endpoint not in CACHED_ENDPOINTS:
            return None
        key = request_key()
        kept = cache.get(key)
        if kept is None:
            g.cache_key = key  # keep what the view answers
            return None
        return Response(kept.body, status=kept.status, headers=kept.headers)

    @app.after_request
    def keep(response: Response) -> Response:
        key = g.pop("cache_key", None)
        if key is not None and response.status_code in KEPT_STATUSES and not response.is_streamed:
            cache.put(key, Kept(response.status_code, list(response.headers.items()), response.get_data()))
        return response
