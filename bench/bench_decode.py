"""Greedy and beam search (/api/decode) timed against the work budget's estimate of them.

    .venv/bin/python bench/bench_decode.py                          # smollm2-135m if fetched, and the Austen models
    .venv/bin/python bench/bench_decode.py --model smollm2-135m --width 4 --new 20

Each request goes through the Flask test client of an app built as the server builds it (one BLAS thread, no
answer cache, a budget too large to refuse anything). Prints the estimate (Server-Timing est;dur=) beside the
request thread's CPU time (cpu;dur=) and the wall time. Then, in the same run, the parts: beam search with its
beams run together (each copying its parent's keys and values, machinery/kvcache.py), the same search asking
for one text at a time as the stepper does (the baseline), and greedy decoding, each in CPU ms.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # as the server runs
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import urlencode  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp.inference.decoding import beam_search, greedy  # noqa: E402
from webapp.inference.model import LanguageModel  # noqa: E402
from webapp.inference.step import context_ids, encode_prompt  # noqa: E402
from webapp.web import create_app  # noqa: E402

PROMPT = "The capital of France is"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="a model to time (default: each the app loads)")
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--new", type=int, default=20, help="most new tokens")
    opts = parser.parse_args(argv)
    app = create_app({"RESPONSE_CACHE_BYTES": 0, "WORK_BUDGET_SECONDS": 1000.0, "HEAVY_SECONDS": 1000.0})
    client = app.test_client()
    names = opts.model or [m for m in app.extensions["models"] if m != "article"]
    print(f"width {opts.width}, {opts.new} new tokens, prompt {PROMPT!r}: estimate / CPU / wall ms")
    for name in names:
        query = {"model": name, "prompt": PROMPT, "width": opts.width, "max_new_tokens": opts.new}
        response = client.get(f"/api/decode?{urlencode(query)}")
        timing = {k: float(v) for k, v in re.findall(r"(\w+);dur=([\d.]+)", response.headers.get("Server-Timing", ""))}
        best = response.json["beams"][0] if response.status_code == 200 else {}
        print(f"{name:24s} {timing.get('est', 0):9.0f} {timing.get('cpu', 0):9.0f} {timing.get('app', 0):9.0f}"
              f"  best beam {len(best.get('ids', []))} tokens, score {best.get('score', float('nan')):.3f}")
    print("the parts (CPU ms): beams together / one text at a time / greedy")
    for name in names:
        model = app.extensions["models"][name]
        prompt_ids = context_ids(model, encode_prompt(model, PROMPT))
        figures = [cpu_ms(beam_search, model, prompt_ids, opts.width, opts.new, eos_id=model.eos_id),
                   cpu_ms(beam_search, OneAtATime(model), prompt_ids, opts.width, opts.new, eos_id=model.eos_id),
                   cpu_ms(greedy, model, prompt_ids, opts.new, eos_id=model.eos_id)]
        print(f"{name:24s}" + "".join(f" {ms:9.0f}" for ms in figures))
    return 0


class OneAtATime(LanguageModel):
    """A model asked for one text at a time (LanguageModel.logits_many's default), as before beams ran together."""

    def __init__(self, model: LanguageModel):
        self.model, self.name, self.tokenizer, self.n_ctx = model, model.name, model.tokenizer, model.n_ctx
        self.start_id = model.start_id

    def logits(self, ids):
        return self.model.logits(ids)


def cpu_ms(run, *args, **kwargs) -> float:
    start = time.process_time()
    run(*args, **kwargs)
    return (time.process_time() - start) * 1000


if __name__ == "__main__":
    raise SystemExit(main())
