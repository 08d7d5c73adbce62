"""Time the NumPy llama forward pass on SmolLM2-135M, and llama.cpp on the same GGUF file where it can run.

    python bench/bench_llama.py                                   # the fetched smollm2-135m, 2 threads
    python bench/bench_llama.py --model-file other.gguf --tokens 64
    python bench/bench_llama.py --llama-python /tmp/llamacpp/bin/python   # llama.cpp from another venv

Prints: load time, the first pass (which reads the weights in), resident memory, tokens/s generating
greedily with the KV cache (from the median token and from the mean: every 8th token also runs a block
that replaces the ones before it, see machinery/kvcache.py, and those tokens' median is given apart),
the time of one app step (run_step_table: forward pass, softmax, sort, ranges, table), the prompt passes (a short
prompt, and a paragraph the cache has never seen), the machine's own bound measured in the same run (one
float32 x @ W over every weight matrix of the model's shapes: the bytes one token must read, at the
memory's speed) and NumPy's share of it, and the same figures from llama.cpp (llama-cpp-python) with the
ratios. llama_cpp is run by --llama-python (an interpreter whose environment has it: it need not have
this project), or imported if it is installed here. Both sides use the same number of threads
(--threads, default 2), set before NumPy loads.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

PROMPT = "Once upon a time, there was a little"
PARAGRAPH = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be "
    "in want of a wife. However little known the feelings or views of such a man may be on his first "
    "entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families."
)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-file", help="a GGUF file (default: the fetched smollm2-135m)")
    parser.add_argument("--tokens", type=int, default=32, help="tokens to generate (default 32)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--llama-python", help="a Python that has llama_cpp, to run llama.cpp with")
    parser.add_argument("--llama-cpp-only", action="store_true", help=argparse.SUPPRESS)  # the child's part
    return parser.parse_args()


def rss_mib() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MiB, from /proc (Linux)."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def default_model_file() -> Path:
    from webapp.inference.machinery.user_models import user_models_dir

    folder = user_models_dir() / "smollm2-135m"
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return folder / config["file"]


def bench_numpy(path: Path, n_tokens: int) -> dict:
    import numpy as np

    from webapp.inference import Settings, run_step_table
    from webapp.inference.machinery import llama_gguf

    start = time.perf_counter()
    model = llama_gguf.from_gguf(path, "bench")
    load_s = time.perf_counter() - start
    rss, peak = rss_mib()
    ready_s = None
    if (path.parent / "float32" / "index.json").is_file():  # a fetched model: its kept float32 weights
        start = time.perf_counter()
        model = llama_gguf.load(path.parent)
        ready_s = time.perf_counter() - start
    bound = bandwidth_bound(model)  # measured before and after the generation: the better of the two
    start = time.perf_counter()
    model.logits([])  # the first pass (the start token alone) reads the weights in; the prompt shares nothing with it
    first_s = time.perf_counter() - start
    ids = model.tokenizer.encode_ids(PROMPT)
    start = time.perf_counter()
    logits = model.logits(ids)
    prompt_s = time.perf_counter() - start
    out: list[int] = []
    times, block_times = [], []  # every token; the tokens whose step also ran a block (machinery/kvcache.py)
    for _ in range(n_tokens):
        out.append(int(np.argmax(logits)))
        new_positions = len(model.context(ids + out)) - model.cached_positions(ids + out)
        start = time.perf_counter()
        logits = model.logits(ids + out)
        times.append(time.perf_counter() - start)
        if new_positions > 1:
            block_times.append(times[-1])
    step_times = []  # app steps, each one token after the last: the cache has all but the new position
    for n in range(1, 6):
        start = time.perf_counter()
        run_step_table(model, PROMPT, out[: n_tokens - 6 + n], Settings(temperature=0.8, top_p=0.9))
        step_times.append(time.perf_counter() - start)
    start = time.perf_counter()  # a paragraph the cache has never seen: whole blocks, then one by one
    run_step_table(model, PARAGRAPH, [], Settings())
    cold_s = time.perf_counter() - start
    after = bandwidth_bound(model)
    bound = min(bound, after, key=lambda b: b["bound_ms"])
    assert logits.dtype == np.float32
    return {
        "load_s": load_s,
        "ready_s": ready_s,
        "first_s": first_s,
        "rss_mib": rss,
        "peak_mib": max(peak, rss_mib()[1]),
        "prompt_tokens": len(ids),
        "prompt_s": prompt_s,
        **speed(times),
        "n_blocks": len(block_times),
        "block_ms": 1000 * median(block_times) if block_times else None,
        "step_ms": 1000 * median(step_times),
        "cold_s": cold_s,
        "cold_tokens": len(model.tokenizer.encode(PARAGRAPH)),
        **bound,
        "pieces": model.tokenizer.decode_pieces(out[:20]),
    }


def bandwidth_bound(model, rounds: int = 7) -> dict:
    """The fastest one token can read the model's weights here: x @ W over matrices of the same shapes, float32.

    Fresh arrays of the forward's layout ([n_in, n_out], contiguous), so that nothing is in the cache;
    the best of a few rounds, as a token's pass is timed at its median on a machine at rest.
    """
    import numpy as np

    shapes = [a.shape for block in model.params["blocks"] for a in block.values() if a.ndim == 2]
    shapes.append(model.params["output"].shape)
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]
    xs = [np.ones((1, shape[0]), dtype=np.float32) for shape in shapes]
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for x, w in zip(xs, weights, strict=True):
            x @ w
        best = min(best, time.perf_counter() - start)
    n_bytes = sum(w.nbytes for w in weights)
    return {
        "bound_ms": 1000 * best,
        "bound_tokens_per_s": 1 / best,
        "gb_per_s": n_bytes / best / 1e9,
        "weights_mb": n_bytes / 1e6,
    }


def median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def speed(times: list[float]) -> dict:
    """Tokens/s from the median time (a busy machine's stalls hit the mean), and from the mean."""
    return {
        "tokens_per_s": 1 / median(times),
        "mean_tokens_per_s": len(times) / sum(times),
        "median_token_ms": 1000 * median(times),
    }


def bench_llama_cpp(path: Path, n_tokens: int, threads: int) -> dict:
    """Greedy generation in llama.cpp, one token per eval as the NumPy loop does."""
    import llama_cpp
    import numpy as np
    from llama_cpp import Llama

    def last_logits() -> np.ndarray:  # llm.scores stays empty unless every position's logits are kept
        return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),))

    start = time.perf_counter()
    llm = Llama(model_path=str(path), n_ctx=2048, n_threads=threads, n_threads_batch=threads, verbose=False)
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    llm.eval([llm.token_eos()])  # the first pass reads the weights in, as NumPy's does
    first_s = time.perf_counter() - start
    llm.reset()
    ids = llm.tokenize(PROMPT.encode(), add_bos=False, special=False)
    start = time.perf_counter()
    llm.eval(ids)
    prompt_s = time.perf_counter() - start
    out: list[int] = []
    times = []
    for _ in range(n_tokens):
        out.append(int(np.argmax(last_logits())))
        start = time.perf_counter()
        llm.eval([out[-1]])
        times.append(time.perf_counter() - start)
    paragraph = llm.tokenize(PARAGRAPH.encode(), add_bos=False, special=False)
    llm.reset()  # a prompt the context has not seen, as NumPy's cold one
    start = time.perf_counter()
    llm.eval(paragraph)
    cold_s = time.perf_counter() - start
    rss, peak = rss_mib()
    return {
        "load_s": load_s,
        "first_s": first_s,
        "rss_mib": rss,
        "peak_mib": peak,
        "prompt_tokens": len(ids),
        "prompt_s": prompt_s,
        **speed(times),
        "cold_tokens": len(paragraph),
        "cold_s": cold_s,
        "pieces": [llm.detokenize([i]).decode("utf-8", errors="replace") for i in out[:20]],
    }


