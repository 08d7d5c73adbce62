"""Replay hostile requests against the production server and see that everyone else is still answered.

    .venv/bin/python bench/abuse.py                 # the default server: `python -m webapp`
    .venv/bin/python bench/abuse.py --workers 1     # one waitress process of 8 threads
    .venv/bin/python bench/abuse.py --slow 50       # slow clients in the slow-client attacks

It starts `python -m webapp` on 127.0.0.1 (a free port, never another address; a second one with
`--trusted-proxy 127.0.0.1` for the proxy attack), and for each attack prints: the server's time for
the worst request (its Server-Timing header: wall-clock, and CPU of the request's thread, which the
machine's other load does not stretch), the statuses, the largest response, how many 5xx other
than a 503 with Retry-After (the server saying it is busy) there were, and the p99 latency of
GET /healthz asked every 25 ms from another client meanwhile. Everything is bounded in time: slow
clients trickle for --seconds, a request waits 30 s at most, and the whole takes a minute or two.

Goals: no request over 2 s of server time, /healthz p99 under 1 s during every attack, memory
growth under 40 MB for 2,000 requests with 60 KB of junk parameters each, zero 5xx.
Figures only: nothing is asserted. Linux (memory from /proc).
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this tree's
from load import HOST, ROOT, free_port, rss_mib, settle, wait_until_up  # noqa: E402

TIMEOUT = 30.0


@dataclass
class Answer:
    status: int  # 0: no answer (timeout, reset)
    size: int = 0
    server_ms: float = 0.0  # from Server-Timing: app;dur= (wall-clock)
    cpu_ms: float = 0.0  # from Server-Timing: cpu;dur= (the request's thread)
    seconds: float = 0.0  # as the client saw it
    retry_after: bool = False
    body: bytes = b""


@dataclass
class Outcome:
    name: str
    answers: list[Answer] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    healthz_failed: int = 0
    note: str = ""

    def row(self) -> str:
        worst = max((a.server_ms for a in self.answers), default=0.0)
        worst_cpu = max((a.cpu_ms for a in self.answers), default=0.0)
        statuses: dict[int, int] = {}
        for a in self.answers:
            statuses[a.status] = statuses.get(a.status, 0) + 1
        bad = sum(1 for a in self.answers if a.status >= 500 and not (a.status == 503 and a.retry_after))
        size = max((a.size for a in self.answers), default=0)
        lat = sorted(self.healthz)
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else float("nan")
        codes = ", ".join(f"{k}x{v}" if v > 1 else str(k) for k, v in sorted(statuses.items()))
        return (f"| {self.name} | {worst:,.0f} / {worst_cpu:,.0f} | {codes} | {size / 1024:,.1f} | {bad} | {p99:,.0f} "
                f"({len(lat)} asked, {self.healthz_failed} unanswered) | {self.note} |")


def get(port: int, target: str, headers: dict | None = None, timeout: float = TIMEOUT) -> Answer:
    """One GET on a new connection; the answer's status, size and Server-Timing."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.putrequest("GET", target, skip_accept_encoding=True)
        for name, value in {"Accept-Encoding": "gzip", **(headers or {})}.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        body = response.read()
    except (OSError, http.client.HTTPException):
        return Answer(0, seconds=time.perf_counter() - started)
    finally:
        conn.close()
    timing = response.getheader("Server-Timing") or ""
    wall, cpu = (re.search(rf"{name};dur=([\d.]+)", timing) for name in ("app", "cpu"))
    wall_ms, cpu_ms = (float(found.group(1)) if found else 0.0 for found in (wall, cpu))
    return Answer(response.status, len(body), wall_ms, cpu_ms, time.perf_counter() - started,
                  response.getheader("Retry-After") is not None, body)


