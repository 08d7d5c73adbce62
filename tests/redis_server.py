"""A real redis-server for the room store's tests: on a free 127.0.0.1 port, nothing saved, stopped after."""

from __future__ import annotations

import shutil
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


def start_redis(folder: Path) -> tuple[str, subprocess.Popen]:
    """Start redis-server; return its URL and process. Skip the test if there is no redis-server."""
    executable = shutil.which("redis-server")
    if executable is None:
        pytest.skip(NO_REDIS)
    port = free_port()
    command = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
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
