"""Time greedy and beam search as /api/decode runs them on SmolLM2-135M, beside the work budget's estimate.

    python bench/bench_decode.py                       # width 4, 20 new tokens
    python bench/bench_decode.py --width 8 --tokens 10

Prints, for greedy and beam search from a fresh model (no cached keys and values): CPU seconds, wall
seconds, forward passes and the positions they ran; then cost.decoding_work's estimate of the same request
(positions, passes, seconds), which the work budget charges before the search runs.
"""

from __future__ import annotations

import argparse
import time

from webapp.inference import decoding
from webapp.inference.machinery import cost
from webapp.inference.machinery.registry import load_model
from webapp.inference.machinery.user_models import user_models_dir
from webapp.inference.step import context_ids, encode_prompt

PROMPT = "Once upon a time, there was a little"


def counted(model) -> dict:
    """Count the model's forward passes and the positions they run (each KV-cache block is one pass)."""
    counts = {"passes": 0, "positions": 0}
    forward = model._forward

    def run(ids, start, cache, n_logits):
        counts["passes"] += 1
        counts["positions"] += len(ids)
        return forward(ids, start, cache, n_logits)

    model._forward = run
    return counts


def timed(label: str, counts: dict, search) -> None:
    counts.update(passes=0, positions=0)
    cpu, wall = time.process_time(), time.perf_counter()
    search()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{label:<12} {cpu:6.2f} s CPU  {wall:6.2f} s wall  {counts['passes']:5d} passes  "
          f"{counts['positions']:6d} positions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=20)
    parser.add_argument("--prompt", default=PROMPT)
    args = parser.parse_args()
    model = load_model(user_models_dir() / "smollm2-135m")
    prompt_ids = context_ids(model, encode_prompt(model, args.prompt))
    eos_id = getattr(model, "eos_id", None)
    counts = counted(model)
    print(f"smollm2-135m, prompt of {len(prompt_ids)} tokens, width {args.width}, {args.tokens} new tokens")
    timed("greedy", counts, lambda: decoding.greedy(model, prompt_ids, args.tokens, eos_id))
    timed("beam search", counts, lambda: decoding.beam_search(model, prompt_ids, args.width, args.tokens, 1.0, eos_id))
    work = cost.decoding_work(model, len(prompt_ids), args.width, args.tokens)
    print(f"estimate     {work.seconds:6.2f} s        {work.passes:5d} passes  {work.positions:6d} positions"
          "  (cost.decoding_work: greedy and beam search together)")


if __name__ == "__main__":
    main()
