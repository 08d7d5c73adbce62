"""Serve the app with waitress, a production WSGI server that runs on Linux, macOS and Windows."""

from __future__ import annotations

import socket


def lan_address() -> str | None:
    """This machine's address on the local network, if it has one (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: connect() on UDP only picks a route
            return s.getsockname()[0]
        except OSError:
            return None


def serve(host: str, port: int, threads: int) -> int:
    from waitress import serve as waitress_serve

    from .web import create_app

    app = create_app()
    print(f"Token by token: http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/", flush=True)
    if host in ("0.0.0.0", "::") and (lan := lan_address()):
        print(f"On this network, students can open http://{lan}:{port}/", flush=True)
    waitress_serve(app, host=host, port=port, threads=threads, ident="token-by-token")
    return 0
