"""Security headers on every kind of response, no inline script or style, and the static files."""

from __future__ import annotations

import json

import pytest

from .markup import HTMX, parse

RESPONSES = {
    "page": ("/", {}),
    "page-with-ids": ("/?ids=3,4&seed=2", {}),
    "fragment": ("/?ids=3", HTMX),
    "step-fragment": ("/step", HTMX),
    "step-redirect": ("/step", {}),
    "api": ("/api/step", {}),
    "api-models": ("/api/models", {}),
    "api-error": ("/api/step?temperature=nan", {}),
    "error-page": ("/?temperature=nan", {}),
    "error-fragment": ("/step?top_k=0", HTMX),
    "not-found": ("/nowhere", {}),
    "healthz": ("/healthz", {}),
    "static": ("/static/css/app.css", {}),
}


def csp_directives(header: str) -> dict[str, list[str]]:
    """Split a CSP header: "script-src 'self'; object-src 'none'" -> {'script-src': ["'self'"], ...}."""
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0].lower()] = words[1:]
    return out


@pytest.mark.parametrize(("path", "headers"), list(RESPONSES.values()), ids=list(RESPONSES))
def test_security_headers(client, path, headers):
    response = client.get(path, headers=headers)
    response.close()
    assert response.status_code != 500
    csp = response.headers.get("Content-Security-Policy")
    assert csp, "no Content-Security-Policy"
    directives = csp_directives(csp)
    assert directives.get("script-src") == ["'self'"]
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert directives.get("object-src") == ["'none'"]
    assert "frame-ancestors" in directives
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    assert response.headers.get("Referrer-Policy") in {"same-origin", "no-referrer", "strict-origin-when-cross-origin"}


def test_405_has_security_headers(client):
    response = client.post("/step")
    assert response.status_code == 405
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/", {}),
        ("/?ids=3,4", {}),
        ("/step", HTMX),
        ("/?temperature=0&top_k=3", HTMX),
        ("/?seed=-1", {}),
        ("/?seed=-1", HTMX),
        ("/nowhere", {}),
    ],
)
def test_no_inline_script_or_style(client, path, headers):
    """The CSP forbids inline script and style, so the markup must not need them."""
    html = client.get(path, headers=headers).get_data(as_text=True)
    doc = parse(html)
    for element in doc.iter():
        assert "style" not in element.attrs, f"style= on <{element.tag}>"
        assert not any(name.startswith("on") for name in element.attrs), f"a handler on <{element.tag}>"
        assert not any(name.startswith("hx-on") for name in element.attrs), "hx-on needs eval"
        assert element.tag != "style"
        if element.tag == "script":
            assert element.attrs.get("src", "").startswith("/static/")
            assert element.text().strip() == ""
    assert "javascript:" not in html.lower()


def test_page_scripts_and_styles_are_local(client):
    doc = parse(client.get("/").data)
    sources = [s.attrs["src"] for s in doc.find_all("script")]
    scripts = ["vendor/htmx.min.js", "js/pick.js", "js/classroom.js", "js/guide.js", "js/glossary.js", "js/room.js"]
    assert sources == [f"/static/{name}" for name in scripts]
    for link in doc.find_all("link"):
        assert link.attrs["href"].startswith("/static/"), "nothing from a CDN"


def test_htmx_is_configured_for_the_csp(client):
    """No eval, and no <style> injected for indicators: both would break under the CSP."""
    doc = parse(client.get("/").data)
    meta = next(m for m in doc.find_all("meta") if m.attrs.get("name") == "htmx-config")
    config = json.loads(meta.attrs["content"])
    assert config["allowEval"] is False
    assert config["includeIndicatorStyles"] is False


@pytest.mark.parametrize(
    ("path", "mimetype", "marker"),
    [
        ("/static/css/app.css", "text/css", b"{"),
        ("/static/js/pick.js", "text/javascript", b"data-state"),
        ("/static/vendor/htmx.min.js", "text/javascript", b'version:"2.'),
        ("/static/favicon.svg", "image/svg+xml", b"<svg"),
    ],
)
def test_static_files_are_served(client, path, mimetype, marker):
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == mimetype
    assert marker in response.data
    response.close()


def test_every_static_file_the_page_links_to_exists(client):
    doc = parse(client.get("/").data)
    urls = [s.attrs["src"] for s in doc.find_all("script")] + [link.attrs["href"] for link in doc.find_all("link")]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        response.close()


def test_missing_static_file_is_404(client):
    assert client.get("/static/nope.js").status_code == 404
