"""The Vary header: each request header that chooses between a URL's answers named once, in order."""

from __future__ import annotations

from werkzeug.wrappers import Response

from webapp.web.serving.vary import add_vary


def test_names_are_added_in_order_and_each_once():
    response = Response("x")
    for name in ("HX-Request", "Accept-Language", "hx-request", "Accept-Encoding", "Accept-Language"):
        add_vary(response, name)
    assert response.headers.getlist("Vary") == ["HX-Request, Accept-Language, Accept-Encoding"]


def test_a_vary_the_answer_has_is_kept_and_read_as_a_list():
    response = Response("x", headers={"Vary": "Cookie,Accept-Encoding"})
    add_vary(response, "accept-encoding")
    add_vary(response, "HX-Request")
    assert response.headers["Vary"] == "Cookie,Accept-Encoding, HX-Request"
    assert set(response.vary) == {"Cookie", "Accept-Encoding", "HX-Request"}


def test_an_answer_says_what_it_varies_by(client):
    """A page chosen by HX-Request, gzipped, in the browser's language (named in the order the hooks run)."""
    answer = client.get("/", headers={"Accept-Encoding": "gzip", "Accept-Language": "de"})
    assert answer.headers.getlist("Vary") == ["HX-Request, Accept-Encoding, Accept-Language"]
    assert client.get("/?lang=de").headers["Vary"] == "HX-Request"
