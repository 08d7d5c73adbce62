"""A gunicorn worker that serves with waitress: gunicorn forks and watches the processes, waitress reads the requests.

gunicorn's own threaded worker gives a thread to a connection as soon as its first bytes arrive and
lets it wait there for the rest: eight clients sending a header a byte at a time, or a body a chunk
every few seconds, held every thread of a two-process server, and /healthz stopped answering.
Waitress reads every request, line, headers and body, in its main loop, into a buffer, and only a
complete request goes to a thread; it writes answers from buffers the same way. A slow client costs
a buffer, not a thread, and is dropped after CHANNEL_TIMEOUT seconds of silence.

gunicorn's arbiter stays in charge of the processes: it forks them after the models are loaded (so
their arrays are shared), restarts one that dies, and stops them on a signal. This worker beats its
heart from a small thread, and leaves waitress's loop on SIGTERM, SIGINT or SIGQUIT. Waitress also
reads X-Forwarded-Proto from the trusted proxy, as when it serves alone: the same rules either way.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from gunicorn.workers.base import Worker

CHANNEL_TIMEOUT = 30  # seconds a connection may stay silent, mid-request or idle between requests


class WaitressWorker(Worker):
    """One process of the server: a waitress server on the sockets gunicorn opened."""

    # Set by serve.serve_gunicorn before the arbiter forks: threads, the size limits, the trusted proxy.
    waitress_options: dict = {}

    def run(self) -> None:
        from waitress.server import create_server

        server = create_server(self.wsgi, sockets=[s.sock for s in self.sockets], ident="token-by-token",
                               channel_timeout=CHANNEL_TIMEOUT, **self.waitress_options)
        threading.Thread(target=self.heartbeat, name="heartbeat", daemon=True).start()
        server.run()  # until a signal raises SystemExit in this, the main, thread

    def heartbeat(self) -> None:
        """Tell the arbiter this process lives; stop when the arbiter has gone."""
        interval = max(0.5, self.timeout / 4) if self.timeout else 1.0
        while self.alive:
            if os.getppid() != self.ppid:
                os.kill(os.getpid(), signal.SIGTERM)
                return
            self.notify()
            threading.Event().wait(interval)

    def handle_exit(self, sig, frame) -> None:
        """SIGTERM: leave waitress's loop, which closes its sockets and lets its threads finish."""
        self.alive = False
        sys.exit(0)
