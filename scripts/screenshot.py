"""Take the README's screenshot: the stepper after three Steps in presenter mode, at 1280x680.

    .venv/bin/python scripts/screenshot.py [--chromium /usr/bin/chromium]

Serves the app on a free loopback port, steps it in headless Chromium and writes docs/screenshot.png.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
START = "/?prompt=It+is+a+truth+universally+acknowledged&seed=7&guide=0&present=1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"the app did not answer at {url} within {timeout:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive")
    args = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "webapp", "--port", str(port)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(url)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium)
            page = browser.new_page(viewport={"width": 1280, "height": 680}, reduced_motion="reduce")
            page.goto(url + START)
            for n in range(1, 4):
                page.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
                expect(page.locator(".text-so-far .gen")).to_have_count(n)
                expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
            page.screenshot(path=str(ROOT / "docs" / "screenshot.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
