"""Browser tests: the production server on a free 127.0.0.1 port, driven by Playwright in Chromium.

Fixtures:
    live_server / app_url / base_url  the server's base URL, e.g. "http://127.0.0.1:54321"
                                      (with base_url set, page.goto("/") works)
    requests_seen                     every URL the test's browser context requested
    save_screenshot                   save_screenshot(page, "step-3-phone") -> artifacts/screenshots/...

Every test in this folder is marked `e2e`, so `pytest -m "not e2e"` skips the browser.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page

HERE = Path(__file__).resolve().parent
LOCAL_HOST = "127.0.0.1"
SERVER_START_TIMEOUT = 30.0  # seconds; a cold start loads the models once

# --no-sandbox: containers and root have no user namespaces for Chromium's sandbox.
# The rest stop Chromium phoning home (updates, sync, field trials) so that a test run makes no
# request beyond 127.0.0.1 and needs no network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests in this folder `e2e` (the hook sees every collected test, so filter by path)."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.e2e)


def find_chromium() -> str | None:
    """Return CHROMIUM_PATH, else a Chromium or Chrome on PATH, else None (Playwright's own browser)."""
    if os.environ.get("CHROMIUM_PATH"):
        return os.environ["CHROMIUM_PATH"]
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        # A snap's private /tmp hides Playwright's profile folder from it.
        if path and not os.path.realpath(path).startswith("/snap/"):
            return path
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict, browser_name: str | None, request: pytest.FixtureRequest
) -> dict:
    """Launch the machine's Chromium (if any) with the flags it needs in a container."""
    args = dict(browser_type_launch_args)
    if browser_name in (None, "chromium"):
        executable = find_chromium()
        if executable and "channel" not in args:
            args["executable_path"] = executable
        args["args"] = [*args.get("args", []), *CHROMIUM_ARGS]
    if hasattr(request, "param"):  # indirect parametrisation, as pytest-playwright allows
        args.update(request.param)
    return args


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing is listening on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOCAL_HOST, 0))
        return sock.getsockname()[1]


def wait_until_answering(url: str, server: subprocess.Popen, timeout: float) -> str | None:
    """Poll url until it gives any HTTP answer; return None, or why it did not."""
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return f"the server exited with code {server.returncode}"
        try:
            with no_proxy.open(url, timeout=2):
                return None
        except urllib.error.HTTPError:
            return None  # an error page is still an answer: the tests will say what is wrong
        except OSError:
            time.sleep(0.1)
    return f"the server did not answer {url} within {timeout:.0f} s"


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start `python -m webapp` (the production server) on a free port; yield its base URL."""
    port = free_port()
    url = f"http://{LOCAL_HOST}:{port}"
    command = [sys.executable, "-m", "webapp", "--host", LOCAL_HOST, "--port", str(port)]
    logs = tmp_path_factory.mktemp("live_server")
    # Its class rooms in a store of the run's own, not the user's: rooms, and what 127.0.0.1 may still do, start afresh.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOKEN_BY_TOKEN_ROOM_STORE": f"sqlite:///{logs / 'rooms.sqlite3'}"}
    with open(logs / "stdout.txt", "wb") as stdout, open(logs / "stderr.txt", "wb") as stderr:
        server = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env, cwd=HERE.parent.parent)
    try:
        problem = wait_until_answering(url + "/", server, SERVER_START_TIMEOUT)
        if problem:
            err = (logs / "stderr.txt").read_text(errors="replace")
            out = (logs / "stdout.txt").read_text(errors="replace")
            pytest.fail(f"{' '.join(command)}: {problem}\n--- stderr ---\n{err}\n--- stdout ---\n{out}", pytrace=False)
        yield url
    finally:
        stop(server)


def stop(server: subprocess.Popen) -> None:
    """Terminate the server, and kill it if it has not gone after a few seconds."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="session")
def app_url(live_server: str) -> str:
    """Return the live server's base URL."""
    return live_server


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    """Point pytest-playwright's base_url at the live server, so page.goto("/") works."""
    return live_server


class RequestLog(list):
    """The URLs a browser context requested, in order."""

    def external(self) -> list[str]:
        """Return the URLs that went anywhere but 127.0.0.1 (data:, blob: and about: never leave)."""
        return [url for url in self if is_external(url)]


def is_external(url: str) -> bool:
    """Tell whether a request for url leaves this machine's 127.0.0.1."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome", "chrome-extension"):
        return False
    return parts.hostname != LOCAL_HOST


@pytest.fixture
def requests_seen(context: BrowserContext) -> RequestLog:
    """Record every request of the test's browser context; assert `requests_seen.external() == []`."""
    log = RequestLog()
    context.on("request", lambda request: log.append(request.url))
    return log


@pytest.fixture
def save_screenshot(artifacts_dir: Path) -> Callable[[Page, str], Path]:
    """Return save(page, name): write the full page to artifacts/screenshots/<name>.png.

    The caret is left as it is: to hide it, Playwright writes a style attribute on the page's inputs, which htmx
    then copies onto their replacements as it settles a swap, and the page's Content Security Policy blocks
    that (a console error the app did not cause)."""
    folder = artifacts_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    def save(page: Page, name: str) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True, caret="initial")
        return path

    return save


@pytest.fixture(scope="module")
def expected_ids(app_url: str) -> list[int]:
    """The first three ids the JSON twin picks for stepping.PROMPT and SEED: what Step must append."""
    from stepping import first_picks

    return first_picks(app_url)
