"""Fail fast while the room store is not answering, and notice by itself when it answers again.

A store that hangs (Redis paused, a network cut) or is gone would otherwise cost every request that
reads it the client's whole timeout, one request after another, until every thread of every process
waits on it and nothing is answered, not even /healthz. The breaker in front of the store's calls:

    closed     calls go through; a failure (a timeout, a refused or reset connection) opens it
    open       for `cooldown` seconds every call fails at once with StoreUnavailable, the network untouched
    half-open  then one call goes through as a probe: success closes the breaker, failure opens it
               again for another cooldown; the calls meanwhile fail at once, as while open

and at most `max_calls` calls are in flight at once in a process: one more waits `slot_wait` for its
turn, then fails too, so that the first calls of an outage (each waiting out the timeout before anything
is known) hold at most that many threads for longer than that. An outage is logged twice in each
process, a warning as it begins and a line as it ends; the calls it refuses meanwhile are not logged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .store import StoreUnavailable

log = logging.getLogger(__name__)

COOLDOWN_SECONDS = 5.0  # a dead store then costs one thread one timeout every 5 s; a blip is over in 5 s
# In flight at once in a process. Waitress's 8 threads keep at least 4 for the rest of the app while the
# first calls of an outage wait out their timeout; gunicorn's 2 threads a process never reach the bound,
# and there the breaker alone bounds a hang: one timeout per thread, once, then one probe a cooldown.
MAX_CALLS = 4
# How long a call waits for one of those to end before it fails. A healthy call takes a fraction of a
# millisecond, a few when threads queue for the interpreter, so a call that finds them all busy gets its
# turn well within this, rather than a 503 for a class that merely polls at the same moment.
SLOT_WAIT_SECONDS = 0.1


class Breaker:
    """A circuit breaker and a bound on the calls in flight, for one store in one process."""

    def __init__(self, failures: tuple[type[BaseException], ...], cooldown: float = COOLDOWN_SECONDS,
                 max_calls: int = MAX_CALLS, slot_wait: float = SLOT_WAIT_SECONDS,
                 clock: Callable[[], float] = time.monotonic, name: str = "room store"):
        self.failures, self.cooldown, self.slot_wait, self.clock = failures, cooldown, slot_wait, clock
        self.name = name
        self._slots = threading.BoundedSemaphore(max_calls)
        self._lock = threading.Lock()
        self._open_until: float | None = None  # None: closed
        self._outage_began = 0.0
        self._probing = False

    @property
    def is_open(self) -> bool:
        return self._open_until is not None

    @contextmanager
    def call(self) -> Iterator[None]:
        """Run one store call: StoreUnavailable at once while the store is not answering, or for its failure."""
        probe = self._admit()
        if not self._slots.acquire(timeout=self.slot_wait):
            self._end_probe(probe, recovered=False)
            raise StoreUnavailable(retry_after=1)
        try:
            yield
        except self.failures as error:
            self._trip(error)
            raise StoreUnavailable(retry_after=self.cooldown) from error
        except BaseException:
            self._end_probe(probe, recovered=True)  # an answer, if not the one hoped for: the store answers
            raise
        else:
            self._end_probe(probe, recovered=True)
        finally:
            self._slots.release()

    def _admit(self) -> bool:
        """Let the call through (True: as the half-open probe), or refuse it while the breaker is open."""
        with self._lock:
            if self._open_until is None:
                return False
            left = self._open_until - self.clock()
            if left > 0 or self._probing:
                raise StoreUnavailable(retry_after=max(left, 1))
            self._probing = True
            return True

    def _trip(self, error: BaseException) -> None:
        with self._lock:
            began = self._open_until is None
            if began:
                self._outage_began = self.clock()
            self._open_until = self.clock() + self.cooldown
            self._probing = False
        if began:  # once an outage: the calls it fails meanwhile say nothing
            log.warning("the %s is not answering (%s: %s); its calls fail at once for %g s, then one tries again",
                        self.name, type(error).__name__, error, self.cooldown)

    def _end_probe(self, probe: bool, recovered: bool) -> None:
        if not probe:
            return
        with self._lock:
            self._probing = False
            if not recovered:
                return
            self._open_until = None
            lasted = self.clock() - self._outage_began
        log.info("the %s answers again, after %.1f s", self.name, lasted)
