"""The frame policy setting, the bounds on a request, and what a server error looks like."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webapp.serve import production_app
from webapp.web import create_app
from webapp.web.serving.policy import Work, costs
from webapp.web.serving.security import MAX_QUERY_BYTES, check_frame_ancestors

from .markup import HTMX, parse
from .test_headers import csp_directives

FAILURE = "Something went wrong on the server"


@pytest.fixture(scope="module")
def models(app):
    """The session app's models, so that the apps built here do not load them again."""
    return app.extensions["models"]


def test_default_frame_policy_is_same_origin(client):
    response = client.get("/")
    assert csp_directives(response.headers["Content-Security-Policy"])["frame-ancestors"] == ["'self'"]
    assert response.headers["X-Frame-Options"] == "SAMEORIGIN"


def test_a_school_can_be_allowed_to_embed_the_app(models):
    app = create_app({"MODELS": models, "FRAME_ANCESTORS": "'self'   https://*.school.example https://lms.example:8443"})
    response = app.test_client().get("/")
    directives = csp_directives(response.headers["Content-Security-Policy"])
    assert directives["frame-ancestors"] == ["'self'", "https://*.school.example", "https://lms.example:8443"]
    assert directives["script-src"] == ["'self'"]
    assert "X-Frame-Options" not in response.headers, "it can only say SAMEORIGIN or DENY"


def test_frames_can_be_forbidden(models):
    response = create_app({"MODELS": models, "FRAME_ANCESTORS": "'none'"}).test_client().get("/healthz")
    assert csp_directives(response.headers["Content-Security-Policy"])["frame-ancestors"] == ["'none'"]
    assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("sources", [
    "https://school.example; script-src *",
    "'self', https://school.example",
    "'unsafe-inline'",
    "'none' 'self'",
    "",
    "   ",
    "https://school.example\r\nX-Injected: 1",
    "javascript:alert(1)//x y'",
    "https://exa mple.com'",
])
def test_a_bad_frame_policy_stops_start_up(models, sources):
    with pytest.raises(ValueError):
        create_app({"MODELS": models, "FRAME_ANCESTORS": sources})


@pytest.mark.parametrize(("given", "kept"), [
    ("'self'", "'self'"),
    ("  'self'\thttps://*.school.example  ", "'self' https://*.school.example"),
    ("https:", "https:"),
    ("*", "*"),
    ("http://192.168.1.10:8000", "http://192.168.1.10:8000"),
    ("school.example/lms/", "school.example/lms/"),
])
def test_good_frame_sources_are_kept(given, kept):
    assert check_frame_ancestors(given) == kept


