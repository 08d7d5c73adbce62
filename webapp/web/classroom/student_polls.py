"""Students' polls, answered before Flask where it can be: a bare 304, or the screen already rendered.

Most of what a lecture hall sends is one question, "has the teacher's screen changed since version
N?" (GET /room/CODE/screen with If-None-Match), and the answer is one read of the room's version
from the store: 304 while it is the same. When it changes, a thousand students ask for the same new
screen within a second; the first request in each process renders it (room.follow_screen) and the
answer, headers and all, is kept here by (room, version, language, gzip) for the rest: each student
reads the screen in their own language (translations.choose_language, from the same request).
Only a student of the room is answered here (an id the server signed for it, checked without the
store); any other request goes on to the app, which refuses it whether or not the room is open.
While the room store is not answering, the poll goes on to the app, which answers its 503.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

from flask import Flask
from werkzeug.http import parse_cookie

from ...room.store import StoreUnavailable
from ..i18n.translations import choose_language
from . import room_access as access
from . import room_support as rs

SCREEN_PATH = re.compile(r"^/room/([A-Z0-9]{8})/screen$")
KEPT_SCREENS = 64


class StudentPolls:
    """WSGI middleware in front of the app for GET /room/CODE/screen."""

    def __init__(self, wsgi_app, app: Flask):
        self.wsgi_app, self.app = wsgi_app, app
        self.screens = rs.LRU(KEPT_SCREENS)

    def __call__(self, environ, start_response):
        match = SCREEN_PATH.match(environ.get("PATH_INFO", ""))
        if not match or environ.get("REQUEST_METHOD") != "GET":
            return self.wsgi_app(environ, start_response)
        code = match.group(1)
        try:
            if not access.is_student_of(code, parse_cookie(environ.get("HTTP_COOKIE")), self.app):
                return self.wsgi_app(environ, start_response)  # refused there, the same whether the room is open or not
            version = rs.store(self.app).version(code, rs.now())
        except StoreUnavailable:
            version = None  # the app answers: its 503 with Retry-After, at once while the store's breaker is open
        if version is None:
            return self.wsgi_app(environ, start_response)  # the app says the room has ended
        etag = f'"{code}-{version}"'
        if environ.get("HTTP_IF_NONE_MATCH", "").strip() == etag:
            start_response("304 Not Modified", [("ETag", etag), ("Cache-Control", "no-cache")])
            return [b""]
        gz = "gzip" in environ.get("HTTP_ACCEPT_ENCODING", "").lower()
        lang = parse_qs(environ.get("QUERY_STRING", "")).get("lang", [None])[0]
        language = choose_language(lang, environ.get("HTTP_ACCEPT_LANGUAGE", ""))  # and whether the header chose it
        kept = self.screens.get((code, version, language, gz))
        if kept is not None and self.still_in(code, environ):
            start_response("200 OK", kept[0])
            return [kept[1]]
        return self.render(environ, start_response, (code, language, gz))

    def still_in(self, code: str, environ) -> bool:
        """Whether the student is still in the room (the teacher may have taken them out): else the app refuses.
        Asked only when a new version is sent, as the app asks it: a removal always makes a new version."""
        student = parse_cookie(environ.get("HTTP_COOKIE")).get(access.STUDENT_COOKIE + code)
        try:
            return rs.store(self.app).nickname(code, student) is not None
        except StoreUnavailable:
            return False  # the app answers, with its 503

    def render(self, environ, start_response, key: tuple[str, tuple[str, bool], bool]):
        """Let the app render the screen; keep a 200 under the version its ETag names."""
        answer = {}

        def capture(status, headers, exc_info=None):
            answer["status"], answer["headers"] = status, list(headers)
            return start_response(status, headers, exc_info)

        iterable = self.wsgi_app(environ, capture)
        try:
            body = b"".join(iterable)
        finally:
            if hasattr(iterable, "close"):
                iterable.close()
        if answer.get("status", "").startswith("200"):
            etag = dict((k.lower(), v) for k, v in answer["headers"]).get("etag", "")
            version = etag.strip('"').rpartition("-")[2]
            if version.isdigit():
                code, language, gz = key
                self.screens.put((code, int(version), language, gz), (answer["headers"], body))
        return [body]
