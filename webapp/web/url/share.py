"""A link for students' phones: its QR code, whether phones can open it, and, when they cannot, what to do.

A teacher who opens the page at 127.0.0.1 (the server's default) shares a link and a QR code that
point at the teacher's own computer: no phone can open them. The share panel says so beside the QR
code, with the command that serves the room's network and the address students would then type.

A QR code is an image of its own (`<img src=".../qr.svg?...">`), not drawn into the page: a Step
sends its address, and the browser asks for the drawing when it shows the image. Drawing one costs
a few milliseconds, so its answer can be revalidated: its ETag names the link it encodes, and a
browser that has it gets a 304 without a drawing.
"""

from __future__ import annotations

import hashlib
import io
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import segno
from flask import Response, current_app, request

LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")
SERVE_COMMAND = "token-by-token --host 0.0.0.0"


def lan_address() -> str | None:
    """This machine's address on the local network, if it has one (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: connect() on UDP only picks a route
            return s.getsockname()[0]
        except OSError:
            return None


@dataclass(frozen=True)
class Reach:
    """Who can open the shared link: `loopback` if only this computer; `address` is what students type."""

    loopback: bool
    address: str | None  # e.g. 'http://192.168.1.20:8000/'; None if this computer has no network address
    command: str  # serves the room's network, e.g. 'token-by-token --host 0.0.0.0 --port 8000'


def reach() -> Reach:
    """Reach for this request: on 127.0.0.1 without a LAN address configured, only this computer."""
    url = urlsplit(request.host_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    command = SERVE_COMMAND if port == 8000 else f"{SERVE_COMMAND} --port {port}"
    lan_url = current_app.config.get("LAN_URL")
    if url.hostname not in LOOPBACK:
        return Reach(loopback=False, address=request.host_url, command=command)
    if lan_url:
        return Reach(loopback=False, address=lan_url.rstrip("/") + "/", command=command)
    lan = lan_address()
    return Reach(loopback=True, address=f"http://{lan}:{port}/" if lan else None, command=command)


QR_SCALE, QR_BORDER = 5, 2  # pixels per module, modules of quiet zone


def qr_code(link: str, title: str, error: str = "l") -> Response:
    """An SVG QR code of link with the error correction level `error`; a 304 if the browser has it.

    Raises segno.DataOverflowError for a link too long for any QR code.
    """
    etag = hashlib.blake2b(f"{error} {QR_SCALE} {QR_BORDER} {title} {link}".encode(), digest_size=12).hexdigest()
    if etag in request.if_none_match:
        response = current_app.response_class(status=304)
    else:
        svg = io.BytesIO()
        segno.make(link, error=error).save(
            svg, kind="svg", scale=QR_SCALE, border=QR_BORDER, xmldecl=False, title=title
        )
        response = current_app.response_class(svg.getvalue(), content_type="image/svg+xml")
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"  # kept, and asked again: the link's address may change
    return response
