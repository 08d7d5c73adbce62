"""The share link and its QR code: this screen's URL, by the address students can reach."""

from __future__ import annotations

import re

import pytest
import segno

from webapp.web import create_app

from .markup import Element, ids_of, parse, query_of
from .seeded import BASE, error_text, joined, page, url

LAN = "192.168.1.20:8000"


def qr_modules(svg: bytes) -> list[list[bool]]:
    """Read segno's SVG path ('M2 2.5h7m2 0h2...': runs of dark modules) back into a matrix, border cut off."""
    text = svg.decode()
    path = re.search(r'<path[^>]* d="([^"]+)"', text).group(1)
    size = int(re.search(r'<svg[^>]* width="(\d+)"', text).group(1))
    scale = float(re.search(r"scale\(([\d.]+)\)", text).group(1))
    n = round(size / scale)  # modules with the border
    grid = [[False] * n for _ in range(n)]
    x = y = 0.0
    for cmd, a, b in re.findall(r"([MmHh])\s*(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if cmd == "M":
            x, y = float(a), float(b)
        elif cmd == "m":
            x, y = x + float(a), y + float(b)
        else:  # h: a run of dark modules on row y - 0.5
            run = float(a)
            for col in range(round(x), round(x + run)):
                grid[int(y)][col] = True
            x += run
    dark_rows = [i for i, row in enumerate(grid) if any(row)]
    border = dark_rows[0]
    return [row[border : n - border] for row in grid[border : n - border]]


def expected_modules(link: str) -> list[list[bool]]:
    return [[bool(m) for m in row] for row in segno.make(link, error="l").matrix]


def share_link(doc: Element) -> str:
    return doc.by_id("share-link").attrs["value"]


def test_the_qr_code_is_an_svg_of_the_share_link(client, three):
    params = {**BASE, "ids": joined(three), "src": "s,f,0.5"}
    doc = page(client, **params)
    link = share_link(doc)
    assert link.startswith("http://localhost/?")
    assert ids_of(link) == three
    assert {k: query_of(link)[k] for k in ("prompt", "seed", "src")} == {**BASE, "src": "s,f,0.5"}
    img = doc.by_id("share").find("img")
    assert img.attrs["alt"] == "QR code"
    response = client.get(img.attrs["src"])
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.data.lstrip().startswith(b"<svg")
    assert qr_modules(response.data) == expected_modules(link)


def test_the_share_link_uses_the_lan_address_the_page_was_reached_by(client, three):
    doc = parse(client.get(url("/", **BASE, ids=joined(three)), headers={"Host": LAN}).data)
    link = share_link(doc)
    assert link.startswith(f"http://{LAN}/?")
    assert ids_of(link) == three
    qr = client.get(doc.by_id("share").find("img").attrs["src"], headers={"Host": LAN})
    assert qr_modules(qr.data) == expected_modules(link)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
def test_on_localhost_the_share_link_uses_lan_url(app, client, monkeypatch, three, host):
    monkeypatch.setitem(app.config, "LAN_URL", f"http://{LAN}/")
    doc = parse(client.get(url("/", **BASE, ids=joined(three)), headers={"Host": host}).data)
    link = share_link(doc)
    assert link.startswith(f"http://{LAN}/?") and "//" not in link.removeprefix("http://")
    qr = client.get(url("/qr.svg", **BASE, ids=joined(three)), headers={"Host": host})
    assert qr_modules(qr.data) == expected_modules(link)


def test_lan_url_does_not_override_a_real_host(app, client, monkeypatch):
    monkeypatch.setitem(app.config, "LAN_URL", "http://10.0.0.9:8000")
    link = share_link(parse(client.get(url("/", **BASE), headers={"Host": LAN}).data))
    assert link.startswith(f"http://{LAN}/?")


def test_serving_on_all_interfaces_shares_the_lan_address(monkeypatch):
    """The teacher opens the 127.0.0.1 link the server prints; the QR code must still name the LAN address."""
    import waitress

    from webapp import serve as serve_module

    served = {}
    monkeypatch.setattr(serve_module, "lan_address", lambda: "192.168.1.20")
    monkeypatch.setattr(waitress, "serve", lambda app, **kwargs: served.setdefault("app", app))
    serve_module.serve(host="0.0.0.0", port=8000, threads=1)

    response = served["app"].test_client().get(url("/", **BASE), headers={"Host": "127.0.0.1:8000"})
    assert share_link(parse(response.data)).startswith(f"http://{LAN}/?")


def test_a_link_too_long_for_a_qr_code_gets_a_400(client):
    params = {"prompt": "é" * 2000}  # 12,000 characters once percent-encoded
    response = client.get(url("/qr.svg", **params))
    assert response.status_code == 400
    assert "too long for a QR code" in error_text(response)
    assert client.get(url("/", **params)).status_code == 200  # the page itself still works


def test_on_127_0_0_1_the_share_panel_warns_phones_cannot_open_the_link(client, monkeypatch):
    from webapp.web.url import share

    monkeypatch.setattr(share, "lan_address", lambda: "192.168.1.20")
    doc = parse(client.get(url("/", **BASE), headers={"Host": "127.0.0.1:8000"}).data)
    warning = doc.by_id("share").by_id("loopback-warning")
    text = " ".join(warning.text().split())
    assert "Phones cannot open this link yet" in text and "127.0.0.1" in text
    assert "token-by-token --host 0.0.0.0" in [c.text() for c in warning.find_all("code")]
    assert "Students then type http://192.168.1.20:8000/" in text and "restart the server with" in text
    other_port = parse(client.get(url("/", **BASE), headers={"Host": "localhost:8123"}).data).by_id("loopback-warning")
    assert "token-by-token --host 0.0.0.0 --port 8123" in [c.text() for c in other_port.find_all("code")]


def test_by_a_lan_address_the_share_panel_names_it_without_a_warning(app, client, monkeypatch):
    doc = parse(client.get(url("/", **BASE), headers={"Host": LAN}).data)
    assert doc.by_id("loopback-warning") is None
    assert " ".join(doc.by_id("students-address").text().split()) == f"Students type http://{LAN}/"
    monkeypatch.setitem(app.config, "LAN_URL", f"http://{LAN}")
    doc = parse(client.get(url("/", **{**BASE, "seed": "12"}), headers={"Host": "127.0.0.1:8000"}).data)  # not cached
    assert doc.by_id("loopback-warning") is None, "served on the LAN too: the link carries the LAN address"
    assert f"http://{LAN}/" in doc.by_id("students-address").text()


@pytest.mark.parametrize("cache_bytes", [0, 2**20])  # drawn by the view, or kept by the answer cache
def test_a_browser_that_has_the_qr_code_gets_a_304_until_the_link_changes(app, cache_bytes, three):
    models = app.extensions["models"]
    client = create_app({"TESTING": True, "MODELS": models, "RESPONSE_CACHE_BYTES": cache_bytes}).test_client()
    address = url("/qr.svg", **BASE, ids=joined(three))
    first = client.get(address)
    etag = first.headers["ETag"]
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache"
    again = client.get(address, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
    other_screen = client.get(url("/qr.svg", **BASE, ids=joined(three[:2])), headers={"If-None-Match": etag})
    assert other_screen.status_code == 200 and other_screen.headers["ETag"] != etag
    other_address = client.get(address, headers={"If-None-Match": etag, "Host": LAN})  # another link: drawn again
    assert other_address.status_code == 200 and qr_modules(other_address.data) != qr_modules(first.data)


def test_the_share_panels_qr_code_is_fetched_when_it_comes_into_view(client):
    img = page(client, **BASE).by_id("share").find("img")
    assert img.attrs["loading"] == "lazy"
    assert img.attrs["src"].startswith("/qr.svg?")
