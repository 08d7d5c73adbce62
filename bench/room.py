"""The class room under a lecture hall: 1,000 students following the teacher and voting.

    .venv/bin/python bench/room.py                          # SQLite, the default server (gunicorn, a process per core)
    .venv/bin/python bench/room.py --store redis --servers 2 # Redis, two servers (as two machines would be)
    .venv/bin/python bench/room.py --students 200 --duration 20

It starts `python -m webapp` on 127.0.0.1 (free ports; with --store redis also a redis-server of its
own), starts a room as a teacher, joins --students students (each on a keep-alive connection of its
own, spread over the servers: a browser's polls and votes take turns on it; from a loopback address
per 250 students, as classes behind their schools' NATs), turns class votes on, and then for
--duration seconds:

  the teacher, every --step-every seconds: Step (GET /step as the browser does, then POST the new
      screen to /room/CODE/state), and --reveal-after seconds later Reveal (the same for ?reveal=1);
  each student: GET /room/CODE/screen with If-None-Match every 0.4 to 0.8 s (room.js's timing),
      304 while nothing changed; when a round closes, GET /room/CODE/me within 2 s as room.js does;
      when one opens, within 0.3 s a vote (POST /room/CODE/vote, a ballot token at random); a fifth
      of them change their vote once, which must replace the first.

It prints the delay from the teacher's publish to each student's receiving that screen (p50, p99,
max; for Step screens and all screens), votes sent (students whose vote was accepted, per round)
against votes counted in the revealed results (exactly equal is the goal), errors (any answer but
200/303/304, or a socket error), requests/s, and the server's CPU time and memory (RSS and PSS,
summed over its processes; redis-server's too). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PROMPT = "It is a truth universally acknowledged, that a single man"
TICKS = os.sysconf("SC_CLK_TCK")
POLL_S, JITTER_S = 0.6, 0.2  # as static/js/room.js: every 0.4 to 0.8 s
VOTE_WITHIN_S = 0.3
CLASS_SIZE = 250  # students per network: the server lets 400 join from one at once (ROOM_JOINS_AT_ONCE)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --- a minimal HTTP/1.1 client: one keep-alive connection per simulated browser ------------------

class Connection:
    def __init__(self, port: int, source: str | None = None):
        self.port, self.source = port, source  # source: the loopback address the client connects from
        self.reader = self.writer = None
        self.cookies: dict[str, str] = {}
        self.lock = asyncio.Lock()  # one request at a time on a connection, as HTTP/1.1 without pipelining

    async def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        """Send a request; return (status, headers, body). One retry on a connection the server closed."""
        async with self.lock:
            for attempt in (0, 1):
                try:
                    if self.writer is None:
                        local = (self.source, 0) if self.source else None
                        self.reader, self.writer = await asyncio.open_connection(HOST, self.port, local_addr=local)
                    return await self._send(method, path, body, headers or {})
                except (ConnectionError, asyncio.IncompleteReadError):
                    self.writer = None
                    if attempt:
                        raise

    async def _send(self, method, path, body, headers):
        data = urlencode(body).encode() if body is not None else b""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}", "Accept-Encoding: gzip"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if body is not None:
            lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(data)}",
                      f"Origin: http://{HOST}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        got: dict[str, str] = {}
        for line in header_lines:
            if ":" in line:
                name, value = line.split(":", 1)
                name = name.strip().lower()
                if name == "set-cookie":
                    cookie = value.strip().split(";", 1)[0]
                    self.cookies[cookie.split("=", 1)[0]] = cookie.split("=", 1)[1]
                got[name] = value.strip()
        length = int(got.get("content-length", 0))
        content = await self.reader.readexactly(length) if length else b""
        if got.get("content-encoding") == "gzip":
            content = gzip.decompress(content)
        if got.get("connection", "").lower() == "close":
            self.writer.close()
            self.writer = None
        return status, got, content


# --- the run ------------------------------------------------------------------------------------

@dataclass
class Figures:
    published: dict[int, tuple[float, str]] = field(default_factory=dict)  # version -> (time, "step"/"reveal")
    delays: list[tuple[str, float]] = field(default_factory=list)
    votes_sent: dict[int, set] = field(default_factory=dict)  # round -> students whose vote was accepted
    vote_posts: int = 0
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    superseded: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # requests by kind: 304, screen, vote, me
    late_votes: int = 0
    loop_lag: list[float] = field(default_factory=list)  # how late this client's own timers fire


class Student:
    def __init__(self, n: int, port: int, code: str, figures: Figures, stop: asyncio.Event):
        self.n, self.code, self.fig, self.stop = n, code, figures, stop
        # One keep-alive connection per student, a request at a time on it: gunicorn's gthread worker
        # keeps up to 1,000 connections open per process (worker_connections).
        # Students come from networks of CLASS_SIZE each (127.0.1.0, 127.0.1.1, ...: Linux answers on all of
        # 127/8), as classes behind their schools' NATs: each within what a network may join at once.
        self.conn = self.poller = Connection(port, source=f"127.0.1.{n // CLASS_SIZE}")
        self.etag, self.round, self.version = "", "", 0

    async def call(self, method, path, body=None, headers=None, ok=(200, 303, 304), conn=None):
        self.fig.requests += 1
        try:
            status, got, content = await (conn or self.conn).request(method, path, body, headers)
        except (OSError, asyncio.IncompleteReadError) as e:
            self.fig.errors.append(f"{method} {path.split('?')[0]}: {type(e).__name__}")
            return None, {}, b""
        kind = {304: "poll 304", 200: "screen 200"}.get(status, "") if "/screen" in path else path.rsplit("/", 1)[1]
        self.fig.kinds[kind] = self.fig.kinds.get(kind, 0) + 1
        if status == 409 and path.endswith("/vote"):
            self.fig.late_votes += 1  # after the reveal: refused, as it must be; counted apart from errors
            return status, got, content
        if status not in ok:
            self.fig.errors.append(f"{method} {path.split('?')[0]}: {status} {content[:120]!r}")
        return status, got, content

    async def join(self) -> None:
        await self.call("POST", "/join", {"code": self.code, "nickname": f"student {self.n}"})

    async def follow(self) -> None:
        await asyncio.sleep(random.random())
        while not self.stop.is_set():
            status, got, content = await self.call("GET", f"/room/{self.code}/screen",
                                                   headers={"If-None-Match": f'"{self.etag}"'} if self.etag else {},
                                                   conn=self.poller)
            now = time.monotonic()
            if status == 200:
                self.received(got, content, now)
            await asyncio.sleep(POLL_S + random.uniform(-JITTER_S, JITTER_S))

    def received(self, got: dict, content: bytes, now: float) -> None:
        self.etag = got.get("etag", "").strip('"')
        version = int(self.etag.rsplit("-", 1)[1])
        if self.version and version > self.version + 1:
            self.fig.superseded += version - self.version - 1
        self.version = version
        if version in self.fig.published:
            when, kind = self.fig.published[version]
            self.fig.delays.append((kind, now - when))
        round_ = got.get("x-room-round", "")
        if round_ != self.round:
            self.round = round_
            number, state = round_.split("-")
            if state == "closed":  # the record changed: room.js asks for the student's own part, within 2 s
                asyncio.ensure_future(self.me())
            else:
                tokens = re.findall(rb'name="token" value="(\d+)"', content)
                if tokens:
                    asyncio.ensure_future(self.vote(int(number), [int(t) for t in tokens]))

    async def me(self) -> None:
        await asyncio.sleep(random.uniform(0, 2.0))
        await self.call("GET", f"/room/{self.code}/me")

    async def vote(self, round_: int, tokens: list[int]) -> None:
        times = 2 if random.random() < 0.2 else 1
        for _ in range(times):
            await asyncio.sleep(random.uniform(0, VOTE_WITHIN_S / times))
            self.fig.vote_posts += 1
            status, _, _ = await self.call("POST", f"/room/{self.code}/vote",
                                           {"round": round_, "token": random.choice(tokens)},
                                           headers={"HX-Request": "true"})  # as room.js's page sends it
            if status == 200:
                self.fig.votes_sent.setdefault(round_, set()).add(self.n)


class Teacher:
    def __init__(self, port: int, figures: Figures):
        self.conn, self.fig = Connection(port), figures
        self.code = ""
        self.url = "/?" + urlencode({"prompt": PROMPT, "seed": 7, "predict": 1})
        self.version = 0

    async def start(self) -> None:
        status, got, _ = await self.conn.request("POST", "/room", {"from": self.url})
        assert status == 303, status
        self.code = got["location"].split("/room/")[1].split("/")[0]
        await self.conn.request("POST", f"/room/{self.code}/settings", {"votes_on": 1})
        self.version = (await self.results())["version"]

    async def results(self) -> dict:
        status, _, content = await self.conn.request("GET", f"/room/{self.code}/results.json")
        return json.loads(content)

    async def change(self, path: str, kind: str, action: str) -> None:
        status, got, _ = await self.conn.request("GET", path, headers={"HX-Request": "true"})
        if status != 200:
            self.fig.errors.append(f"teacher GET {path[:40]}: {status}")
            return
        self.url = got["hx-push-url"]
        sent = time.monotonic()
        self.fig.published[self.version + 1] = (sent, kind)
        status, _, _ = await self.conn.request("POST", f"/room/{self.code}/state", {"url": self.url, "action": action})
        if status != 200:
            self.fig.errors.append(f"teacher publish: {status}")
        version = (await self.results())["version"]
        for v in range(self.version + 2, version + 1):
            self.fig.published[v] = (sent, kind)
        self.version = version

    async def lesson(self, duration: float, every: float, reveal_after: float, stop: asyncio.Event) -> None:
        end = time.monotonic() + duration
        n = 0
        while time.monotonic() < end:
            tick = time.monotonic()
            n += 1
            if n % 40 == 0:  # the context grows: start again from the prompt now and then
                await self.change("/reset?" + self.url.split("?", 1)[1], "step", "reset")
            await self.change("/step?" + self.url.split("?", 1)[1], "step", "step")
            await asyncio.sleep(max(0.0, tick + reveal_after - time.monotonic()))
            # Reveal sends the screen's own state (a hidden pick's address leaves the pick out)
            await self.change("/?" + (await self.results())["state"] + "&reveal=1", "reveal", "show")
            await asyncio.sleep(max(0.0, tick + every - time.monotonic()))
        await asyncio.sleep(1.5)
        stop.set()


async def watch_the_loop(figures: Figures, stop: asyncio.Event) -> None:
    """Measure this client's own lateness: part of any delay it reports is its own, on a busy machine."""
    while not stop.is_set():
        asked = time.monotonic()
        await asyncio.sleep(0.1)
        figures.loop_lag.append(time.monotonic() - asked - 0.1)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def run(ports: list[int], args) -> Figures:
    figures = Figures()
    teacher = Teacher(ports[0], figures)
    await teacher.start()
    stop = asyncio.Event()
    students = [Student(n, ports[n % len(ports)], teacher.code, figures, stop) for n in range(args.students)]
    for i in range(0, len(students), 50):
        await asyncio.gather(*(s.join() for s in students[i:i + 50]))
    joined = (await teacher.results())["n_students"]
    print(f"room {teacher.code}: {joined} students joined", flush=True)
    figures.requests = 0
    figures.kinds = {}
    started = time.monotonic()
    tasks = [asyncio.ensure_future(s.follow()) for s in students]
    tasks.append(asyncio.ensure_future(watch_the_loop(figures, stop)))
    await teacher.lesson(args.duration, args.step_every, args.reveal_after, stop)
    await asyncio.gather(*tasks)
    figures.elapsed = time.monotonic() - started
    figures.results = await teacher.results()
    return figures


