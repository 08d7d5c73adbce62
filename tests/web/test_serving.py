"""The production server, started as a user starts it: what a proxy may tell it, and clients that send slowly.

`python -m webapp --trusted-proxy 127.0.0.1` on a free port, with the bundled models only.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from webapp.buffered_worker import RequestBuffer, request_complete

ROOT = Path(__file__).resolve().parent.parent.parent
HOST = "127.0.0.1"
PAGE = "/?" + urlencode({"prompt": "X", "model": "austen-bigram"})


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def get(port: int, target: str, headers: dict | None = None, timeout: float = 30) -> tuple[int, str]:
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", target, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


@pytest.fixture(scope="module")
def port(tmp_path_factory) -> Iterator[int]:
    """The default server (gunicorn's processes, where it runs), behind a proxy on 127.0.0.1."""
    port, logs = free_port(), tmp_path_factory.mktemp("server")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOKEN_BY_TOKEN_MODELS": str(logs / "no-user-models")}
    env.pop("TOKEN_BY_TOKEN_MODEL_FILE", None)
    command = [sys.executable, "-m", "webapp", "--host", HOST, "--port", str(port), "--trusted-proxy", HOST]
    with open(logs / "log.txt", "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    try:
        for _ in range(600):
            if server.poll() is not None:
                pytest.fail((logs / "log.txt").read_text(errors="replace"))
            try:
                get(port, "/healthz", timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_a_root_path_from_the_proxy_never_reaches_another_clients_page(port):
    """The poisoning sequence: a request that names a root path (and the scheme, the ways gunicorn
    once believed), then a plain one from another client, which must get the clean page."""
    for headers in ({"SCRIPT_NAME": "//evil.example"}, {"X-Forwarded-Ssl": "on"},
                    {"X-Forwarded-Protocol": "ssl"}, {"X-Forwarded-Prefix": "//evil.example"}):
        for _ in range(6):  # each of the server's processes keeps answers of its own
            get(port, "//evil.example" + PAGE, headers)
            get(port, PAGE, headers)
    for _ in range(6):
        status, page = get(port, PAGE)
        assert status == 200
        assert "evil.example" not in page
        assert f'value="http://{HOST}:{port}/?' in page, "the share link keeps the scheme the request came by"


def test_the_proxys_x_forwarded_proto_is_believed(port):
    """The one header the proxy is trusted for: the same page, asked through https, says https."""
    status, page = get(port, PAGE, {"X-Forwarded-Proto": "https"})
    assert status == 200 and f'value="https://{HOST}:{port}/?' in page


@pytest.mark.parametrize("how", ["header", "body"])
def test_slow_clients_do_not_keep_others_waiting(port, how):
    """Twelve connections that send their request a little at a time (more than the server's threads)."""
    head = f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: " if how == "header" else \
        f"POST /healthz HTTP/1.1\r\nHost: {HOST}\r\nTransfer-Encoding: chunked\r\n\r\n"
    slow = [socket.create_connection((HOST, port), timeout=10) for _ in range(12)]
    try:
        for sock in slow:
            sock.sendall(head.encode())
        for _ in range(3):
            time.sleep(0.5)
            for sock in slow:
                sock.sendall(b"a" if how == "header" else b"1\r\nx\r\n")
            assert get(port, "/healthz", timeout=10) == (200, '{"status":"ok"}\n')
    finally:
        for sock in slow:
            sock.close()


HEAD = b"GET / HTTP/1.1\r\nHost: a\r\n"


WHOLE = [pytest.param(data, complete) for data, complete in [
    (HEAD + b"\r\n", True),
    (HEAD, False),
    (b"GET / HT", False),
    (HEAD + b"Content-Length: 5\r\n\r\nabc", False),
    (HEAD + b"content-length: 5\r\n\r\nabcde", True),
    (HEAD + b"Content-Length: 999999\r\n\r\n", None),  # beyond what is buffered: the app says 413
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n", False),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n", False),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", True),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n", True),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", True),  # not chunked framing: the parser refuses it
    (b"GET /" + b"a" * 400_000, None),  # a request line past the limit: the parser refuses it
]]


@pytest.mark.parametrize(("data", "complete"), WHOLE)
def test_a_request_goes_to_a_thread_once_it_is_whole(data, complete):
    assert request_complete(data) is complete


@pytest.mark.parametrize(("data", "complete"), [case.values for case in WHOLE if len(case.values[0]) < 1000])
def test_a_request_sent_a_byte_at_a_time_is_whole_at_its_last_byte(data, complete):
    buffer = RequestBuffer()
    said = [buffer.feed(data[i : i + 1]) for i in range(len(data))]
    assert said[-1] is complete
    assert all(s is False for s in said[:-1]), "not whole before its last byte"
