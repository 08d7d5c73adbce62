"""Replay hostile requests against the production server and see that everyone else is still answered.

    .venv/bin/python bench/abuse.py                 # the default server: `python -m webapp`
    .venv/bin/python bench/abuse.py --workers 1     # one waitress process of 8 threads
    .venv/bin/python bench/abuse.py --slow 50       # slow clients in the slow-client attacks
    .venv/bin/python bench/abuse.py --only room --only redis       # the class room's attacks alone
    .venv/bin/python bench/abuse.py --only room --tree /tmp/old    # another checkout's server (before/after)

It starts `python -m webapp` on 127.0.0.1 (a free port, never another address, and a room store in a
temporary folder; a second one with `--trusted-proxy 127.0.0.1` for the proxy attack, a third with a
redis-server of its own for the store's outages), and for each attack prints: the server's time for
the worst request (its Server-Timing header: wall-clock, and CPU of the request's thread, which the
machine's other load does not stretch), the statuses, the largest response, how many 5xx other
than a 503 with Retry-After (the server saying it is busy) there were, and the p99 latency of
GET /healthz asked every 25 ms from another client meanwhile. Everything is bounded in time: slow
clients trickle for --seconds, a request waits 30 s at most, and the whole takes a few minutes.

The class room's attacks come from several loopback addresses (127.0.0.0/8 all reach a server on
127.0.0.1, and each is another client to it): a room shown a state `/` refuses, students flooding
a room's joins, codes guessed by GET, rooms started from 40 addresses, and the room's Redis paused
(SIGSTOP) and then killed in the middle of a vote, with the votes taken compared with those counted.

Goals: no request over 2 s of server time, /healthz p99 under 1 s during every attack, memory
growth under 40 MB for 2,000 requests with 60 KB of junk parameters each, zero 5xx, no vote lost.
Figures only: nothing is asserted. Linux (memory from /proc).
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import random
import re
import shutil
import signal
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
TREE = ROOT  # the checkout whose server is attacked (--tree)
SCENARIOS = ("stepper", "room", "redis", "proxy")


@dataclass
class Answer:
    status: int  # 0: no answer (timeout, reset)
    size: int = 0
    server_ms: float = 0.0  # from Server-Timing: app;dur= (wall-clock)
    cpu_ms: float = 0.0  # from Server-Timing: cpu;dur= (the request's thread)
    seconds: float = 0.0  # as the client saw it
    retry_after: bool = False
    body: bytes = b""
    location: str = ""
    headers: dict = field(default_factory=dict)


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
    return ask(port, "GET", target, headers, timeout=timeout)


def ask(port: int, method: str, target: str, headers: dict | None = None, form: dict | None = None,
        timeout: float = TIMEOUT, source: str = "", jar: dict | None = None) -> Answer:
    """One request on a new connection, from the loopback address `source` (127.0.0.0/8 all reach the
    server: a different address is a different client to it); cookies read from and kept in `jar`."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout, source_address=(source, 0) if source else None)
    body = urlencode(form).encode() if form is not None else None
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        sent = {"Accept-Encoding": "gzip", **(headers or {})}
        if body is not None:
            sent |= {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": str(len(body)),
                     "Origin": f"http://{HOST}:{port}"}
        if jar:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in jar.items())
        for name, value in sent.items():
            conn.putheader(name, value)
        conn.endheaders(body)
        response = conn.getresponse()
        body = response.read()
    except (OSError, http.client.HTTPException):
        return Answer(0, seconds=time.perf_counter() - started)
    finally:
        conn.close()
    if jar is not None:
        for cookie in response.msg.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            jar[name.strip()] = value
    timing = response.getheader("Server-Timing") or ""
    wall, cpu = (re.search(rf"{name};dur=([\d.]+)", timing) for name in ("app", "cpu"))
    wall_ms, cpu_ms = (float(found.group(1)) if found else 0.0 for found in (wall, cpu))
    size = len(body)
    if response.getheader("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    return Answer(response.status, size, wall_ms, cpu_ms, time.perf_counter() - started,
                  response.getheader("Retry-After") is not None, body, response.getheader("Location") or "",
                  {k.lower(): v for k, v in response.getheaders()})


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
    return attack_in_turn(name, port, [(requests, concurrency)], note)


