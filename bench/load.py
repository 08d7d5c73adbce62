"""Load test: the production server under `wrk`, a trivial endpoint against the step a class really hits.

    .venv/bin/python bench/load.py                       # the README's settings: `python -m webapp`
    .venv/bin/python bench/load.py --servers default 1x8 # and one waitress process of 8 threads
    .venv/bin/python bench/load.py --duration 5 --connections 50

For each server configuration it starts `python -m webapp` on 127.0.0.1 (a free port, never
another address), reads its models from GET /api/models (the bundled ones; --user-models adds the
user's model folder), and runs wrk for --duration seconds at --connections connections against

  (a) GET /healthz, before and after the steps (its mean is the yardstick), and
  (b) for each model, GET /step with HX-Request: true: what a student's browser sends on Step
      (the state in the query string, the panels back as out-of-band fragments), and
  (c) for each model, GET / with a state and no htmx: a shared link opened, a page reloaded, and
  (d) for each model, a class following the teacher: GET /step as in (b), but on the teacher's
      lessons (--lessons prompts, each stepped --lesson-steps times with the teacher's settings, so
      every student who follows asks for the teacher's own addresses), except a fraction --explore
      of the requests, which are students stepping states of their own as in (b).

Every request says Accept-Encoding: gzip, as browsers do. bench/load.lua gives every (b) and (c)
request a fresh random prompt, temperature, truncation, seed and id list, so nothing is answered
twice: (b) is the worst case, where no answer can come from the server's response cache
(webapp/web/serving/cache.py). (d) is the lecture hall: the same screens asked for again and again.

It prints requests/s, p50/p99 latency, non-2xx/3xx answers, socket errors, the server's memory
(VmRSS from /proc, summed over its processes) before and after, (b)/(a), (c)/(a), and the size of a
Step's HTML from each model's default screen before gzip (KB/req is what wrk read: gzipped). Linux and wrk.
Figures only: nothing is asserted. Goal: zero errors, step/(a) >= 1/3, memory flat.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from webapp.serve import default_processes, gunicorn_available
from webapp.web.serving.cache import DEFAULT_BYTES

CACHE_MIB = DEFAULT_BYTES / 2**20
ROOT = Path(__file__).resolve().parent.parent
LUA = Path(__file__).resolve().parent / "load.lua"
HOST = "127.0.0.1"
MAX_IDS = 30  # generated ids per step request: 0 to this many
LESSON_PROMPTS = [
    "It is a truth universally acknowledged, that a single man",
    "Elizabeth looked at her sister and",
    "The weather was fine, and the whole party",
    "Emma Woodhouse, handsome, clever, and rich",
    "It was a dark and stormy night; the rain fell in torrents",
    "Mr. Darcy said",
    "She was",
    "My dear Mr. Bennet",
]


@dataclass
class Run:
    """One wrk run's figures."""

    name: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    non_2xx_3xx: int
    socket_errors: dict[str, int]
    kb_per_request: float
    cpu_ms_per_request: float  # the server's CPU time (user + system, all its processes) per answer

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    @property
    def n_socket_errors(self) -> int:
        return sum(self.socket_errors.values())

    @property
    def errors(self) -> int:
        return self.non_2xx_3xx + self.n_socket_errors


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def fetch(url: str, timeout: float = 5.0, headers: dict[str, str] | None = None) -> bytes:
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with no_proxy.open(urllib.request.Request(url, headers=headers or {}), timeout=timeout) as response:
        return response.read()


def default_step_bytes(base: str, model: str) -> int:
    """The HTML of a Step from the model's default screen, as htmx asks for it, before gzip."""
    return len(fetch(f"{base}/step?{urlencode({'model': model})}", headers={"HX-Request": "true"}))


