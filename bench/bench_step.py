"""Time one step of the loop on austen-bigram: run_step for a short and a long context, the step with its table
(run_step_table, as a screen computes it), and the forward pass alone.

    .venv/bin/python bench/bench_step.py [--repeats 500] [--model austen-bigram]

Prints the median and 90th percentile of each, in milliseconds. Figures only: nothing is asserted.
A whole Step as the server answers it (the request, the presenters, the templates, gzip) is
bench/bench_render.py's; the server under load is bench/load.py's.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import numpy as np

from webapp.inference import Settings, generate, get_model, load_bundled, run_step, run_step_table

SHORT_PROMPT = "Mr. Darcy said"
LONG_CONTEXT = 200  # tokens: the prompt plus generated ids
WARM_UP = 20


def timings(fn: Callable[[], object], repeats: int) -> list[float]:
    """Call fn WARM_UP times untimed, then `repeats` times; return each call's seconds."""
    for _ in range(WARM_UP):
        fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def summary(seconds: list[float]) -> tuple[float, float]:
    """Median and 90th percentile, in milliseconds."""
    ms = np.array(seconds) * 1e3
    return float(np.median(ms)), float(np.percentile(ms, 90))


def long_generated(model, settings: Settings) -> list[int]:
    """Ids that, after the short prompt, make a context of LONG_CONTEXT tokens."""
    n_prompt = len(model.tokenizer.encode(SHORT_PROMPT))
    return [step.chosen_id for step in generate(model, SHORT_PROMPT, LONG_CONTEXT - n_prompt, settings)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=500, help="timed calls per case (default 500)")
    parser.add_argument("--model", default="austen-bigram")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    models = load_bundled()
    load_ms = (time.perf_counter() - start) * 1e3
    model = get_model(models, args.model)
    settings = Settings(temperature=0.8, seed=7)
    truncated = Settings(temperature=0.8, top_k=40, top_p=0.9, min_p=0.05, seed=7)
    generated = long_generated(model, settings)
    short_ids = [t.id for t in model.tokenizer.encode(SHORT_PROMPT)]
    long_ids = short_ids + generated

    cases = [
        (f"run_step, short context ({len(short_ids)} tokens)", lambda: run_step(model, SHORT_PROMPT, (), settings)),
        (f"run_step, long context ({len(long_ids)} tokens)",
         lambda: run_step(model, SHORT_PROMPT, generated, settings)),
        ("run_step, long context, top-k/top-p/min-p", lambda: run_step(model, SHORT_PROMPT, generated, truncated)),
        ("run_step_table, long context", lambda: run_step_table(model, SHORT_PROMPT, generated, settings)),
        ("model.logits alone, short context", lambda: model.logits(short_ids)),
        ("model.logits alone, long context", lambda: model.logits(long_ids)),
    ]
    print(f"model {model.name}: n_vocab {model.n_vocab:,}, n_ctx {model.n_ctx}; "
          f"loaded {len(models)} bundled model(s) in {load_ms:.1f} ms")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()}; "
          f"{WARM_UP} warm-up calls, then {args.repeats} timed calls each\n")
    width = max(len(name) for name, _ in cases)
    print(f"{'case':<{width}}  {'median ms':>10}  {'p90 ms':>8}")
    print(f"{'-' * width}  {'-' * 10}  {'-' * 8}")
    medians = []
    for name, fn in cases:
        median, p90 = summary(timings(fn, args.repeats))
        medians.append(median)
        print(f"{name:<{width}}  {median:>10.3f}  {p90:>8.3f}")
    print(f"\nabout {1e3 / medians[0]:,.0f} short-context steps per second on one core")


if __name__ == "__main__":
    main()
