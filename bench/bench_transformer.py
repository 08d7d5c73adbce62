"""Time one step of the transformer: NumPy with the KV cache, NumPy without, and PyTorch eager.

    python bench/bench_transformer.py [--threads 1] [--rounds 200]

For each context length (16, 64 and the full context) it prints the median time of the call
that gives the logits for the next token:

- numpy cached: logits(ids) right after logits() of the same ids with another last token, as when
                a class steps on from the same text: the complete blocks of 32 positions come
                from the cache, the positions after them (at most 32) run as one block;
- numpy full:   logits(ids, cached=False), every position of the window recomputed;
- torch eager:  the training script's PyTorch module on the same weights, every position
                recomputed, the head applied at the last position only (skipped without torch).

The three are timed in turns, round after round, so that a busy machine slows them alike;
compare the ratios, which come from this one run. Also printed: the cost of a step once the
window slides (every position moves, so the cached model recomputes the whole window).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LENGTHS = (16, 64)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=ROOT / "webapp" / "models" / "austen-transformer")
    p.add_argument("--threads", type=int, default=1, help="BLAS and PyTorch threads (1 is fastest at this size)")
    p.add_argument("--rounds", type=int, default=200)
    return p.parse_args()


def load_torch_module(model):
    """The training script's GPT with the NumPy model's weights, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    spec = importlib.util.spec_from_file_location("train_transformer", ROOT / "scripts" / "train_transformer.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    gpt = train.GPT(model.n_vocab, model.n_ctx, model.n_embd, model.n_head, model.n_layer, dropout=0.0)
    state = {}
    for name, p in gpt.state_dict().items():
        key = name.removesuffix(".weight").removesuffix(".bias")
        leaf = {"wte": "", "wpe": ""}.get(key)
        if leaf is None:
            leaf = ".b" if name.endswith(".bias") else (".w" if p.dim() == 2 else ".g")
        state[name] = torch.from_numpy(lookup(model.params, key + leaf).copy())
        if leaf == ".w":
            state[name] = state[name].T.contiguous()  # NumPy keeps [n_in, n_out]; nn.Linear wants [n_out, n_in]
    gpt.load_state_dict(state)
    return gpt.eval()


def lookup(params: dict, dotted: str):
    node = params
    for part in dotted.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def torch_step(gpt, ids):
    """Last-position logits from a full PyTorch forward over ids: [n_vocab]."""
    import torch

    with torch.inference_mode():
        idx = torch.tensor([ids])  # [1, n_seq]
        x = gpt.wte(idx) + gpt.wpe(torch.arange(len(ids)))  # [1, n_seq, n_embd]
        for block in gpt.blocks:
            x = block(x)
        return gpt.ln_f(x[0, -1]) @ gpt.wte.weight.T  # [n_embd] @ [n_embd, n_vocab] -> [n_vocab]


def median_ms(samples: list[float]) -> float:
    return sorted(samples)[len(samples) // 2] * 1000


def time_lengths(model, gpt, seq, lengths, rounds: int, n_variants: int) -> dict[int, dict[str, float]]:
    results = {}
    for n in lengths:
        # the same prefix, a different last token each round: the cache keeps the prefix's blocks,
        # and no call can be answered by the logits of the very same ids computed just before
        variants = [[*seq[: n - 1], token] for token in range(10, 10 + n_variants)]
        model.logits(variants[-1])
        calls = {"cached": model.logits, "full": lambda ids: model.logits(ids, cached=False)}
        if gpt is not None:
            calls["torch"] = lambda ids: torch_step(gpt, ids)
        samples = {name: [] for name in calls}
        for i in range(rounds):
            ids = variants[i % len(variants)]
            for name, call in calls.items():
                t = time.perf_counter()
                call(ids)
                samples[name].append(time.perf_counter() - t)
        results[n] = {name: median_ms(s) for name, s in samples.items()}
    return results


def check_agreement(model, gpt, seq) -> str:
    import numpy as np

    ids = seq[: model.n_ctx]
    full = model.logits(ids, cached=False)
    diffs = f"cached vs full {np.abs(model.logits(ids) - full).max():.1e}"
    if gpt is not None:
        diffs += f", torch vs full {np.abs(torch_step(gpt, ids).numpy() - full).max():.1e}"
    return f"max abs difference of the logits at context {len(ids)}: {diffs}"


def sliding_ms(model, seq, rounds: int, n_variants: int) -> float:
    """A step past the window: ids grow by one, every position shifts, the window is recomputed."""
    samples = []
    for i in range(rounds):
        ids = seq[: model.n_ctx + 1 + i % n_variants]
        t = time.perf_counter()
        model.logits(ids)
        samples.append(time.perf_counter() - t)
    return median_ms(samples)


def main() -> None:
    args = parse_args()
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))  # before NumPy loads its BLAS
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from webapp.inference.transformer import POOL_SIZE, TransformerModel

    n_variants = 2 * POOL_SIZE  # more texts than the pool keeps: no call finds its own logits kept

    model = TransformerModel.load(args.model)
    gpt = load_torch_module(model)
    if gpt is not None:
        import torch

        torch.set_num_threads(args.threads)
    seq = [int(i) for i in np.random.default_rng(0).integers(0, model.n_vocab, model.n_ctx + n_variants + 1)]
    print(f"{model.name}: {model.n_layer} layers, {model.n_embd} wide, context {model.n_ctx}; "
          f"{args.threads} thread(s); median of {args.rounds} rounds, ms per next-token call")
    print(check_agreement(model, gpt, seq))
    results = time_lengths(model, gpt, seq, (*LENGTHS, model.n_ctx), args.rounds, n_variants)
    print(f"{'context':>7} {'numpy cached':>13} {'numpy full':>11} {'torch eager':>12} "
          f"{'full/cached':>12} {'torch/cached':>13}")
    for n, r in results.items():
        torch_ms = f"{r['torch']:10.3f}" if "torch" in r else f"{'-':>10}"
        ratio = f"{r['torch'] / r['cached']:12.1f}x" if "torch" in r else f"{'-':>13}"
        print(f"{n:>7} {r['cached']:11.3f}   {r['full']:9.3f}   {torch_ms}   {r['full'] / r['cached']:10.1f}x {ratio}")
    if gpt is None:
        print("torch eager: skipped (PyTorch is not installed; pip install -e '.[train]')")
    print(f"window sliding (context {model.n_ctx} full, one more id): numpy cached model "
          f"{sliding_ms(model, seq, max(n_variants, args.rounds // 10), n_variants):.2f} ms per step")


if __name__ == "__main__":
    main()
