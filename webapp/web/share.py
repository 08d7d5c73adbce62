"""Whether students' phones can open the shared link, and, when they cannot, what to do about it.

A teacher who opens the page at 127.0.0.1 (the server's default) shares a link and a QR code that
point at the teacher's own computer: no phone can open them. The share panel says so beside the QR
code, with the command that serves the room's network and the address students would then type.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import current_app, request

from ..serve import lan_address

LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")
SERVE_COMMAND = "token-by-token --host 0.0.0.0"


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
