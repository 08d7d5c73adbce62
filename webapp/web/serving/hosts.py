"""The addresses this server answers as (ALLOWED_HOSTS), and whether a page's address is one of them.

A change to a class room must come from a page of this site: its Origin (or Referer) names the host
and port of the page that sent it. Comparing that with the request's own Host header is not enough:
a page on another site whose name the attacker points at this machine (DNS rebinding) sends both,
and they agree. So they are compared with the addresses the server itself serves, which it knows
when it starts (webapp/serve.py): 127.0.0.1 and localhost with its port, the --host it binds, its LAN
address when it binds 0.0.0.0, and whatever --allowed-hosts adds (a name students type, a proxy's
public name).

An entry is "host:port", or a host alone, which allows it on any port: the app built without the
server's list (the tests, `flask run`) allows only this machine's own names, on any port. Requests
are not refused for their Host header (Flask's TRUSTED_HOSTS): a page only shows, and students may
reach the laptop by a name the server does not know (its .local name, a hotspot's address).

    >>> names_allowed("http://127.0.0.1:8000/room/ABCD2345", ("127.0.0.1:8000",))
    True
    >>> names_allowed("http://evil.example:8000", ("127.0.0.1:8000",))
    False
    >>> names_allowed("http://localhost:9", ("localhost",))
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from flask import current_app, request

LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")  # this machine: an app built without the server's list
DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_hosts(text: str) -> tuple[str, ...]:
    """'class.example, 10.0.0.5:8000' -> ('class.example', '10.0.0.5:8000'); a bad entry is a ValueError.

    >>> parse_hosts("Class.Example,[::1]:8000")
    ('class.example', '[::1]:8000')
    """
    hosts = []
    for entry in (part.strip().lower() for part in text.split(",")):
        if not entry:
            continue
        if _canonical(entry) != entry or any(c.isspace() for c in entry):
            raise ValueError(f"{entry!r} is not a host or host:port (e.g. class.example or 192.168.1.20:8000)")
        hosts.append(entry)
    return tuple(hosts)


def served_hosts(host: str, port: int, lan: str | None, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The addresses a server bound to host:port answers as: this machine's own names, the host it binds
    (unless it binds every interface), its LAN address, and the extra ones asked for.

    >>> served_hosts("0.0.0.0", 8000, "192.168.1.20", ["class.example"])
    ('127.0.0.1:8000', 'localhost:8000', '[::1]:8000', '192.168.1.20:8000', 'class.example')
    """
    bound = None if host in ("0.0.0.0", "::") else host
    names = [*LOCAL_HOSTS[1::-1], LOCAL_HOSTS[2], *(_bracketed(name.lower()) for name in (bound, lan) if name)]
    return tuple(dict.fromkeys([*(f"{name}:{port}" for name in names), *extra]))


def _canonical(entry: str) -> str | None:
    """How a host or host:port reads once parsed: the same text for a good entry ('a:8000'), else another."""
    try:
        parts = urlsplit("//" + entry)
        host, port = parts.hostname, parts.port
    except ValueError:  # a port out of range, a bracket left open
        return None
    if not host:
        return None
    return _bracketed(host) + (f":{port}" if port is not None else "")


def _bracketed(host: str) -> str:
    """An IPv6 address as a URL writes it: '::1' -> '[::1]'."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def from_this_site(address: str) -> bool:
    """Whether a page's address (an Origin, or a Referer) names an address this server answers as.

    A request the trusted proxy (--trusted-proxy) forwards may also come from the name the proxy was asked
    for (its Host header): the server cannot know the public name a proxy answers for, and a proxy is
    set to answer for its own names (--allowed-hosts can name them all the same).
    """
    allowed = current_app.config.get("ALLOWED_HOSTS") or LOCAL_HOSTS
    if names_allowed(address, allowed):
        return True
    proxy = current_app.config.get("TRUSTED_PROXY")
    return bool(proxy) and request.remote_addr == proxy and _netloc(address) == request.host.lower()


def _netloc(address: str) -> str:
    try:
        return urlsplit(address).netloc.lower()
    except ValueError:
        return ""


def names_allowed(address: str, allowed: Sequence[str]) -> bool:
    """Whether a page's address (an Origin, or a Referer) is on an allowed host and port."""
    try:
        parts = urlsplit(address)
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:  # a port that is not one
        return False
    if not parts.hostname or port is None:
        return False
    host = _bracketed(parts.hostname)
    return any(_matches(entry, host, port) for entry in allowed)


def _matches(entry: str, host: str, port: int) -> bool:
    name, colon, number = entry.rpartition(":") if not entry.endswith("]") else ("", "", "")
    if not colon or not number.isdigit():
        return entry == host  # a host alone: any port
    return name == host and int(number) == port
