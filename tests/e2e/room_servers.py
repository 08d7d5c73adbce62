"""Servers for the class-room browser tests: `python -m webapp` with a room store of the test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LOCAL_HOST, SERVER_START_TIMEOUT, free_port, stop, wait_until_answering

REPO = Path(__file__).resolve().parent.parent.parent


class Server:
    """The production server (gunicorn, a process per core) on a port of its own, started and stopped at will."""

    def __init__(self, store: str, logs: Path, port: int | None = None):
        self.store, self.logs = store, logs
        self.port = port or free_port()
        self.url = f"http://{LOCAL_HOST}:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> Server:
        command = [sys.executable, "-m", "webapp", "--host", LOCAL_HOST, "--port", str(self.port),
                   "--store", self.store]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with open(self.logs / f"stdout-{self.port}.txt", "ab") as out, open(self.logs / f"stderr-{self.port}.txt",
                                                                           "ab") as err:
            self.process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=REPO)
        problem = wait_until_answering(self.url + "/healthz", self.process, SERVER_START_TIMEOUT)
        if problem:
            errors = (self.logs / f"stderr-{self.port}.txt").read_text(errors="replace")
            pytest.fail(f"{' '.join(command)}: {problem}\n{errors}", pytrace=False)
        return self

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None
