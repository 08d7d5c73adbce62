"""Finished answers kept by URL: a screen is a pure function of its address, so it is made once.

Everything that decides a screen travels in the query string (state.py), and the step's r comes
from the seed and the step number, so the same request always gets the same bytes. A lecture hall
asks for the same few addresses again and again: every student who scans the QR code opens the
teacher's screen, and every student who follows along presses Step on the same state. The first
request renders; the rest are answered from here, for about what /healthz costs.

Each route declares where it is defined whether its answer is such a pure function of its URL
(policy.py: Cache.SHARED) and which query parameters it reads besides the state; only those
routes' answers are kept. Room pages, POSTs and anything that reads cookies or a store are never kept.

The key is everything a view reads, and nothing else: the root path and the path, the checked
state written back as the page writes it (State.query_string: a parameter no view reads never makes
a new key, and "temperature=1" and "temperature=1.0" share one), the few other parameters the
route declares, the host and scheme (the share link and the QR code name them), the page's language
(from `lang=`, else the browser's Accept-Language: translations.py), whether htmx asks (fragments or
the page) and whether gzip is accepted. A request whose state does not check out is
not looked up at all: the view answers its error, and errors are never kept. Only 200 and 303
answers to GET are kept, in a least-recently-used store bounded by RESPONSE_CACHE_BYTES (0 turns it
off), counting each entry's key as well as its answer, so hostile input cannot grow it past that.
A kept answer with an ETag (a QR code: share.py) is a 304 for a browser that has it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from flask import Flask, Response, g, request

from ...inference import InferenceError
from ..i18n.translations import current_language
from .compress import accepts_gzip
from .policy import Cache, Policy, request_policy

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


def key_size(key: tuple) -> int:
    """Bytes a key holds: its strings and bytes, plus a little for each part."""
    return sum(len(part) if isinstance(part, (str, bytes)) else 0 for part in key) + 16 * len(key)


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
        size = kept.size + key_size(key)
        if size > self.max_bytes // 8:  # one huge answer must not flush everything else
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old.size + key_size(key)
            self._items[key] = kept
            self.bytes += size
            while self.bytes > self.max_bytes:
                dropped_key, dropped = self._items.popitem(last=False)
                self.bytes -= dropped.size + key_size(dropped_key)


def canonical_query(policy: Policy) -> str | None:
    """The query as the view reads it: the checked state, then the other parameters the route declares.

    "?x=1&temperature=1&model=austen-bigram" and "?model=austen-bigram&temperature=1.0" -> the same;
    None when the state does not check out (the view will say why).
    """
    args = request.args  # UTF-8 and within its size: security.check_requests ran first
    parts = []
    if policy.state is not None:
        try:
            state = policy.state()  # kept for the work budget (budget.py) and the view, which read it next
        except InferenceError:
            return None
        parts.append(state.query_string())
    for name in policy.reads:
        if name in args:
            parts.append(f"{name}={args[name]!r}")
    return "&".join(parts)


def request_key(policy: Policy) -> tuple | None:
    query = canonical_query(policy)
    if query is None:
        return None
    headers = request.headers
    return (
        request.script_root,  # the links on a page start with it
        request.path,
        query,
        request.host,
        request.scheme,
        current_language(),  # the same state in German is another answer, whether lang= or the header chose it
        headers.get("HX-Request") == "true",
        headers.get("HX-History-Restore-Request") == "true",
        accepts_gzip(),
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
        policy = request_policy()
        if request.method != "GET" or policy is None or policy.cache is not Cache.SHARED:
            return None
        key = request_key(policy)
        if key is None:
            return None
        kept = cache.get(key)
        if kept is None:
            g.cache_key = key  # keep what the view answers
            return None
        response = Response(kept.body, status=kept.status, headers=kept.headers)
        return response.make_conditional(request) if "ETag" in response.headers else response  # the QR codes

    @app.after_request
    def keep(response: Response) -> Response:
        key = g.pop("cache_key", None)
        if g.get("cut_short"):  # a deadline cut it: the same request may get all of it later
            return response
        if key is not None and response.status_code in KEPT_STATUSES and not response.is_streamed:
            cache.put(key, Kept(response.status_code, list(response.headers.items()), response.get_data()))
        return response
