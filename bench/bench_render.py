"""Time a whole rendered Step in process: what one new Step costs the server, request to gzipped answer.

    .venv/bin/python bench/bench_render.py                      # the bundled models, 400 Steps each
    .venv/bin/python bench/bench_render.py --model austen-bigram --profile   # and where the time goes

Each request is what bench/load.lua's "step" mode sends (a student's Step through htmx): GET /step
with a fresh random prompt, temperature, truncation, seed and ids, HX-Request: true and
Accept-Encoding: gzip, so none is answered from the answer cache. It prints the median and mean CPU
milliseconds of the request's thread (time.thread_time) and, for comparison, of GET /healthz, and the
mean size of the answer. Figures only: nothing is asserted. BLAS runs on one thread, as a server
process of the default configuration does.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import time
from urllib.parse import urlencode

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from webapp.web import create_app  # noqa: E402

# The same prompts and settings as bench/load.lua draws from.
PROMPTS = [
    "It is a truth universally acknowledged, that a single man",
    "Mr. Darcy said",
    "Elizabeth looked at her sister and",
    "She was",
    "The weather was fine, and the whole party",
    "It was a dark and stormy night; the rain fell in torrents",
    '"My dear Mr. Bennet," said his lady to him one day',
    "Emma Woodhouse, handsome, clever, and rich",
    "zyxwvut quantum blockchain",
    "",
    "<img src=x onerror=alert(1)> {{7*7}}",
    "Ünïcödé — “quotes” and ’apostrophes’",
]
TEMPERATURES = ["0", "0.3", "0.7", "0.8", "1", "1.2", "1.5", "2"]
MAX_IDS = 30
HEADERS = {"HX-Request": "true", "Accept-Encoding": "gzip"}
DEFAULT_MODELS = ("austen-bigram", "austen-transformer", "article")  # the bundled ones: a Step in milliseconds


def random_step(rng: random.Random, model: str, n_vocab: int) -> str:
    """A Step URL as load.lua makes one."""
    query = {
        "prompt": rng.choice(PROMPTS),
        "model": model,
        "temperature": rng.choice(TEMPERATURES),
        "seed": str(rng.randint(0, 2**31 - 1)),
    }
    if rng.random() < 0.25:
        query["top_k"] = str(rng.randint(1, 50))
    if rng.random() < 0.2:
        query["top_p"] = f"{0.5 + 0.5 * rng.random():.2f}"
    if rng.random() < 0.15:
        query["min_p"] = f"{0.2 * rng.random():.2f}"
    n = rng.randint(0, MAX_IDS)
    if n:
        query["ids"] = ",".join(str(rng.randrange(n_vocab)) for _ in range(n))
    return "/step?" + urlencode(query)


def cpu_ms(client, urls: list[str], headers: dict[str, str]) -> tuple[list[float], list[int]]:
    """Each request's CPU milliseconds on this thread, and each answer's size."""
    times, sizes = [], []
    for url in urls:
        start = time.thread_time()
        answer = client.get(url, headers=headers)
        times.append((time.thread_time() - start) * 1e3)
        assert answer.status_code == 200, (url, answer.status_code)
        sizes.append(len(answer.data))
    return times, sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="a model to measure (default: every bundled one)")
    parser.add_argument("--steps", type=int, default=400, help="timed Steps per model (default 400)")
    parser.add_argument("--profile", action="store_true", help="also print where the time goes (cProfile)")
    args = parser.parse_args(argv)

    app = create_app()  # the answer cache on, as served: it reads each state once, and no new Step is in it
    client = app.test_client()
    models = app.extensions["models"]
    names = args.model or [name for name in DEFAULT_MODELS if name in models]
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()}; "
          f"{args.steps} new Steps per model, one warm-up pass first\n")
    healthz, _ = cpu_ms(client, ["/healthz"] * 2000, {"Accept-Encoding": "gzip"})
    print(f"{'request':<28} {'median CPU ms':>14} {'mean CPU ms':>12} {'KB gzipped':>11}")
    print(f"{'/healthz':<28} {np.median(healthz):>14.2f} {np.mean(healthz):>12.2f}")
    for name in names:
        rng = random.Random(7)
        warm_up = [random_step(rng, name, models[name].n_vocab) for _ in range(50)]
        urls = [random_step(rng, name, models[name].n_vocab) for _ in range(args.steps)]
        cpu_ms(client, warm_up, HEADERS)  # templates compiled, the KV cache's pool filled; none of these again
        times, sizes = cpu_ms(client, urls, HEADERS)
        print(f"{'/step ' + name:<28} {np.median(times):>14.2f} {np.mean(times):>12.2f} {np.mean(sizes) / 1e3:>11.1f}")
        if args.profile:
            profiler = cProfile.Profile()
            fresh = [random_step(rng, name, models[name].n_vocab) for _ in range(args.steps)]  # none answered yet
            profiler.enable()
            cpu_ms(client, fresh, HEADERS)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
