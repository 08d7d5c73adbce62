"""A real redis-server for the room store's tests: on a free 127.0.0.1 port, nothing saved unless asked,
stopped after; and one a test may pause, kill and start again (RedisServer)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

NO_REDIS = "redis-server is not installed (Debian: apt-get install redis-server); the Redis store's tests need one"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(folder: Path, port: int | None = None, keep: bool = False) -> tuple[str, subprocess.Popen]:
    """Start redis-server; return its URL and process. Skip the test if there is no redis-server.

    port: a given one (to start a server again where one was killed); keep: write every change to an
    append-only file in `folder` before answering, so that a server started again there has them all.
    """
    executable = shutil.which("redis-server")
    if executable is None:
        pytest.skip(NO_REDIS)
    port = port or free_port()
    saving = ["--appendonly", "yes", "--appendfsync", "always"] if keep else ["--appendonly", "no"]
    command = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "", *saving,
               "--dir", str(folder), "--protected-mode", "yes"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return f"redis://127.0.0.1:{port}/0", process
        except OSError:
            time.sleep(0.05)
    process.kill()
    pytest.fail(f"redis-server did not answer on port {port}")


def stop_redis(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Clock:
    """The breaker's clock, moved on by the test: the cooldown passes without waiting for it."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class RedisServer:
    """A redis-server of the test's own, to pause, kill and start again on the same port."""

    def __init__(self, folder: Path, keep: bool = False):
        self.folder, self.keep = folder, keep
        self.url, self.process = start_redis(folder, keep=keep)
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])

    def pause(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def start_again(self) -> None:
        self.url, self.process = start_redis(self.folder, port=self.port, keep=self.keep)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.resume()
            stop_redis(self.process)
