"""gunicorn's threaded worker, with each request read whole by the main loop before a thread sees it.

gunicorn's gthread worker gives a thread to a connection as soon as its first bytes arrive, and the
thread then waits there for the rest: eight clients sending a header a byte at a time, or a body a
chunk every few seconds, held every thread of a two-process server, and /healthz stopped answering.
This worker keeps such a connection in its main loop instead, which reads whatever has arrived
(without waiting) into a buffer, and hands the connection to a thread only once the request is
complete: its head and, by Content-Length or chunked framing, its body. A slow client costs a
buffer, not a thread, and is dropped READ_TIMEOUT seconds after its request began. This is what a
buffering proxy such as nginx does in front of gunicorn, done in the worker, so `python -m webapp`
needs nothing in front.

The request is then parsed by gunicorn from the buffered bytes, as it would be from the socket, and
everything else (keep-alive, graceful shutdown, the threads) is gthread's own.
"""

from __future__ import annotations

import contextlib
import errno
import re
import selectors
import time
from functools import partial

from gunicorn import http
from gunicorn.workers.gthread import TConn, ThreadWorker

READ_TIMEOUT = 10.0  # seconds from a request's first byte (or the connection's start) to its last
MAX_HEAD_BYTES = 256 * 1024 + 64 * 1024  # the longest request line and headers the server reads, and then some
MAX_BODY_BYTES = 64 * 1024  # no page sends a body; the app refuses more (413)

_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)[ \t]*(?=\r\n|$)", re.IGNORECASE)
_CHUNKED = re.compile(rb"\r\ntransfer-encoding:[^\r\n]*chunked", re.IGNORECASE)


class RequestBuffer:
    """The bytes of one request as they arrive, and whether they make a whole request yet.

    Each call to feed() looks only at what is new (a client sending a byte at a time must not make
    the main loop scan its buffer again and again): where the head ends, then the body by its
    Content-Length, or chunk by chunk.
    """

    def __init__(self):
        self.data = bytearray()
        self.head_end = -1  # where the body starts, once the blank line after the headers has come
        self.length: int | None = None  # the body's Content-Length
        self.chunked = False
        self.next_chunk = 0  # where the next chunk's size line starts
        self.trailers = -1  # where the trailers start, after the last chunk

    def feed(self, data: bytes) -> bool | None:
        """Add data; True: the request is whole, False: more is coming, None: more than is buffered."""
        scan_from = max(0, len(self.data) - 3)
        self.data += data
        if self.head_end < 0:
            end = self.data.find(b"\r\n\r\n", scan_from)
            if end < 0:
                return None if len(self.data) > MAX_HEAD_BYTES else False
            self.head_end = self.next_chunk = end + 4
            head = b"\r\n" + bytes(self.data[:end])
            self.chunked = _CHUNKED.search(head) is not None
            length = _CONTENT_LENGTH.search(head)
            self.length = int(length.group(1)) if length else None
            scan_from = self.head_end
        if len(self.data) - self.head_end > MAX_BODY_BYTES + 4096:
            return None
        if self.chunked:
            return self._chunks_complete(scan_from)
        if self.length is None:
            return True
        return None if self.length > MAX_BODY_BYTES else len(self.data) - self.head_end >= self.length

    def _chunks_complete(self, scan_from: int) -> bool:
        data = self.data
        while self.trailers < 0:
            line_end = data.find(b"\r\n", self.next_chunk)
            if line_end < 0:
                return False
            try:
                size = int(bytes(data[self.next_chunk : line_end]).split(b";", 1)[0].strip(), 16)
            except ValueError:
                return True  # not chunked framing: gunicorn's parser will say so
            if size == 0:
                self.trailers = scan_from = line_end + 2
            else:
                self.next_chunk = line_end + 2 + size + 2
                if self.next_chunk > len(data):
                    return False
        if data.startswith(b"\r\n", self.trailers):
            return True
        return data.find(b"\r\n\r\n", max(self.trailers, scan_from - 3)) >= 0


def request_complete(data: bytes) -> bool | None:
    """Whether data holds a whole request: True, False (more is coming), or None (more than is buffered).

    b"GET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n" -> True; b"GET / HTTP/1.1\\r\\nHo" -> False.
    """
    return RequestBuffer().feed(data)


class BufferedThreadWorker(ThreadWorker):
    """gthread, but a connection reaches a thread only with a whole request in hand."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reading: dict[TConn, tuple[RequestBuffer, float]] = {}

    def accept(self, listener):
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:  # another process took it, or the client gave up
            if e.errno in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                return
            raise
        self.nr_conns += 1
        self.read_request(TConn(self.cfg, client_sock, client_addr, listener.getsockname()))

    def on_client_socket_readable(self, conn, client):
        """A kept-alive connection has a new request coming: read it here too."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        conn.sock.setblocking(False)
        self.read_request(conn)

    def read_request(self, conn: TConn) -> None:
        self.reading[conn] = (RequestBuffer(), time.monotonic() + READ_TIMEOUT)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_request_bytes, conn))

    def on_request_bytes(self, conn: TConn, _sock) -> None:
        """Read what has arrived; once the request is whole (or too big to buffer), hand it to a thread."""
        buffer, _ = self.reading[conn]
        try:
            data = conn.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.drop(conn)
            return
        if buffer.feed(data) is False:
            return
        self.poller.unregister(conn.sock)
        del self.reading[conn]
        if conn.parser is None:
            conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
        unreader = conn.parser.unreader
        unreader.unread(unreader.take_buffered() + bytes(buffer.data))  # after anything read ahead before
        conn.data_ready = True
        self.enqueue_req(conn)

    def drop(self, conn: TConn) -> None:
        self.reading.pop(conn, None)
        with contextlib.suppress(OSError, KeyError, ValueError):
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self):
        """Also drop connections whose request has not come whole within READ_TIMEOUT."""
        super().murder_pending()
        now = time.monotonic()
        for conn in [c for c, (_, deadline) in self.reading.items() if deadline < now]:
            self.drop(conn)
