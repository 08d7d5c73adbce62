"""The class-room browser tests' helpers: servers with a room store of the test's own, a teacher, students."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import LOCAL_HOST, SERVER_START_TIMEOUT, free_port, stop, wait_until_answering
from playwright.sync_api import Browser, BrowserContext, Page, expect
from stepping import START

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


def start_room(context: BrowserContext, url: str) -> tuple[Page, str]:
    """The teacher opens the stepper and starts a room; return the teacher's page and the room's code."""
    page = context.new_page()
    page.goto(url + START)
    page.get_by_role("button", name="Start a class room").click()
    expect(page).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach"))
    code = page.url.split("/room/")[1].split("/")[0]
    expect(page.locator("#room-code")).to_have_text(f"{code[:4]}-{code[4:]}")
    return page, code


def join_in_german(context: BrowserContext, url: str, code: str, nickname: str = "Jonas") -> Page:
    """join() from a browser whose language is German: the form's labels are German, so it is filled by its ids."""
    page = context.new_page()
    page.goto(f"{url}/join?code={code}")
    page.locator("#nickname").fill(nickname)
    page.locator(".join-form button[type=submit]").click()
    expect(page).to_have_url(f"{url}/room/{code}")
    return page


def join(context: BrowserContext, url: str, code: str, nickname: str = "") -> Page:
    page = context.new_page()
    page.goto(f"{url}/join?code={code}")
    if nickname:
        page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Join").click()
    expect(page).to_have_url(f"{url}/room/{code}")
    return page


def step(teacher: Page, name: str = "Step") -> None:
    """Press a control on the teacher's screen and wait until the room has it (the panel comes back)."""
    with teacher.expect_response(re.compile(r"/room/[A-Z0-9]{8}/state$")) as published:
        teacher.locator("#controls .buttons").get_by_role("button", name=name, exact=True).click()
    assert published.value.ok


def query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def vote_open(teacher: Page, code: str) -> list[int]:
    """Votes on, a step revealed, the next one stepped: the vote is open. The ids the class has seen."""
    teacher.get_by_role("button", name="Class votes: off").click()
    expect(teacher.get_by_role("button", name="Class votes: on")).to_be_visible()
    step(teacher)
    reveal(teacher)
    step(teacher)
    expect(teacher.locator("#ranges")).to_contain_text("hidden")
    state = query("/?" + teacher.request.get(f"/room/{code}/results.json").json()["state"])
    *revealed, _pick = [int(i) for i in state["ids"].split(",")]
    return revealed


def reveal(teacher: Page) -> None:
    with teacher.expect_response(re.compile(r"/state$")):
        teacher.get_by_role("button", name="Reveal").click()


def text_of(page: Page) -> str:
    return page.locator(".text-so-far").inner_text()


def new_context(browser: Browser, url: str, **options) -> BrowserContext:
    return browser.new_context(base_url=url, reduced_motion="reduce", **options)
