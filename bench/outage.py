"""A class room through restarts of its server: how soon after the server answers again the phones follow.

    .venv/bin/python bench/outage.py                          # 6 phones, 5 restarts, 12 s down each
    .venv/bin/python bench/outage.py --phones 10 --restarts 8 --down 5

It starts `python -m webapp` (a SQLite store in a temporary folder) on a free port, and in a real Chromium
(Playwright) a teacher and --phones students, each in a browser context of its own as phones are. Then
--restarts times: it stops the server, waits --down seconds, starts it again on the same port and file, and
the moment /healthz answers (the server is back) the teacher's page presses Step. Each phone's page notes, by
the machine's clock, when its "Reconnecting" line went (its first poll answered) and when it showed the new
step. It prints, over all phones and restarts, the median and the max of those two delays after the server
answered, and of the Step's own publish (the teacher's POST answered), which a phone cannot beat.

static/js/room.js asks a server that does not answer every 1 to 1.5 s: the first delay is at most 1.5 s,
the second at most that plus a poll (0.4 to 0.8 s) when the Step lands just after a phone's first poll.
The server binds its port before it loads the models, so a poll sent while it starts waits and is answered
the moment it is ready: a phone whose poll fell in that window is back at once, one that was waiting out a
back-off is not (before, up to 8 s x 1.5). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
START = "/?prompt=The+girl+saw+a&model=austen-transformer&seed=7"

# Kept in each phone's page: when its status line first said each step, and when the Reconnecting line went.
WATCH = """() => {
  window.benchSteps = {}; window.benchBack = [];
  let lost = false;
  window.setInterval(() => {
    const status = document.getElementById("room-status");
    const step = status && status.textContent.match(/step (\\d+)/);
    if (step && !(step[1] in window.benchSteps)) window.benchSteps[step[1]] = Date.now();
    const line = document.getElementById("connection");
    const now = Boolean(line && line.textContent);
    if (lost && !now) window.benchBack.push(Date.now());
    lost = now;
  }, 10);
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, port: int, store: str, logs: Path):
        self.port, self.store, self.logs = port, store, logs
        self.process: subprocess.Popen | None = None

    def start(self) -> float:
        """Start the server; return the time (time.time()) its /healthz first answered."""
        command = [sys.executable, "-m", "webapp", "--host", HOST, "--port", str(self.port), "--store", self.store]
        with open(self.logs / "server.txt", "ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=out, cwd=ROOT,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with no_proxy.open(f"http://{HOST}:{self.port}/healthz", timeout=2):
                    return time.time()
            except (urllib.error.URLError, OSError):
                time.sleep(0.02)
        raise SystemExit(f"the server did not answer within 60 s; see {self.logs / 'server.txt'}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def press_step(teacher: Page) -> float:
    """Press Step on the teacher's page; return when the room had it (the publish answered)."""
    with teacher.expect_response(lambda r: r.url.endswith("/state") and r.ok, timeout=30_000):
        teacher.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
    return time.time()


def summary(name: str, seconds: list[float]) -> str:
    if not seconds:
        return f"{name:<44} (none measured)"
    return (f"{name:<44} median {statistics.median(seconds):5.2f} s   max {max(seconds):5.2f} s"
            f"   (n={len(seconds)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phones", type=int, default=6)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--down", type=float, default=12.0, help="seconds the server stays stopped")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH") or shutil.which("chromium"),
                        help="a Chromium to drive (default: CHROMIUM_PATH, the chromium on PATH, else Playwright's)")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="outage-"))
    server = Server(free_port(), f"sqlite:///{folder / 'rooms.sqlite3'}", folder)
    url = f"http://{HOST}:{server.port}"
    back, shown, published, starts = [], [], [], []
    server.start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
            teacher = browser.new_context(base_url=url).new_page()
            teacher.goto(START)
            teacher.get_by_role("button", name="Start a class room").click()
            teacher.wait_for_url(re.compile(r"/room/[A-Z0-9]{8}/teach"))
            code = teacher.url.split("/room/")[1].split("/")[0]
            phones = []
            for n in range(args.phones):
                phone = browser.new_context(base_url=url, viewport={"width": 390, "height": 844}).new_page()
                phone.goto(f"/join?code={code}")
                phone.get_by_label("Nickname").fill(f"Phone {n + 1}")
                phone.get_by_role("button", name="Join").click()
                phone.wait_for_url(f"{url}/room/{code}")
                phone.evaluate(WATCH)
                phones.append(phone)
            assert not any(phone.evaluate("document.hidden") for phone in phones), "a hidden page polls every 3 s"
            press_step(teacher)
            phones[0].wait_for_function("() => Object.keys(window.benchSteps).length > 0")
            target = max(int(n) for n in phones[0].evaluate("Object.keys(window.benchSteps)"))
            for restart in range(args.restarts):
                server.stop()
                stopped = time.time()
                time.sleep(args.down)
                answered = server.start()
                starts.append(answered - stopped - args.down)
                published.append(press_step(teacher) - answered)
                target += 1
                for phone in phones:
                    phone.wait_for_function(f"() => '{target}' in window.benchSteps", timeout=30_000)
                    seen_ms = phone.evaluate(f"window.benchSteps['{target}']")
                    back_ms = [t for t in phone.evaluate("window.benchBack") if t >= stopped * 1000]
                    shown.append(seen_ms / 1000 - answered)
                    if back_ms:
                        back.append(min(back_ms) / 1000 - answered)
                print(f"restart {restart + 1}: step {target} on {len(phones)} phones, "
                      f"{max(shown[-len(phones):]):.2f} s after the server answered at the latest", flush=True)
            browser.close()
    finally:
        server.stop()
    print(f"\n{args.phones} phones, {args.restarts} restarts, {args.down:.0f} s down each "
          f"(the server's start took {statistics.median(starts):.1f} s more)")
    print(summary("a phone's Reconnecting line gone", back))
    print(summary("the teacher's Step published (POST answered)", published))
    print(summary("a phone shows that Step", shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