@pytest.mark.parametrize(("args", "word"), [
    (["--frame-ancestors", "x; script-src *"], "frame source"),
    (["--workers", "0"], "1 or more"),
    (["--threads", "-2"], "1 or more"),
])
def test_bad_serve_flags_exit_2_with_one_line(args, word):
    done = subprocess.run([sys.executable, "-m", "webapp", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert word in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_an_over_long_address_is_a_readable_414(client, headers):
    response = client.get("/step?notes=" + "a" * MAX_QUERY_BYTES, headers=headers)
    assert response.status_code == 414
    text = parse(response.data).text()
    assert "too long" in text and "Traceback" not in text


def test_an_over_long_api_address_is_a_json_414(client):
    response = client.get("/api/step?ids=" + "1," * MAX_QUERY_BYTES)
    assert response.status_code == 414
    assert "too long" in response.json["error"]


def test_a_100_kb_prompt_is_a_400_that_names_the_prompt(client):
    response = client.get("/api/step?prompt=" + "word+" * 20_480)
    assert response.status_code == 400
    assert "the prompt has 102,400 characters" in response.json["error"]


def test_any_100_kb_query_is_refused_even_where_nothing_reads_it(client):
    response = client.get("/healthz?x=" + "a" * 100_000)
    assert response.status_code == 414


@pytest.mark.parametrize("raw", [b"prompt=\xff\xfe", b"prompt=caf\xc3", b"\x80=1", b"ids=1&prompt=\xed\xa0\x80"])
def test_raw_bytes_that_are_not_utf8_are_a_400(client, raw):
    response = client.get("/", environ_overrides={"QUERY_STRING": raw.decode("latin-1")})
    assert response.status_code == 400
    assert "UTF-8" in parse(response.data).text()


def test_percent_encoded_bytes_that_are_not_utf8_are_kept_as_typed(client):
    """Werkzeug leaves an escape it cannot decode as it was: '%FF' stays the three characters '%FF'."""
    response = client.get("/api/step?prompt=%FF%FEcaf%C3")
    assert response.status_code == 200
    assert response.json["prompt"] == "%FF%FEcaf%C3"


def test_request_bodies_are_limited(models):
    assert production_app(extra={"MODELS": models}).config["MAX_CONTENT_LENGTH"] == 64 * 1024


@pytest.fixture(scope="module")
def failing_app(models):
    """The production app with one extra route that fails, as a bug would."""
    app = production_app(extra={"MODELS": models})
    app.logger.disabled = True  # the traceback goes to the server's log, not to the browser

    @app.get("/boom")
    @costs(Work.NONE)
    def boom():
        raise RuntimeError("secret detail /etc/passwd")

    @app.get("/api/boom")
    @costs(Work.NONE)
    def api_boom():
        raise KeyError("secret")

    return app


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_a_server_error_is_a_plain_message(failing_app, headers):
    response = failing_app.test_client().get("/boom", headers=headers)
    assert response.status_code == 500
    html = response.get_data(as_text=True)
    assert FAILURE in parse(html).text()
    for leak in ("Traceback", "RuntimeError", "secret", 'File "', "werkzeug", "debugger"):
        assert leak not in html
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]


def test_an_api_server_error_is_plain_json(failing_app):
    response = failing_app.test_client().get("/api/boom")
    assert response.status_code == 500
    assert response.json == {"error": "Something went wrong on the server; the screen was left as it was."}


def test_production_app_is_never_in_debug_mode(models, monkeypatch):
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = production_app(extra={"MODELS": models})
    assert app.debug is False
    assert app.testing is False
    assert app.jinja_env.auto_reload is False


def served_with(monkeypatch, **serve_args) -> tuple[object, dict]:
    """Run serve() with waitress.serve replaced: return the app and the keyword arguments it would get."""
    import waitress

    from webapp import serve as serve_module

    got = {}
    monkeypatch.setattr(waitress, "serve", lambda app, **kwargs: got.update(app=app, kwargs=kwargs))
    serve_module.serve(host="127.0.0.1", port=8000, **serve_args)
    return got["app"], got["kwargs"]


def share_link_via_waitress(app, kwargs: dict, headers: dict) -> str:
    """Serve app with waitress's own request handling (proxy headers included); return the page's share link."""
    import http.client
    import threading

    from waitress import create_server, wasyncore

    kwargs = {k: v for k, v in kwargs.items() if k not in ("host", "port")}
    server = create_server(app, host="127.0.0.1", port=0, **kwargs)
    stop = threading.Event()

    def serve() -> None:  # the server's loop, closed by its own thread: no select on a socket closed meanwhile
        while not stop.is_set():
            wasyncore.loop(timeout=0.05, map=server._map, count=1)
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=30)
        connection.request("GET", "/", headers=headers)
        html = connection.getresponse().read().decode()
        connection.close()
    finally:
        stop.set()
        thread.join(timeout=10)
    return parse(html).by_id("share-link").attrs["value"]


PROXIED = {"Host": "tokens.school.example", "X-Forwarded-Proto": "https"}


def test_behind_a_trusted_proxy_the_share_link_says_https(monkeypatch):
    app, kwargs = served_with(monkeypatch, threads=2, trusted_proxy="127.0.0.1")
    assert kwargs["trusted_proxy"] == "127.0.0.1"
    assert share_link_via_waitress(app, kwargs, PROXIED).startswith("https://tokens.school.example/?")


def test_without_a_trusted_proxy_a_forwarded_scheme_is_ignored(monkeypatch):
    app, kwargs = served_with(monkeypatch, threads=2)
    assert "trusted_proxy" not in kwargs
    assert kwargs["max_request_body_size"] == 64 * 1024
    assert share_link_via_waitress(app, kwargs, PROXIED).startswith("http://tokens.school.example/?")


@pytest.mark.parametrize("path", ["/step", "/", "/api/step", "/healthz", "/nowhere"])
def test_a_body_over_the_limit_is_refused_before_routing(client, app, path):
    limit = app.config["MAX_CONTENT_LENGTH"]
    response = client.post(path, data=b"a" * (limit + 1), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413
    assert f"the limit is {limit:,}" in response.get_data(as_text=True)
    small = client.post(path, data=b"a" * 10, content_type="application/x-www-form-urlencoded")
    assert small.status_code in (404, 405), "a small body is not refused for its size"
