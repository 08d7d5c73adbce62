"""Compare what the work budget estimates for a request with the CPU time the request then takes.

    .venv/bin/python bench/bench_budget.py                      # every model the app loads
    .venv/bin/python bench/bench_budget.py --model austen-transformer

Each request is sent once through the Flask test client of an app built as the server builds it (one
BLAS thread, no answer cache, a budget too large to refuse anything), on a prompt no request before it
shared, so that the KV cache holds nothing of it. Prints, per request, the estimate (Server-Timing
est;dur=) and the request thread's CPU time (cpu;dur=), and their ratio: below 1 the estimate is on
the slow side, as it should be; a request the real budget accepts (estimate within it) but that took
more than the budget's second of CPU is marked "!". First, the constants that cost.py keeps for work
besides the forward passes, measured here: one draw of "Sample many" (DRAW_SECONDS), and counting a class
model from a pasted text of 50 KB (COUNT_SECONDS per token counted).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # as the server runs
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import urlencode  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp.inference import sampling  # noqa: E402
from webapp.inference.class_text import MAX_PASTED_BYTES, from_pasted  # noqa: E402
from webapp.inference.machinery import cost  # noqa: E402
from webapp.serve import warm  # noqa: E402
from webapp.web import create_app  # noqa: E402

AUSTEN = ("It is a truth universally acknowledged that a single man in possession of a good fortune must be in want "
          "of a wife However little known the feelings or views of such a man may be on his first entering a "
          "neighbourhood this truth is so well fixed in the minds of the surrounding families that he is considered "
          "as the rightful property of some one or other of their daughters")
BUDGET = 1.0  # the server's WORK_BUDGET_SECONDS
_fresh = itertools.count()


def prompt(n_words: int) -> str:
    """n_words of Austen, after a word no other prompt of this run starts with: nothing of it is cached."""
    words = [f"Q{next(_fresh)}", *itertools.islice(itertools.cycle(AUSTEN.split()), n_words - 1)]
    return " ".join(words)


def ids(n: int, start: int = 10) -> str:
    return ",".join(str(start + i % 900) for i in range(n))


def requests(model: str, n_vocab: int) -> list[tuple[str, dict]]:
    """(path, query) of each request to time: the routes and every setting that multiplies their work."""
    base = {"model": model}
    return [
        ("/", {**base, "prompt": prompt(8)}),
        ("/", {**base, "prompt": prompt(60)}),
        ("/", {**base, "prompt": prompt(60), "ids": ids(40)}),
        ("/", {**base, "prompt": prompt(8), "ids": ids(1000)}),
        ("/", {**base, "prompt": prompt(8), "many": "10000"}),
        ("/", {**base, "prompt": prompt(8), "ids": ids(5), "many": "10000"}),
        ("/", {**base, "prompt": prompt(8), "inside": "1"}),
        ("/", {**base, "prompt": prompt(60), "inside": "1"}),
        ("/", {**base, "prompt": prompt(8), "ids": ids(40), "surprise": "1"}),
        ("/", {**base, "prompt": prompt(8), "ids": ids(40), "repetition_penalty": "1.5", "presence_penalty": "1",
               "frequency_penalty": "1", "top_k": str(n_vocab), "top_p": "0.99", "min_p": "0.001"}),
        ("/step", {**base, "prompt": prompt(8)}),
        ("/step", {**base, "prompt": prompt(60)}),
        ("/fold/worked-inside-lens", {**base, "prompt": prompt(8), "inside": "1"}),
        ("/fold/chart-numbers", {**base, "prompt": prompt(8)}),
        ("/api/step", {**base, "prompt": prompt(60), "full": "1"}),
        ("/api/inside", {**base, "prompt": prompt(8)}),
        ("/api/inside", {**base, "prompt": prompt(60)}),
        ("/export.json", {**base, "prompt": prompt(8), "ids": ids(40)}),
        ("/export-run.csv", {**base, "prompt": prompt(8), "ids": ids(40)}),
        ("/export.csv", {**base, "prompt": prompt(8), "ids": ids(5)}),
        ("/export-chain.csv", {**base, "prompt": prompt(8), "ids": ids(5)}),
        ("/qr.svg", {**base, "prompt": prompt(8)}),
        ("/vocab", {**base, "q": "e"}),
        ("/vocab", {**base, "q": ""}),
    ]


def timing(response) -> dict[str, float]:
    return {name: float(ms) for name, ms in re.findall(r"(\w+);dur=([\d.]+)", response.headers["Server-Timing"])}


def draw_seconds(n: int = 10_000) -> float:
    """One draw of "Sample many" (sampling.random_rs: a generator seeded with (seed, i, j) per draw), in seconds."""
    sampling.random_rs(1, 0, 100)  # NumPy's first generator loads what it needs
    best = float("inf")
    for seed in range(5):
        start = time.thread_time()
        sampling.random_rs(seed, 3, n)
        best = min(best, time.thread_time() - start)
    return best / n


def count_seconds() -> tuple[float, int]:
    """Counting a class model from the first 50 KB of Emma (class_text.from_pasted): seconds per token counted,
    and the tokens counted; the corpus is read from ../shared/corpus or $TOKEN_BY_TOKEN_CORPUS."""
    folder = Path(os.environ.get("TOKEN_BY_TOKEN_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
    raw = (folder / "emma.txt").read_text(encoding="utf-8").encode("utf-8")
    text = raw[:MAX_PASTED_BYTES].decode("utf-8", "ignore")
    pasted = from_pasted(text)
    best = float("inf")
    for _ in range(5):
        start = time.thread_time()
        model = pasted.model()
        best = min(best, time.thread_time() - start)
    return best / model.n_counted, model.n_counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="a model to time (default: each the app loads)")
    opts = parser.parse_args(argv)
    per_draw = draw_seconds()
    print(f"one draw of Sample many: {per_draw * 1e6:.1f} us (cost.DRAW_SECONDS = {cost.DRAW_SECONDS * 1e6:.1f} us)")
    per_token, n_counted = count_seconds()
    print(f"counting a class model: {per_token * 1e6:.2f} us a token over {n_counted:,} tokens "
          f"(cost.COUNT_SECONDS = {cost.COUNT_SECONDS * 1e6:.2f} us)")
    app = create_app({"RESPONSE_CACHE_BYTES": 0, "WORK_BUDGET_SECONDS": 1000.0, "HEAVY_SECONDS": 1000.0})
    warm(app)  # as the server does before it listens: weights read in, labels made, templates compiled
    client = app.test_client()
    models = app.extensions["models"]
    for name in opts.model or [m for m in models if m != "article"]:
        model = models[name]
        print(f"\n{name}: estimate / CPU ms of the request's thread, ratio")
        for path, query in requests(name, model.n_vocab):
            response = client.get(f"{path}?{urlencode(query)}")
            t = timing(response)
            est, cpu = t.get("est", 0.0), t["cpu"]
            over = "!" if est <= BUDGET * 1000 < cpu else " "
            shown = {k: (v if len(v) < 24 else v[:20] + "...") for k, v in query.items() if k != "model"}
            print(f"{over} {response.status_code} {est:8.0f} {cpu:8.0f}  {cpu / est if est else float('nan'):5.2f}  "
                  f"{path} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