def llama_cpp_result(args: argparse.Namespace, path: Path) -> dict | str:
    """Run llama.cpp in --llama-python if given, else here if llama_cpp imports; why not, if neither can."""
    if args.llama_python:
        return run_llama_python(args, path)
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return "pip install llama-cpp-python, or pass --llama-python"
    return bench_llama_cpp(path, args.tokens, args.threads)


def run_llama_python(args: argparse.Namespace, path: Path) -> dict | str:
    """This script's llama.cpp part in another interpreter: its figures, or one line on why it gave none."""
    command = [
        args.llama_python,
        __file__,
        "--llama-cpp-only",
        "--model-file",
        str(path),
        "--tokens",
        str(args.tokens),
        "--threads",
        str(args.threads),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=thread_env(args.threads), timeout=600)
    except OSError as e:
        return f"--llama-python {args.llama_python}: {e.strerror}"
    except subprocess.TimeoutExpired:
        return f"--llama-python {args.llama_python}: no answer in 600 s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"--llama-python {args.llama_python} failed: {last}"
    return json.loads(done.stdout)


def thread_env(threads: int) -> dict:
    return {**os.environ, **{k: str(threads) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}}


def main() -> None:
    args = parse_args()
    os.environ.update({k: v for k, v in thread_env(args.threads).items() if k.endswith("NUM_THREADS")})
    if args.llama_cpp_only:
        print(json.dumps(bench_llama_cpp(Path(args.model_file), args.tokens, args.threads)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    path = Path(args.model_file) if args.model_file else default_model_file()
    print(f"{path.name}, {args.threads} threads, prompt {PROMPT!r}, {args.tokens} greedy tokens")
    ours = bench_numpy(path, args.tokens)
    ready = "" if ours["ready_s"] is None else f" (kept float32: {ours['ready_s']:.1f} s)"
    print(
        f"NumPy:     load {ours['load_s']:.1f} s{ready}, first pass {1000 * ours['first_s']:.0f} ms, "
        f"RSS {ours['rss_mib']:.0f} MiB (peak {ours['peak_mib']:.0f}), {ours['tokens_per_s']:.1f} tokens/s "
        f"({ours['median_token_ms']:.1f} ms median; mean {ours['mean_tokens_per_s']:.1f}/s), "
        f"app step {ours['step_ms']:.0f} ms, {prompts(ours)}"
    )
    bound = ours["bound_tokens_per_s"]
    print(
        f"bound:     x @ W over the model's {ours['weights_mb']:.0f} MB of weights: {ours['bound_ms']:.1f} ms "
        f"({ours['gb_per_s']:.1f} GB/s), at most {bound:.1f} tokens/s; NumPy generates at "
        f"{100 * ours['tokens_per_s'] / bound:.0f} % of it (mean: {100 * ours['mean_tokens_per_s'] / bound:.0f} %)"
    )
    if ours["block_ms"] is not None:
        print(
            f"           the mean counts {ours['n_blocks']} of the {args.tokens} tokens whose step also ran a block "
            f"(median {ours['block_ms']:.0f} ms, {ours['block_ms'] / ours['median_token_ms']:.1f} tokens' time)"
        )
    print(f"           first 20: {''.join(ours['pieces'])!r}")
    theirs = llama_cpp_result(args, path)
    if isinstance(theirs, str):
        print(f"llama.cpp: not run ({theirs})")
        return
    print(
        f"llama.cpp: load {theirs['load_s']:.1f} s, first pass {1000 * theirs['first_s']:.0f} ms, "
        f"RSS {theirs['rss_mib']:.0f} MiB, "
        f"{theirs['tokens_per_s']:.1f} tokens/s ({theirs['median_token_ms']:.1f} ms median; mean "
        f"{theirs['mean_tokens_per_s']:.1f}/s), {prompts(theirs)}"
    )
    print(f"           first 20: {''.join(theirs['pieces'])!r}")
    print(
        f"ratio:     NumPy has {ours['tokens_per_s'] / theirs['tokens_per_s']:.2f}x llama.cpp's tokens/s, "
        f"{share(ours, theirs, 'prompt')}x its prompt tokens/s, {share(ours, theirs, 'cold')}x on the cold prompt"
    )


def prompts(r: dict) -> str:
    """The prompt passes, in ms and tokens/s."""
    return (
        f"prompt ({r['prompt_tokens']} tokens) {1000 * r['prompt_s']:.0f} ms = "
        f"{r['prompt_tokens'] / r['prompt_s']:.0f} tokens/s, cold {r['cold_tokens']}-token prompt "
        f"{r['cold_s']:.2f} s = {r['cold_tokens'] / r['cold_s']:.0f} tokens/s"
    )


def share(ours: dict, theirs: dict, key: str) -> str:
    """NumPy's tokens/s over llama.cpp's on one prompt pass, e.g. '0.41'."""
    rate = lambda r: r[f"{key}_tokens"] / r[f"{key}_s"]  # noqa: E731
    return f"{rate(ours) / rate(theirs):.2f}"


if __name__ == "__main__":
    main()
