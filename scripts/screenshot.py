"""Take the README's screenshots: the stepper after three Steps in presenter mode (1280x680), and a class
room: the projector after the class voted and the teacher revealed (1280x720), and a student's phone (390x844).

    .venv/bin/python scripts/screenshot.py [--chromium /usr/bin/chromium]

Serves the app on a free loopback port (its rooms in a temporary store), drives it in headless Chromium
and writes docs/screenshot.png, docs/room-projector.png and docs/room-phone.png, and the other figures the
README shows (a lesson, the class's own model, greedy and beam search).
"""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
START = "/?prompt=It+is+a+truth+universally+acknowledged&seed=7&guide=0&present=1"
PUBLISHED = re.compile(r"/room/[A-Z0-9]{8}/state$")  # the teacher's new screen, sent to the room
CLASS = ("Anna", "Ben", "Chiara", "Dev")


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


def stepper(browser, url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 680}, reduced_motion="reduce")
    page.goto(url + START)
    for n in range(1, 4):
        page.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
        expect(page.locator(".text-so-far .gen")).to_have_count(n)
        expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
    page.screenshot(path=str(ROOT / "docs" / "screenshot.png"))


def join_phones(browser, url: str, code: str) -> list:
    """The class's phones (CLASS), each joined to the room with its nickname."""
    phones = []
    for name in CLASS:
        phone = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce").new_page()
        phone.goto(f"{url}/join?code={code}")
        phone.locator("#nickname").fill(name)
        phone.locator(".join-form button[type=submit]").click()
        expect(phone).to_have_url(f"{url}/room/{code}")
        phones.append(phone)
    return phones


def class_room(browser, url: str) -> None:
    """A teacher in presenter mode starts a room, four phones join and vote, the teacher reveals."""
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce").new_page()
    teacher.goto(url + START)
    teacher.locator("form.start-room button").click()
    expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach\?"))
    teacher.wait_for_load_state()
    code = teacher.url.split("/room/")[1].split("/")[0]
    phones = join_phones(browser, url, code)
    teacher.locator("#join-hide").click()
    teacher.locator('.room-settings button[name="votes_on"]').click()
    expect(teacher.locator('.room-settings button[name="votes_on"][aria-pressed="true"]')).to_be_visible()
    for _ in range(2):
        with teacher.expect_response(PUBLISHED):
            teacher.locator("#controls [data-control=step]").click()
        shown = teacher.locator(".text-so-far").inner_text()
        for n, phone in enumerate(phones):
            expect(phone.locator(".text-so-far")).to_have_text(shown)  # this step's screen, and its ballot
            phone.locator("#ballot button.ballot-token").nth(n % 3).click()
            expect(phone.locator(".my-vote")).to_contain_text("Your vote on this step")
        expect(teacher.locator(".room-votes")).to_have_text(str(len(phones)))
        with teacher.expect_response(PUBLISHED):
            teacher.locator("#ranges button[name=reveal]").click()
        expect(teacher.locator("#room-results")).to_be_visible()
    teacher.screenshot(path=str(ROOT / "docs" / "room-projector.png"))
    phone = phones[0]
    expect(phone.locator(".text-so-far")).not_to_contain_text("?")  # the reveal has reached the phone
    phone.wait_for_timeout(2500)  # and the student's own record, asked for within 2 s of it
    phone.screenshot(path=str(ROOT / "docs" / "room-phone.png"))


def lesson(browser, url: str) -> None:
    """Bundled lesson 1 in a room: the projector and a phone on its second screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    teacher = context.new_page()
    teacher.goto(url + "/lessons/article")
    teacher.locator("form.inline-form button").click()  # Play it in a class room
    expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach\?"))
    code = teacher.url.split("/room/")[1].split("/")[0]
    phone = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce").new_page()
    phone.goto(f"{url}/join?code={code}")
    phone.locator(".join-form button[type=submit]").click()
    teacher.locator("#join-hide").click()
    teacher.locator("#room-lesson button[data-lesson-key=PageDown]").click()
    expect(teacher.locator("#room-lesson")).to_contain_text("screen 2 of")
    teacher.goto(teacher.url.split("?")[0] + "?present=1")
    teacher.screenshot(path=str(ROOT / "docs" / "lesson-projector.png"))
    question = teacher.locator(".room-lesson .lesson-question").inner_text()
    expect(phone.locator("#room-question")).to_contain_text(question)
    phone.screenshot(path=str(ROOT / "docs" / "lesson-phone.png"))


CLASS_SENTENCES = ["We like school lunch .", "Lunch is the best part of the day !", "We eat lunch at noon .",
                   "The soup is hot .", "We like the soup .", "School lunch is good .", "The bread is fresh ."]


def class_model(browser, url: str) -> None:
    """A class writes sentences (the projector while they arrive), builds its model half mixed with Austen's, and
    steps with it: the projector with the count table."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    teacher = context.new_page()
    teacher.goto(url + START)
    teacher.locator("form.start-room button").click()
    expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach\?"))
    code = teacher.url.split("/room/")[1].split("/")[0]
    teacher.goto(f"{url}/room/{code}/teach")
    teacher.locator("#room-sentences summary").click()
    teacher.locator("#sentences-topic").fill("School lunch")
    teacher.locator(".sentences-open button").click()
    projector = context.new_page()
    projector.goto(f"{url}/room/{code}/teach?present=1")
    phones = join_phones(browser, url, code)
    for n, text in enumerate(CLASS_SENTENCES):
        phone = phones[n % len(phones)]
        phone.locator("#write-text").fill(text)
        phone.locator("#room-write button[type=submit]").click()
        expect(phone.locator("#me .my-sentences")).to_contain_text(text)
    expect(projector.locator("#room-sentences .sentence-text")).to_have_count(len(CLASS_SENTENCES))
    projector.screenshot(path=str(ROOT / "docs" / "class-sentences.png"))
    teacher.reload()
    teacher.locator("#sentences-mix").fill("0.5")
    teacher.locator(".sentences-build-button").click()
    expect(teacher.locator("#model-description")).to_contain_text("Counted from our")
    for _ in range(2):
        with teacher.expect_response(PUBLISHED):
            teacher.locator("#controls [data-control=step]").click()
    with teacher.expect_response(PUBLISHED):
        teacher.get_by_role("link", name="Open the forward pass").click()
    projector.goto(f"{url}/room/{code}/teach?present=1")
    expect(projector.locator("#inside table").first).to_be_visible()
    projector.screenshot(path=str(ROOT / "docs" / "class-model.png"))


def decoding(browser, url: str) -> None:
    """The decoding page's example (greedy's first token loses) on the projector, its second step, and the phone
    opened on the last step shown."""
    example = "/decode?prompt=We+had&width=2&max_new_tokens=3"
    projector = browser.new_page(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    projector.goto(url + example + "&present=1&level=2")
    projector.screenshot(path=str(ROOT / "docs" / "decode-projector.png"))
    phone = browser.new_page(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
    phone.goto(url + example)
    phone.locator(".decode-tree").scroll_into_view_if_needed()
    phone.screenshot(path=str(ROOT / "docs" / "decode-phone.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive")
    args = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="screenshot-") as folder:
        server = subprocess.Popen([sys.executable, "-m", "webapp", "--port", str(port), "--store",
                                   f"sqlite:///{folder}/rooms.sqlite3"], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until_up(url)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium)
                stepper(browser, url)
                class_room(browser, url)
                lesson(browser, url)
                class_model(browser, url)
                decoding(browser, url)
                browser.close()
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