def attack_in_turn(name: str, port: int, batches: list[tuple[list[Callable[[], Answer]], int]],
                   note: str = "") -> Outcome:
    """Batches of requests one after the other (each batch `concurrency` at a time), /healthz watched throughout."""
    outcome = Outcome(name, note=note)
    with HealthWatch(port) as watch:
        for requests, concurrency in batches:
            with ThreadPoolExecutor(concurrency) as pool:
                outcome.answers += list(pool.map(lambda request: request(), requests))
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
    if "--store" not in extra:  # never the user's own rooms
        command += ["--store", f"sqlite:///{logs / f'rooms-{port}.sqlite3'}"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(TREE)}
    with open(logs / f"server-{port}.log", "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=TREE, env=env)
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


# --- the class room ------------------------------------------------------------------------------

ROOM_PROMPT = "It is a truth universally acknowledged, that a single man"
GUESSABLE = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # webapp/room/codes.py's alphabet


@dataclass
class Browser:
    """One browser: its cookies, and the loopback address it comes from."""

    port: int
    source: str = HOST
    jar: dict = field(default_factory=dict)

    def ask(self, method: str, target: str, form: dict | None = None, headers: dict | None = None) -> Answer:
        return ask(self.port, method, target, headers, form, source=self.source, jar=self.jar)


class Teacher(Browser):
    code = ""

    def start(self, from_url: str) -> Answer:
        answer = self.ask("POST", "/room", {"from": from_url})
        if answer.status == 303:
            self.code = answer.location.split("/room/")[1].split("/")[0]
        return answer

    def results(self) -> dict:
        answer = self.ask("GET", f"/room/{self.code}/results.json")
        return json.loads(answer.body) if answer.status == 200 else {"status": answer.status}

    def show(self, path: str, action: str) -> Answer:
        """What the teacher's page does: the new screen as htmx, then its address to the room."""
        shown = self.ask("GET", path, headers={"HX-Request": "true"})
        if shown.status != 200:
            return shown
        return self.ask("POST", f"/room/{self.code}/state", {"url": shown.headers["hx-push-url"], "action": action})

    def step(self) -> Answer:
        room = self.results()
        return self.show("/step?" + room["state"], "step") if "state" in room else Answer(room["status"])

    def reveal(self) -> Answer:
        room = self.results()
        return self.show("/?" + room["state"] + "&reveal=1", "show") if "state" in room else Answer(room["status"])


def join(port: int, code: str, source: str, nickname: str = "") -> tuple[Answer, Browser]:
    student = Browser(port, source)
    return student.ask("POST", "/join", {"code": code, "nickname": nickname}), student


def ballot(student: Browser, code: str) -> tuple[int, list[int]]:
    """The open round's number and its ballot's tokens, as a student's poll gets them."""
    screen = student.ask("GET", f"/room/{code}/screen")
    number, _, state = screen.headers.get("x-room-round", "0-closed").partition("-")
    tokens = [int(t) for t in re.findall(rb'name="token" value="(\d+)"', screen.body)]
    return (int(number), tokens) if state == "open" else (0, [])


def random_code(rng: random.Random) -> str:
    return "".join(rng.choice(GUESSABLE) for _ in range(8))


def until(deadline: float, request: Callable[[], Answer]) -> Callable[[], Answer]:
    """A request that is not sent once the scenario's time is up (its answer: status -1, left out)."""
    return lambda: request() if time.monotonic() < deadline else Answer(-1)


def sent(outcome: Outcome) -> Outcome:
    outcome.answers = [a for a in outcome.answers if a.status != -1]
    return outcome


def room_attacks(port: int, heavy: str, store_file: Path) -> list[Outcome]:
    out = []
    teacher = Teacher(port, "127.0.0.10")
    light = "/?" + urlencode({"model": "austen-transformer", "prompt": ROOM_PROMPT, "seed": 7})
    teacher.start(light)
    code = teacher.code
    _, student = join(port, code, "127.0.0.11", "Ann")
    big = "/?" + urlencode({"model": "austen-transformer", "prompt": "Q", "ids": some_ids(1020, 4), "surprise": 1},
                           safe=",")
    pages = [lambda p=p: teacher.ask("GET", f"/room/{code}/{p}") for p in ("teach", "teach", "teach", "teach")]
    pages += [lambda p=p: student.ask("GET", f"/room/{code}{p}") for p in ("", "", "/screen", "/screen")]
    outcome = attack_in_turn("7. a room shown a 1,020-id state with surprise=1, then 8 of its pages at once", port,
                             [([lambda: Teacher(port, "127.0.0.12").start(big),
                                lambda: teacher.ask("POST", f"/room/{code}/state", {"url": big, "action": "show"})], 2),
                              (pages, 8)])
    outcome.note = (f"start a room from it: {outcome.answers[0].status}, show it to a room: "
                    f"{outcome.answers[1].status}")
    out.append(outcome)
    if heavy == "smollm2-135m":
        words = " ".join(random.Random(5).choice(ROOM_PROMPT.split()) for _ in range(300))
        out.append(attack(f"7. a room started from a 300-word {heavy} prompt", port,
                          [lambda: Teacher(port, "127.0.0.13").start("/?" + urlencode({"model": heavy,
                                                                                     "prompt": words}))], 1))
    surprise = [lambda n=n: get(port, state_url("/step", model="austen-transformer", prompt="Q",
                                                 ids=some_ids(300, 20 + n), surprise=1), {"HX-Request": "true"})
                for n in range(8)]
    out.append(attack("8. Step as htmx with surprise=1 after 300 ids, austen-transformer, 8 at once", port,
                      surprise, 8))
    many = [lambda n=n: get(port, state_url("/", model="austen-bigram", prompt=ROOM_PROMPT, seed=n, many=10000))
            for n in range(16)]
    out.append(attack("9. many=10000, 16 pages at once", port, many, 8))
    if heavy == "smollm2-135m":
        rng = random.Random(9)
        cold = [lambda n=n: get(port, state_url("/", model=heavy, prompt=" ".join(
            rng.choice(ROOM_PROMPT.split()) for _ in range(60)) + f" {n}")) for n in range(3)]
        out.append(attack(f"9. a cold 60-word {heavy} prompt, 3 of them", port, cold, 1))
    out.append(join_flood(port, code))
    out.append(guessing(port, code))
    out.append(room_flood(port, store_file))
    return out


def join_flood(port: int, code: str) -> Outcome:
    """10. One address joins 2,000 students (no cookies kept), then the real class joins from another."""
    deadline = time.monotonic() + 60
    outcome = sent(attack_in_turn("10. 2,000 joins to one room from one address in a minute, then a class of 30",
                                  port, [([until(deadline, lambda n=n: join(port, code, "127.0.0.20", f"bot {n}")[0])
                                           for n in range(2000)], 8)]))
    script = sum(a.status == 303 for a in outcome.answers)
    made_up = {f"tbt_student_{code}": "A" * 22}
    joined = Browser(port, "127.0.0.21", dict(made_up))
    joined.ask("POST", "/join", {"code": code, "nickname": "made up"})
    kept = joined.jar == made_up
    vote = Browser(port, "127.0.0.21", dict(made_up)).ask("POST", f"/room/{code}/vote", {"round": 1, "token": 5})
    class_in = sum(join(port, code, "127.0.0.22", f"pupil {n}")[0].status == 303 for n in range(30))
    outcome.note = (f"{script} of {len(outcome.answers)} script joins let in; a made-up id "
                    f"{'kept' if kept else 'replaced'}, its vote {vote.status}; the class: {class_in} of 30 in")
    return outcome


def guessing(port: int, code: str, seconds: float = 10) -> Outcome:
    """11. One address asks for random codes by GET for `seconds`; the real code now and then."""
    rng, deadline = random.Random(11), time.monotonic() + seconds
    paths = ("/room/{}/screen", "/room/{}", "/room/{}/qr.svg")
    guess = Browser(port, "127.0.0.30")
    requests = [until(deadline, lambda n=n: guess.ask("GET", paths[n % 3].format(
        code if n % 250 == 249 else random_code(rng)))) for n in range(100_000)]
    started = time.monotonic()
    outcome = sent(attack("11. guessing join codes by GET, one address", port, requests, 8))
    took = time.monotonic() - started
    fakes = {a.status for n, a in enumerate(outcome.answers) if n % 250 != 249}
    real = [a.status for n, a in enumerate(outcome.answers) if n % 250 == 249]
    told = sum(status not in fakes for status in real)
    outcome.note = (f"{len(outcome.answers):,} guesses, {len(outcome.answers) / took:,.0f} a second; the real code "
                    f"asked {len(real)} times, told apart from wrong ones {told} times")
    return outcome


def room_flood(port: int, store_file: Path, seconds: float = 40) -> Outcome:
    """12. Rooms started from 40 addresses for `seconds`; then a real teacher from another one."""
    deadline = time.monotonic() + seconds
    light = "/?" + urlencode({"model": "austen-bigram", "prompt": "Mr. Darcy"})
    size = store_size(store_file)
    outcome = sent(attack("12. rooms started from 40 addresses for 40 s", port,
                          [until(deadline, lambda n=n: Teacher(port, f"127.0.1.{n % 40 + 1}").start(light))
                           for n in range(5000)], 8))
    grown = store_size(store_file) - size
    real = Teacher(port, "127.0.0.40").start(light)
    outcome.note = (f"{sum(a.status == 303 for a in outcome.answers):,} rooms started, the store grew "
                    f"{grown / 2**20:,.1f} MB; then a teacher elsewhere: {real.status}")
    return outcome


def store_size(store_file: Path) -> int:
    """The SQLite store's bytes on disk, its write-ahead log included."""
    return sum(f.stat().st_size for f in store_file.parent.glob(store_file.name + "*"))


def redis_outages(opts, logs: Path) -> list[Outcome]:
    """13. The room store (Redis) paused for 12 s, then killed, during a vote: the rest of the app answers."""
    executable = shutil.which("redis-server")
    if executable is None:
        return [Outcome("13. Redis paused and killed", note="no redis-server on this machine: not run")]
    redis_port = free_port()
    redis = subprocess.Popen([executable, "--port", str(redis_port), "--bind", HOST, "--save", "", "--appendonly",
                              "no", "--dir", str(logs)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server, port = start(opts.workers, logs, ["--store", f"redis://{HOST}:{redis_port}/0"])
    log = logs / f"server-{port}.log"
    try:
        teacher = Teacher(port, "127.0.0.50")
        teacher.start("/?" + urlencode({"model": "austen-bigram", "prompt": ROOM_PROMPT, "seed": 3}))
        code = teacher.code
        teacher.ask("POST", f"/room/{code}/settings", {"votes_on": 1})
        students = [join(port, code, f"127.0.2.{n % 200 + 1}", f"s{n}")[1] for n in range(40)]
        teacher.step()
        round_, tokens = ballot(students[0], code)
        accepted: set[int] = set()

        def vote(n: int) -> Answer:
            answer = students[n].ask("POST", f"/room/{code}/vote", {"round": round_, "token": tokens[n % len(tokens)]},
                                     {"HX-Request": "true"})
            if answer.status == 200:
                accepted.add(n)
            return answer

        def poll(n: int) -> Answer:
            return students[n].ask("GET", f"/room/{code}/screen")

        out = []
        for name, signal_, seconds in (("13. Redis paused (SIGSTOP) for 12 s during a vote", signal.SIGSTOP, 12.0),
                                       ("14. Redis killed during the vote", signal.SIGKILL, 7.0)):
            tracebacks = log.read_text(errors="replace").count("Traceback")
            [vote(n) for n in range(0, 40, 2)]  # half the class has voted before
            redis.send_signal(signal_)
            deadline = time.monotonic() + seconds
            work = [until(deadline, lambda n=n: (vote if n % 3 == 0 else poll)(n % 40)) for n in range(20_000)]
            work.append(until(deadline, teacher.reveal))
            outcome = sent(attack(name, port, work, 8))
            if signal_ == signal.SIGSTOP:
                redis.send_signal(signal.SIGCONT)
                time.sleep(6)  # the store's breaker lets a request through again
                later = [vote(n) for n in range(1, 40, 2)]  # the other half votes once it answers again
                teacher.reveal()
                counted = next((r["n_votes"] for r in teacher.results().get("rounds", []) if r["round"] == round_),
                               None)
                outcome.note = (f"after it: {sum(a.status == 200 for a in later)} of 20 votes taken; "
                                f"{len(accepted)} accepted in all, {counted} counted at Reveal")
            else:
                outcome.note = ""
            outcome.note += f"; {log.read_text(errors='replace').count('Traceback') - tracebacks} tracebacks logged"
            out.append(outcome)
        return out
    finally:
        stop(server)
        redis.kill()
        redis.wait()


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
    global TREE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, help="processes (default: the server's own, one per core)")
    parser.add_argument("--slow", type=int, default=50, help="slow clients in attacks 3 (default 50)")
    parser.add_argument("--seconds", type=float, default=12.0, help="how long the slow clients trickle (default 12)")
    parser.add_argument("--only", choices=SCENARIOS, action="append",
                        help="run these groups of attacks only (default: all)")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="attack the server of another checkout of the app (e.g. an older commit's worktree)")
    opts = parser.parse_args(argv)
    TREE, groups = opts.tree.resolve(), set(opts.only or SCENARIOS)
    with tempfile.TemporaryDirectory(prefix="abuse-") as tmp:
        logs = Path(tmp)
        started = time.monotonic()
        outcomes = []
        if groups & {"stepper", "room"}:
            server, port = start(opts.workers, logs)
            try:
                if "stepper" in groups:
                    outcomes += run_attacks(port, server.pid, opts)
                if "room" in groups:
                    outcomes += room_attacks(port, heavy_model(port), logs / f"rooms-{port}.sqlite3")
            finally:
                stop(server)
        if "redis" in groups:
            outcomes += redis_outages(opts, logs)
        if "proxy" in groups:
            outcomes += poisoning(opts, logs)
        print(f"\n`python -m webapp`{f' --workers {opts.workers}' if opts.workers else ''} from {TREE}, "
              f"{time.monotonic() - started:.0f} s, load average {os.getloadavg()[0]:.1f}\n")
        print("| attack | worst server ms, wall / CPU | statuses | largest KB | 5xx | /healthz p99 ms | note |")
        print("| --- | ---: | --- | ---: | ---: | ---: | --- |")
        for outcome in outcomes:
            print(outcome.row())


if __name__ == "__main__":
    main()