def wait_until_up(base: str, server: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with code {server.returncode}")
        try:
            fetch(base + "/healthz", timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"the server did not answer {base}/healthz within {timeout:.0f} s")


def settle(pid: int, timeout: float = 600.0) -> None:
    """Wait until the server is idle (under 5 % of a core for half a second): the last run's backlog is done.

    A server keeps working off requests whose client has gone, so without this the next run would
    start behind the last one's queue and pay for it.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(0.5)
        if cpu_seconds(pid) - before < 0.025:
            return
    print(f"warning: the server was still busy {timeout:.0f} s after a run", flush=True)


def process_tree(pid: int) -> list[int]:
    """pid and its descendants (gunicorn's workers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def rss_mib(pid: int) -> tuple[float, list[float]]:
    """Total VmRSS of the server's processes in MiB, and each one's (shared pages count in each)."""
    each = []
    for p in process_tree(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        each.append(kb / 1024)
    return sum(each), each


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server's processes so far (a worker that exited is not counted)."""
    total = 0
    for p in process_tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat
    return total / os.sysconf("SC_CLK_TCK")


def wrk(base: str, args: list[str], duration: float, opts, name: str, pid: int) -> Run:
    command = [
        "wrk",
        "-t",
        str(opts.wrk_threads),
        "-c",
        str(opts.connections),
        "-d",
        f"{duration:g}s",
        "--timeout",
        f"{opts.timeout:g}s",
        "--latency",
        "-s",
        str(LUA),
        base,
        "--",
        *args,
    ]
    cpu_before = cpu_seconds(pid)
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=duration + 60)
    cpu = cpu_seconds(pid) - cpu_before
    settle(pid)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    socket_errors = {k: figures[k] for k in ("connect", "read", "write", "timeout") if figures[k]}
    n = max(1, figures["requests"])
    return Run(
        name,
        figures["requests"],
        figures["duration_us"] / 1e6,
        figures["p50_us"] / 1e3,
        figures["p99_us"] / 1e3,
        figures["status"],
        socket_errors,
        figures["bytes"] / n / 1024,
        1e3 * cpu / n,
    )


def lesson_urls(base: str, model: str, n_lessons: int, n_steps: int) -> list[str]:
    """The Step requests of a teacher's lessons: each prompt stepped n_steps times at the default settings."""
    urls = []
    for prompt in (LESSON_PROMPTS * n_lessons)[:n_lessons]:
        ids: list[str] = []
        for _ in range(n_steps):
            query = urlencode(
                {
                    "prompt": prompt,
                    "model": model,
                    "temperature": "0.8",
                    "seed": "1",
                    **({"ids": ",".join(ids)} if ids else {}),
                }
            )
            urls.append(f"/step?{query}")
            ids.append(str(json.loads(fetch(f"{base}/api/step?{query}"))["chosen"]["id"]))
    return urls


def start_server(spec: tuple[int, int] | None, logs: Path, user_models: bool) -> tuple[subprocess.Popen, str]:
    """Start `python -m webapp` on 127.0.0.1 and a free port; return it and its base URL.

    Unless user_models, the server sees only the bundled models: its user model folder is an empty one.
    """
    port = free_port()
    command = [sys.executable, "-m", "webapp", "--host", HOST, "--port", str(port)]
    if spec:
        command += ["--workers", str(spec[0]), "--threads", str(spec[1])]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if not user_models:
        (logs / "no-user-models").mkdir(exist_ok=True)
        env["TOKEN_BY_TOKEN_MODELS"] = str(logs / "no-user-models")
        env.pop("TOKEN_BY_TOKEN_MODEL_FILE", None)
    with open(logs / f"server-{port}.log", "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    base = f"http://{HOST}:{port}"
    wait_until_up(base, server)
    return server, base


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def bench_config(spec: tuple[int, int] | None, opts, logs: Path) -> None:
    workers, threads = spec or default_processes(None, None, os.cpu_count() or 1, gunicorn_available())
    label = (
        f"waitress, 1 process x {threads} threads"
        if workers == 1
        else f"gunicorn gthread, {workers} processes x {threads} threads"
    )
    if spec is None:
        label += " (python -m webapp's default here)"
    server, base = start_server(spec, logs, opts.user_models)
    try:
        models = json.loads(fetch(base + "/api/models"))["models"]
        step_sizes = {m["name"]: default_step_bytes(base, m["name"]) for m in models}
        cases = {"(a) /healthz": ["healthz"]}
        for kind, path in [("step", "(b) /step"), *([("page", "(c) /")] if opts.page else [])]:
            for m in models:
                cases[f"{path} {m['name']}"] = [kind, m["name"], str(m["n_vocab"]), str(MAX_IDS)]
        for m in models if opts.lessons else []:
            urls = logs / f"lessons-{m['name']}.txt"
            urls.write_text("\n".join(lesson_urls(base, m["name"], opts.lessons, opts.lesson_steps)) + "\n")
            cases[f"(d) class {m['name']}"] = [
                "class",
                m["name"],
                str(m["n_vocab"]),
                str(MAX_IDS),
                str(urls),
                f"{opts.explore:g}",
            ]
        started_mib, _ = rss_mib(server.pid)
        for args in cases.values():  # warm up: imports, templates, caches
            wrk(base, args, opts.warmup, opts, "warm-up", server.pid)
        before_mib, before_each = rss_mib(server.pid)
        cases["(a) /healthz again"] = ["healthz"]
        runs, trail = [], []
        for name, args in cases.items():
            runs.append(wrk(base, args, opts.duration, opts, name, server.pid))
            trail.append(rss_mib(server.pid)[0])
        after_mib, after_each = rss_mib(server.pid)
    finally:
        stop_server(server)
    report(label, runs, started_mib, before_mib, after_mib, before_each, after_each)
    print(
        "a Step from the default screen, HTML before gzip: "
        + ", ".join(f"{name} {size / 1000:.1f} KB" for name, size in step_sizes.items())
        + " (goal: 15 KB at most)"
    )
    print(
        f"server RSS after each run (MiB): {fmt(trail)}. Each process keeps up to "
        f"{CACHE_MIB:g} MiB of answers (webapp/web/serving/cache.py), so RSS grows until its cache is full, then stays"
    )


def report(label, runs: list[Run], started, before, after, before_each, after_each) -> None:
    trivial = (runs[0].rps + runs[-1].rps) / 2
    trivial_cpu = (runs[0].cpu_ms_per_request + runs[-1].cpu_ms_per_request) / 2
    print(f"\n== {label}")
    print(
        f"{'endpoint':28} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'non-2xx/3xx':>11} {'sock err':>8} "
        f"{'KB/req':>6} {'x/(a)':>6} {'CPU ms/req':>10} {'CPU (a)/x':>9}"
    )
    for run in runs:
        ratios = (
            ""
            if run.name.startswith("(a)")
            else f"{run.rps / trivial:6.2f} {run.cpu_ms_per_request:10.2f} {trivial_cpu / run.cpu_ms_per_request:9.2f}"
        )
        if not ratios:
            ratios = f"{'':6} {run.cpu_ms_per_request:10.2f}"
        print(
            f"{run.name:28} {run.rps:7.0f} {run.p50_ms:7.1f} {run.p99_ms:7.1f} {run.non_2xx_3xx:11d} "
            f"{run.n_socket_errors:8d} {run.kb_per_request:6.1f} {ratios}"
        )
    for run in runs:
        if run.socket_errors:
            print(f"  socket errors, {run.name}: {run.socket_errors}")
    print(
        f"(a) mean of the two /healthz runs: {trivial:.0f} req/s, {trivial_cpu:.2f} CPU ms per request. "
        "x/(a) compares requests/s; CPU (a)/x compares the server's CPU time per request, which other "
        "load on the machine does not change"
    )
    print(
        f"server RSS: {started:.1f} MiB at start, {before:.1f} MiB after warm-up, {after:.1f} MiB after the runs "
        f"({after - before:+.1f} MiB; processes before {fmt(before_each)}, after {fmt(after_each)})"
    )
    total = sum(r.requests for r in runs)
    errors = sum(r.errors for r in runs)
    print(f"requests measured: {total:,}; errors: {errors}")
    for kind, what in [("(b)", "every request new"), ("(d)", "a class following the teacher")]:
        ratios = [r.rps / trivial for r in runs if r.name.startswith(kind)]
        if ratios:
            print(
                f"worst {kind}/(a), {what}: {min(ratios):.2f} ({'meets' if min(ratios) >= 1 / 3 else 'below'} "
                "the 1/3 goal)"
            )


def fmt(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.1f}" for v in values) + "]"


def server_spec(text: str) -> tuple[int, int] | None:
    """'2x4' -> (2, 4): processes and threads per process; 'default' -> None: what the README's command runs."""
    if text == "default":
        return None
    try:
        workers, threads = (int(n) for n in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected PROCESSESxTHREADS such as 1x8, not {text!r}") from None
    if workers < 1 or threads < 1:
        raise argparse.ArgumentTypeError(f"processes and threads must be 1 or more, not {text!r}")
    return workers, threads


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--servers",
        type=server_spec,
        nargs="+",
        default=[None],
        metavar="PxT",
        help="configurations to measure: 'default' (the README's `python -m webapp`: one "
        "process per core) or processes x threads, e.g. 1x8 (waitress) or 4x2 (gunicorn)",
    )
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per measured run (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up per endpoint (default 2)")
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="seconds before wrk gives up on an answer and counts a timeout (default 10: a browser "
        "waits longer; p99 shows how long answers took)",
    )
    parser.add_argument("--no-page", dest="page", action="store_false", help="skip the (c) full-page runs")
    parser.add_argument("--lessons", type=int, default=5, help="the teacher's lessons in (d) (default 5; 0 skips (d))")
    parser.add_argument("--lesson-steps", type=int, default=30, help="steps per lesson in (d) (default 30)")
    parser.add_argument(
        "--explore",
        type=float,
        default=0.1,
        help="fraction of (d)'s requests that are students' own states, new each time (default 0.1)",
    )
    parser.add_argument(
        "--user-models",
        action="store_true",
        help="also measure the models in the user's model folder (e.g. a fetched smollm2-135m: "
        "about a second per step, so use fewer --connections)",
    )
    opts = parser.parse_args(argv)
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    if not Path("/proc/self/status").exists():
        raise SystemExit("this benchmark reads memory from /proc: run it on Linux")
    print(
        f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        f"wrk: {opts.connections} connections, {opts.wrk_threads} threads, {opts.duration:g} s per run, "
        f"{opts.warmup:g} s warm-up per endpoint, {opts.timeout:g} s timeout; step URLs from {LUA.relative_to(ROOT)}"
    )
    with tempfile.TemporaryDirectory() as logs:
        for spec in opts.servers:
            bench_config(spec, opts, Path(logs))
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