class HealthWatch:
    """Ask /healthz every 25 ms from its own connections while an attack runs."""

    def __init__(self, port: int):
        self.port, self.latencies, self.failed = port, [], 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            answer = get(self.port, "/healthz", timeout=5.0)
            if answer.status == 200:
                self.latencies.append(answer.seconds)
            else:
                self.failed += 1
                self.latencies.append(5.0)
            self._stop.wait(0.025)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def attack(name: str, port: int, requests: list[Callable[[], Answer]], concurrency: int, note: str = "") -> Outcome:
    outcome = Outcome(name, note=note)
    with HealthWatch(port) as watch, ThreadPoolExecutor(concurrency) as pool:
        outcome.answers = list(pool.map(lambda request: request(), requests))
    outcome.healthz, outcome.healthz_failed = watch.latencies, watch.failed
    return outcome


def state_url(path: str, **params) -> str:
    return f"{path}?{urlencode(params, safe=',')}"


def some_ids(n: int, seed: int, n_vocab: int = 4000) -> str:
    rng = random.Random(seed)
    return ",".join(str(rng.randrange(300, n_vocab)) for _ in range(n))


def slow_clients(port: int, n: int, seconds: float, how: str) -> tuple[int, int]:
    """n connections that send a request a little at a time for `seconds`: a chunked body one chunk
    every 3.5 s, or the header a byte at a time. Returns (connections opened, dropped by the server)."""
    socks, dropped = [], 0
    head = (f"POST /healthz HTTP/1.1\r\nHost: {HOST}\r\nTransfer-Encoding: chunked\r\n\r\n" if how == "body"
            else f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ").encode()
    for _ in range(n):
        s = socket.create_connection((HOST, port), timeout=5)
        s.sendall(head if how == "body" else head[:20])
        socks.append(s)
    deadline = time.monotonic() + seconds
    interval = 3.5 if how == "body" else 1.0
    while time.monotonic() < deadline:
        time.sleep(interval)
        for s in list(socks):
            try:
                s.sendall(b"1\r\nx\r\n" if how == "body" else b"a")
            except OSError:
                dropped += 1
                socks.remove(s)
    for s in socks:
        s.close()
    return n, dropped


def slow_attack(name: str, port: int, n: int, seconds: float, how: str) -> Outcome:
    outcome = Outcome(name)
    with HealthWatch(port) as watch:
        opened, dropped = slow_clients(port, n, seconds, how)
    outcome.healthz, outcome.healthz_failed = watch.latencies, watch.failed
    outcome.note = f"{opened} slow connections for {seconds:.0f} s, {dropped} dropped by the server"
    return outcome


def start(workers: int | None, logs: Path, extra: list[str] = ()) -> tuple[subprocess.Popen, int]:
    port = free_port()
    command = [sys.executable, "-m", "webapp", "--host", HOST, "--port", str(port), *extra]
    if workers:
        command += ["--workers", str(workers)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    with open(logs / f"server-{port}.log", "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    wait_until_up(f"http://{HOST}:{port}", server, timeout=120)
    return server, port


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def heavy_model(port: int) -> str:
    models = get(port, "/api/models").body.decode()
    return "smollm2-135m" if "smollm2-135m" in models else "austen-transformer"


def run_attacks(port: int, pid: int, opts) -> list[Outcome]:
    heavy = heavy_model(port)
    out = []

    def export(model: str, seed: int, junk: str = "") -> Callable[[], Answer]:
        return lambda: get(port, state_url("/export.json", model=model, prompt="Q", ids=some_ids(1021, seed)) + junk)

    out.append(attack(f"1. export of 1,021 ids, {heavy}, 4 at once", port,
                      [export(heavy, seed) for seed in range(4)], 4))
    out.append(attack("1. export of 1,021 ids, austen-transformer, 4 at once", port,
                      [export("austen-transformer", 10 + seed) for seed in range(4)], 4))
    long_state = {"model": heavy, "prompt": "Q", "ids": some_ids(1021, 3)}  # 1,022 tokens of context
    out.append(attack(f"1. page, Step and /api/step after 1,022 tokens, {heavy}", port,
                      [lambda p=path: get(port, state_url(p, **long_state))
                       for path in ("/", "/api/step", "/step", "/", "/api/step", "/step")], 3))
    out.append(attack(f"1. the same heavy export again with &x=N, {heavy}, 8 times", port,
                      [export(heavy, 1, f"&x={n}") for n in range(8)], 4))
    fat = state_url("/", model="austen-transformer", prompt="中" * 1990 + " a", ids=some_ids(1020, 2))
    out.append(attack("5. a 23 KB request: 1,020 ids and a long prompt, page", port, [lambda: get(port, fat)], 1,
                      note=f"request {len(fat) / 1024:.0f} KB"))
    zeros = "1" + "0" * 309
    out.append(attack("6. top_k = 1 and 309 zeros on /, /step, /back, /api/step", port,
                      [lambda p=path: get(port, f"{p}?top_k={zeros}&ids=5")
                       for path in ("/", "/step", "/back", "/api/step")], 4))
    out.append(slow_attack(f"3. {opts.slow} clients sending a chunked body a chunk every 3.5 s", port, opts.slow,
                           opts.seconds, "body"))
    out.append(slow_attack(f"3. {opts.slow} clients sending the header a byte a second", port, opts.slow,
                           opts.seconds, "header"))
    settle(pid, timeout=60)
    before, _ = rss_mib(pid)
    junk = lambda n: "&".join(f"j{n}_{i}={'z' * 1000}" for i in range(60))  # noqa: E731  60 KB
    out.append(attack("4. 2,000 requests with 60 KB of junk parameters", port,
                      [lambda n=n: get(port, "/?model=austen-bigram&prompt=Mr.+Darcy&" + junk(n)) for n in range(2000)],
                      8))
    after, _ = rss_mib(pid)
    out[-1].note = f"server memory {before:,.0f} -> {after:,.0f} MiB ({after - before:+,.0f})"
    for o in out[-1:]:
        for a in o.answers:
            a.body = b""
    return out


def poisoning(opts, logs: Path) -> list[Outcome]:
    """2. Behind a trusted proxy: a root path or another scheme header must not reach another client's page."""
    server, port = start(opts.workers, logs, ["--trusted-proxy", HOST])
    try:
        url = state_url("/", prompt="X", model="austen-bigram")
        tries = [get(port, "//evil.example" + url, {"SCRIPT_NAME": "//evil.example"}) for _ in range(4)]
        tries += [get(port, url, {"X-Forwarded-Ssl": "on"}), get(port, url, {"X-Forwarded-Protocol": "ssl"})]
        clean = [get(port, url) for _ in range(4)]
        leaked = sum(b"evil.example" in a.body or b"https://" in a.body for a in clean)
        outcome = Outcome("2. cache poisoning behind --trusted-proxy", tries + clean,
                          note=f"{leaked} of {len(clean)} plain requests got a poisoned page")
        outcome.healthz = [a.seconds for a in clean]
        return [outcome]
    finally:
        stop(server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, help="processes (default: the server's own, one per core)")
    parser.add_argument("--slow", type=int, default=50, help="slow clients in attacks 3 (default 50)")
    parser.add_argument("--seconds", type=float, default=12.0, help="how long the slow clients trickle (default 12)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="abuse-") as tmp:
        logs = Path(tmp)
        server, port = start(opts.workers, logs)
        try:
            started = time.monotonic()
            outcomes = run_attacks(port, server.pid, opts)
        finally:
            stop(server)
        outcomes += poisoning(opts, logs)
        print(f"\n`python -m webapp`{f' --workers {opts.workers}' if opts.workers else ''}, "
              f"{time.monotonic() - started:.0f} s, load average {os.getloadavg()[0]:.1f}\n")
        print("| attack | worst server ms, wall / CPU | statuses | largest KB | 5xx | /healthz p99 ms | note |")
        print("| --- | ---: | --- | ---: | ---: | ---: | --- |")
        for outcome in outcomes:
            print(outcome.row())


if __name__ == "__main__":
    main()
