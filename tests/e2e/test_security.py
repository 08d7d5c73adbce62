"""Hostile prompts are only ever text, and the production server keeps its limits and its secrets.

Each payload would change the page if it ran: set document.title, or (for the <img>) make the
browser fetch /x. The tests type it into the prompt box and pass it in the URL, then check that
it reads back as typed in the text box, the chips and the text panel, that no element, script,
request, dialog or console error came of it (a CSP violation is a console error), and that the
server's answers carry the security headers.
"""

from __future__ import annotations

import http.client
import re
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlencode, urlsplit

import pytest
from playwright.sync_api import Page, expect

from webapp.serve import production_app
from webapp.web.serving.policy import Work, costs

PAYLOADS = {
    "img-onerror": "<img src=x onerror=\"document.title='pwned'\">",
    "close-script": "</script><script>document.title='pwned'</script>",
    "template": "{{7*7}} {% for x in range(3) %}loop{% endfor %}",
    "svg-onload": "\"><svg onload=\"document.title='pwned'\">",
    "textarea-escape": "</textarea><b id=injected>bold</b>",
}
no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")


@pytest.fixture
def watched(page: Page) -> dict[str, list[str]]:
    """Record the page's dialogs, console errors and uncaught exceptions."""
    seen: dict[str, list[str]] = {"dialogs": [], "console errors": [], "page errors": []}

    def on_dialog(dialog):
        seen["dialogs"].append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("console", lambda m: m.type == "error" and seen["console errors"].append(m.text))
    page.on("pageerror", lambda e: seen["page errors"].append(str(e)))
    return seen


def assert_shown_as_text(page: Page, payload: str) -> None:
    """The payload reads back as typed in the text box and the text panel; the chips show its words."""
    expect(page.get_by_label("Prompt", exact=True)).to_have_value(payload)
    expect(page.locator("#text .prompt-text")).to_have_text(payload)
    words = [w for w in re.findall(r"[A-Za-z]+", payload) if len(w) > 1]
    for word in words[:3]:
        expect(page.locator("#tokens")).to_contain_text(word)


def assert_nothing_ran(page: Page, requests_seen, watched: dict[str, list[str]]) -> None:
    """No element, script, request, title change, dialog or error came from the payload."""
    page.wait_for_load_state("networkidle")
    expect(page.locator("img[src='x'], svg[onload], #injected, b#injected")).to_have_count(0)
    expect(page.locator("script:not([src])")).to_have_count(0)
    expect(page.locator("script:not([src^='/static/'])")).to_have_count(0)
    expect(page.locator("#text")).not_to_contain_text("49")
    expect(page.locator("#text")).not_to_contain_text("looplooploop")
    assert "pwned" not in page.title()
    assert not [url for url in requests_seen if urlsplit(url).path == "/x"], "the <img> was created"
    assert requests_seen.external() == []
    assert watched == {"dialogs": [], "console errors": [], "page errors": []}


@no_animation
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_a_hostile_prompt_in_the_url_is_text_and_runs_nothing(page: Page, app_url, requests_seen, watched, payload):
    page.goto(f"{app_url}/?{urlencode({'prompt': payload, 'seed': 3})}")
    assert_shown_as_text(page, payload)
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
    expect(page.locator("#tokens .chip-generated")).to_have_count(1)
    assert_shown_as_text(page, payload)
    assert_nothing_ran(page, requests_seen, watched)


@no_animation
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_a_hostile_prompt_typed_in_the_box_is_text_and_runs_nothing(page: Page, app_url, requests_seen, watched,
                                                                    payload):
    page.goto(app_url + "/")
    page.get_by_label("Prompt", exact=True).fill(payload)
    # htmx sends the box after a pause; the server's text panel then holds the prompt it read
    expect(page.locator("#text .prompt-text")).to_have_text(payload)
    assert_shown_as_text(page, payload)
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator("#tokens .chip-generated")).to_have_count(1)
    assert_shown_as_text(page, payload)
    assert_nothing_ran(page, requests_seen, watched)


def test_the_page_has_no_csp_violations_or_errors_of_its_own(page: Page, app_url, requests_seen, watched):
    """A baseline: the watched page is quiet, so the checks above would see a payload's noise."""
    page.goto(app_url + "/")
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
    assert_nothing_ran(page, requests_seen, watched)


# --- the server itself -----------------------------------------------------------------------------


def raw_request(app_url: str, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    """Send one request as bytes go on the wire (no client-side limits); return (status, headers, body)."""
    parts = urlsplit(app_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("path", ["/", "/step?prompt=x", "/api/step", "/healthz", "/static/css/app.css", "/nowhere"])
def test_the_production_server_sends_the_security_headers(app_url, path):
    status, headers, _ = raw_request(app_url, "GET", path)
    assert status in (200, 303, 404)
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert "frame-ancestors 'self'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "SAMEORIGIN"


@pytest.mark.parametrize(("query", "answers"), [
    ("prompt=" + "word+" * 20_480, {400: b"the prompt has 102,400 characters"}),  # 100 KB: the app says why
    ("notes=" + "a" * 100_000, {414: b"too long"}),  # 100 KB nothing reads
    ("prompt=" + "%E4%B8%AD" * 2_000 + "&ids=" + "%2C".join(["4999"] * 1_000), {200: b"hx-swap-oob"}),  # 25 KB, fine
    ("prompt=" + "a" * 300_000,  # past the servers' 256 KiB: they refuse it themselves
     {414: b"Request Line is too large", 431: b"Request Header Fields Too Large"}),  # gunicorn, waitress
])
def test_long_query_strings_get_clean_answers(app_url, query, answers):
    got, _, body = raw_request(app_url, "GET", "/step?" + query, headers={"HX-Request": "true"})
    assert got in answers
    assert answers[got] in body and b"Traceback" not in body


def test_a_big_request_body_is_refused(app_url):
    status, _, body = raw_request(app_url, "POST", "/step", body=b"a" * 100_000,
                                  headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 413
    assert b"Traceback" not in body


def test_raw_bytes_that_are_not_utf8_are_a_400(app_url):
    """A raw 0xC3 byte in the request line (no browser sends it, a script can): 400, not 500.

    The servers refuse it themselves (waitress: "Bad URI", gunicorn: "Invalid HTTP request line");
    the app refuses it too, for servers that pass it on.
    """
    parts = urlsplit(app_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(b"GET /?prompt=caf\xc3 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert any(says in answer for says in (b"Bad URI", b"Invalid HTTP request line", b"UTF-8"))
    assert b"Traceback" not in answer


@pytest.fixture(scope="module")
def failing_server() -> Iterator[str]:
    """The production app with a route that fails, under waitress on 127.0.0.1, as `python -m webapp` runs it."""
    from waitress import create_server

    app = production_app()
    app.logger.disabled = True

    @app.get("/boom")
    @costs(Work.NONE)
    def boom():
        raise RuntimeError("secret detail from /etc/passwd")

    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(timeout=10)


@pytest.mark.parametrize("headers", [{}, {"HX-Request": "true"}], ids=["page", "fragment"])
def test_a_server_error_is_a_plain_message_without_a_traceback(failing_server, headers):
    status, _, body = raw_request(failing_server, "GET", "/boom", headers=headers)
    assert status == 500
    assert b"Something went wrong on the server" in body
    for leak in (b"Traceback", b"RuntimeError", b"secret", b'File "', b"Werkzeug Debugger", b"console"):
        assert leak not in body