# --- servers and their processes ----------------------------------------------------------------

def processes_of(pid: int) -> list[int]:
    """pid and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children.get(p, [])
    return found


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / TICKS


def memory_mib(pids: list[int]) -> tuple[float, float]:
    rss = pss = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            pass
    return rss / 1024, pss / 1024


def wait_for(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"nothing answered on port {port}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--step-every", type=float, default=2.0)
    parser.add_argument("--reveal-after", type=float, default=1.6)
    parser.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    parser.add_argument("--servers", type=int, default=1, help="servers (each `python -m webapp`) sharing the store")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="serve another checkout of the app (e.g. an older commit's worktree), to compare")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="bench-room-"))
    started: list[subprocess.Popen] = []
    try:
        redis_pids: list[int] = []
        if args.store == "redis":
            redis_port = free_port()
            redis = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(redis_port),
                                      "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", str(folder)],
                                     stdout=subprocess.DEVNULL)
            started.append(redis)
            wait_for(redis_port)
            store, redis_pids = f"redis://{HOST}:{redis_port}/0", [redis.pid]
        else:
            store = f"sqlite:///{folder / 'rooms.sqlite3'}"
        ports = [free_port() for _ in range(args.servers)]
        env = {**os.environ, "TOKEN_BY_TOKEN_MODELS": str(folder / "no-user-models"),  # the bundled models only
               "PYTHONPATH": str(args.tree.resolve())}
        for port in ports:
            started.append(subprocess.Popen([sys.executable, "-m", "webapp", "--host", HOST, "--port", str(port),
                                             "--store", store], cwd=args.tree, stdout=subprocess.DEVNULL, env=env))
        for port in ports:
            wait_for(port)
        time.sleep(2)
        servers = [p for s in started[len(started) - args.servers:] for p in processes_of(s.pid)]
        print(f"{args.servers} server(s), {len(servers)} processes, store {args.store}; load average "
              f"{os.getloadavg()[0]:.2f}", flush=True)
        cpu_before, redis_before = cpu_seconds(servers), cpu_seconds(redis_pids)
        client_before = resource.getrusage(resource.RUSAGE_SELF)
        figures = asyncio.run(run(ports, args))
        servers = [p for s in started[len(started) - args.servers:] for p in processes_of(s.pid)]
        cpu = cpu_seconds(servers) - cpu_before
        client_after = resource.getrusage(resource.RUSAGE_SELF)
        report(figures, args, cpu, memory_mib(servers), cpu_seconds(redis_pids) - redis_before,
               memory_mib(redis_pids), (client_after.ru_utime + client_after.ru_stime)
               - (client_before.ru_utime + client_before.ru_stime))
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def report(fig: Figures, args, cpu: float, memory, redis_cpu: float, redis_memory, client_cpu: float) -> None:
    steps = [d for kind, d in fig.delays if kind == "step"]
    every = [d for _, d in fig.delays]
    counted = {r["round"]: r["n_votes"] for r in fig.results["rounds"]}
    sent = {r: len(s) for r, s in fig.votes_sent.items()}
    rounds = sorted(set(counted) | set(sent))
    mismatched = [(r, sent.get(r, 0), counted.get(r, 0)) for r in rounds if sent.get(r, 0) != counted.get(r, 0)]
    print(f"\n{args.students} students, {fig.elapsed:.0f} s, a Step every {args.step_every:g} s "
          f"(Reveal {args.reveal_after:g} s after), store {args.store}, {args.servers} server(s)")
    print(f"  delay teacher -> student, Step screens: p50 {1000 * statistics.median(steps):.0f} ms, "
          f"p99 {1000 * percentile(steps, 0.99):.0f} ms, max {1000 * max(steps):.0f} ms ({len(steps):,} received)")
    print(f"  delay, every screen (Step and Reveal): p50 {1000 * statistics.median(every):.0f} ms, "
          f"p90 {1000 * percentile(every, 0.9):.0f} ms, p99 {1000 * percentile(every, 0.99):.0f} ms, "
          f"max {1000 * max(every):.0f} ms ({len(every):,} received, {len(fig.published):,} changes, "
          f"{fig.superseded:,} skipped because a newer one came first)")
    print(f"  votes: {sum(sent.values()):,} sent (students with an accepted vote), {sum(counted.values()):,} "
          f"counted, over {len(rounds)} rounds; {fig.vote_posts:,} vote requests (some changed their vote); "
          f"rounds where sent != counted: {mismatched or 'none'}")
    kinds = ", ".join(f"{k} {v / fig.elapsed:,.0f}/s" for k, v in sorted(fig.kinds.items()))
    print(f"  requests: {fig.requests:,} ({fig.requests / fig.elapsed:,.0f}/s: {kinds}); server CPU per request "
          f"{1000 * cpu / max(1, fig.requests):.2f} ms")
    print(f"  errors: {len(fig.errors)}" + (f" e.g. {[e[:100] for e in fig.errors[:3]]}" if fig.errors else "")
          + f"; votes refused as too late (409 after the reveal, nothing changed): {fig.late_votes}")
    print(f"  server CPU: {cpu:.1f} s over {fig.elapsed:.0f} s = {cpu / fig.elapsed:.2f} cores; "
          f"memory RSS {memory[0]:.0f} MiB, PSS {memory[1]:.0f} MiB (all its processes)")
    if args.store == "redis":
        print(f"  redis-server CPU: {redis_cpu / fig.elapsed:.2f} cores; RSS {redis_memory[0]:.0f} MiB")
    lag50, lag99 = statistics.median(fig.loop_lag), percentile(fig.loop_lag, 0.99)
    print(f"  this benchmark's own CPU (the simulated students): {client_cpu / fig.elapsed:.2f} cores, its timers "
          f"late by p50 {1000 * lag50:.0f} ms, p99 {1000 * lag99:.0f} ms; load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
