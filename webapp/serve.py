"""Serve the app: gunicorn with one process per core (Linux, macOS), else one waitress process.

    python -m webapp --host 0.0.0.0                          # one process per core, 2 threads each
    python -m webapp --host 0.0.0.0 --workers 4 --threads 2  # gunicorn: 4 processes x 2 threads
    python -m webapp --host 0.0.0.0 --workers 1 --threads 8  # one waitress process (Windows' default)

One Python process runs Python code on one core at a time (the GIL), so a machine with several
cores serves more students with a process per core. Threads beyond two per process cost more than
they give: a step is CPU work, and threads fighting for the GIL made each step's CPU time about
twice as long under load (bench/load.py: 8 threads in one process against 2). The models load once,
in the parent, before the workers are forked, so their arrays are shared rather than copied.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .web.serving.hosts import served_hosts
from .web.url.share import lan_address

if TYPE_CHECKING:
    from flask import Flask

# The servers read a request's line (waitress: line and headers) up to this size and refuse what is
# longer. The app itself refuses a query string over MAX_QUERY_BYTES (64 KiB) with a sentence saying
# why, so the servers' bound is well beyond it: a too-long prompt gets the app's message, not theirs.
MAX_REQUEST_LINE_BYTES = 256 * 1024
GUNICORN_THREADS = 2  # per process, when there are several
WAITRESS_THREADS = 8  # in the one process: it also waits on slow connections


def gunicorn_available() -> bool:
    """Tell whether gunicorn can run here: it is POSIX only, and an optional dependency."""
    if sys.platform == "win32":
        return False
    try:
        import gunicorn  # noqa: F401
    except ImportError:
        return False
    return True


def default_processes(workers: int | None, threads: int | None, n_cpus: int,
                      gunicorn_ok: bool) -> tuple[int, int]:
    """Processes and threads to serve with, from what was asked (None: the default).

    (None, None, 2 cores, gunicorn) -> (2, 2); (None, None, 2, no gunicorn) -> (1, 8); (1, None, 8, True) -> (1, 8)
    """
    if workers is None:
        workers = max(1, n_cpus) if gunicorn_ok else 1
    if threads is None:
        threads = GUNICORN_THREADS if workers > 1 else WAITRESS_THREADS
    return workers, threads


def announce(host: str, port: int, lan: str | None) -> None:
    print(f"Token by token: http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/", flush=True)
    if lan:
        print(f"On this network, students can open http://{lan}:{port}/", flush=True)


def warm(app: Flask) -> None:
    """Show each model's screen once in this process (its inside and many draws too), before its first request.

    What a process does once is not in any request's estimate (machinery/cost.py counts the passes over
    weights in memory): reading a fetched model's weights in from the file they are mapped from
    (machinery/float32_weights.py), a third of a second for SmolLM2-135M from the page cache; its
    49,152 token labels (i18n/labels.py), another third; the templates, a fifth. A cold 60-word SmolLM2
    prompt was 0.9 to 1.4 s of CPU as a process's first request, and 0.5 s after this.
    """
    client = app.test_client()
    for name in app.extensions["models"]:
        client.get("/", query_string={"model": name, "inside": "1", "many": "100"})


def production_app(frame_ancestors: str | None = None, lan_url: str | None = None, extra: dict | None = None) -> Flask:
    """The app as the server runs it: never in debug mode, whatever FLASK_DEBUG says."""
    from .web import create_app

    config = {**(extra or {}), "DEBUG": False, "TESTING": False, "PROPAGATE_EXCEPTIONS": False}
    if frame_ancestors is not None:
        config["FRAME_ANCESTORS"] = frame_ancestors
    if lan_url:
        config["LAN_URL"] = lan_url  # the share link and QR code use it when the teacher is on localhost
    return create_app(config)


@dataclass(frozen=True)
class ServerOptions:
    """How to serve: processes, threads, and the one proxy (if any) whose X-Forwarded-Proto to believe."""

    threads: int = WAITRESS_THREADS
    workers: int = 1
    trusted_proxy: str | None = None  # e.g. "127.0.0.1" for nginx on the same machine


def serve(host: str, port: int, threads: int = WAITRESS_THREADS, workers: int = 1, frame_ancestors: str | None = None,
          trusted_proxy: str | None = None, allowed_hosts: tuple[str, ...] = ()) -> int:
    """Build the app once, then serve it with waitress (1 worker) or gunicorn (several).

    A change to a room must come from a page on an address the server answers as (serving/hosts.py):
    this machine's names with the port, the host it binds, its LAN address, and `allowed_hosts`.
    """
    lan = lan_address() if host in ("0.0.0.0", "::") else None
    config = {"ALLOWED_HOSTS": served_hosts(host, port, lan, allowed_hosts), "TRUSTED_PROXY": trusted_proxy}
    app = production_app(frame_ancestors, f"http://{lan}:{port}/" if lan else None, config)
    options = ServerOptions(threads, workers, trusted_proxy)
    if workers > 1:
        announce(host, port, lan)
        return serve_gunicorn(app, host, port, options)
    warm(app)  # the one process: before it listens (gunicorn's workers each warm their own)
    announce(host, port, lan)
    return serve_waitress(app, host, port, options)


def serve_waitress(app: Flask, host: str, port: int, options: ServerOptions) -> int:
    """Serve with one waitress process: its main loop reads each request whole before a thread sees it."""
    from waitress import serve as waitress_serve

    proxy = {}
    if options.trusted_proxy:  # https in the share link and QR code when a TLS proxy says so; nothing else
        proxy = {"trusted_proxy": options.trusted_proxy, "trusted_proxy_headers": "x-forwarded-proto",
                 "clear_untrusted_proxy_headers": True}
    waitress_serve(app, host=host, port=port, threads=options.threads, ident="token-by-token",
                   max_request_header_size=MAX_REQUEST_LINE_BYTES,
                   max_request_body_size=app.config["MAX_CONTENT_LENGTH"], **proxy)
    return 0


def serve_gunicorn(app: Flask, host: str, port: int, options: ServerOptions) -> int:
    """Run gunicorn's arbiter in this process: forked worker processes of several threads each.

    Each process reads a request whole in its main loop before a thread sees it (buffered_worker.py),
    so slow clients cannot hold the threads. From the trusted proxy, only X-Forwarded-Proto is
    believed: not the other scheme headers gunicorn knows, and no SCRIPT_NAME or PATH_INFO, which
    would change every link on a page.
    """
    from gunicorn.app.base import BaseApplication
    from gunicorn.http import message

    # gunicorn caps limit_request_line at its MAX_REQUEST_LINE, 8,190 bytes: a state URL can be
    # longer (a long prompt in a script of many bytes a character, and hundreds of ids). Raise the
    # cap to the same bound waitress has; it is read when each request is parsed, in the workers
    # forked from this process. tests/e2e/test_security.py sends a 100 KB prompt to check it.
    message.MAX_REQUEST_LINE = max(message.MAX_REQUEST_LINE, MAX_REQUEST_LINE_BYTES)
    settings = {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": options.workers,
        "threads": options.threads,
        "worker_class": "webapp.buffered_worker.BufferedThreadWorker",
        "limit_request_line": MAX_REQUEST_LINE_BYTES,
        "forwarded_allow_ips": options.trusted_proxy or "",  # gunicorn would trust 127.0.0.1 by default
        "secure_scheme_headers": {"X-FORWARDED-PROTO": "https"},
        "forwarder_headers": "",
        "proc_name": "token-by-token",
        "post_worker_init": lambda worker: warm(app),  # in each worker, before it takes a request
        "accesslog": None,
        "loglevel": "warning",
    }

    class Server(BaseApplication):
        def load_config(self):
            for name, value in settings.items():
                self.cfg.set(name, value)

        def load(self):
            return app

    Server().run()
    return 0
