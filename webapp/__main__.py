"""Command line: serve the app, trace the loop in a terminal, or measure perplexity.

    token-by-token                        # serve on http://127.0.0.1:8000 (also: python -m webapp)
    token-by-token --host 0.0.0.0         # serve the room's network: students' phones can open it
    token-by-token trace "Mr. Darcy said" --steps 5 --temperature 0.8 --seed 7
    token-by-token perplexity --model austen-bigram held-out.txt
    token-by-token fetch-model smollm2-135m    # a pretrained model, into the user's model folder
    token-by-token trace "The capital of France is" --model-file any-llama.gguf   # also on serve, perplexity

`token-by-token` is the console script pip installs with the package: it works from any folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# One BLAS thread per forward pass, unless the environment says otherwise, set before NumPy loads:
# the server runs requests side by side on the cores (NumPy lets go of the GIL in BLAS), while BLAS
# threads that spin waiting for a busy core made a SmolLM2 step 10x slower (bench/bench_llama.py).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from .inference import InferenceError, Settings, generate_table, get_model  # noqa: E402
from .inference.chain import DEFAULT_CHAIN  # noqa: E402
from .inference.derived.export import stages_to_list, step_to_dict, uncertainty_to_dict  # noqa: E402
from .serve import GUNICORN_THREADS, WAITRESS_THREADS  # noqa: E402


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")



def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="token-by-token", description="Token by token: step through how a model writes.")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)

    serve = sub.add_parser("serve", help="serve the app (the default command)")
    add_serve_arguments(serve, defaults=False)  # `--port 9000 serve` keeps the port given before "serve"
    add_serve_arguments(parser)

    trace = sub.add_parser("trace", help="print the steps of the loop for a prompt")
    trace.add_argument("prompt")
    trace.add_argument("--steps", type=int, default=5)
    trace.add_argument("--temperature", type=float, default=1.0)
    trace.add_argument("--top-k", type=int)
    trace.add_argument("--top-p", type=float)
    trace.add_argument("--min-p", type=float)
    trace.add_argument("--seed", type=int, default=0)
    trace.add_argument("--chain", help="the stages in order, e.g. penalties,top_k,top_p,min_p,temperature "
                                       "(default: penalties,temperature,top_k,top_p,min_p)")
    trace.add_argument("--repetition-penalty", type=float)
    trace.add_argument("--presence-penalty", type=float)
    trace.add_argument("--frequency-penalty", type=float)
    trace.add_argument("--range-order", choices=("probability", "vocabulary"), default="probability")
    trace.add_argument("--model")
    trace.add_argument("--rows", type=int, default=5, help="rows of the table to print per step")
    trace.add_argument("--json", action="store_true", help="print each step as a line of JSON")

    ppl = sub.add_parser("perplexity", help="per-token perplexity of a model on text files")
    ppl.add_argument("--model")
    ppl.add_argument("files", nargs="+")

    fetch = sub.add_parser("fetch-model", help="download a pretrained model into the user's model folder")
    fetch.add_argument("name", help="smollm2-135m")
    fetch.add_argument("--force", action="store_true", help="download again even if the file is there")
    for p in (parser, serve, trace, ppl):
        p.add_argument("--model-file", type=existing_file, metavar="PATH",
                       help="also load this llama-architecture GGUF file (as $TOKEN_BY_TOKEN_MODEL_FILE does)")
    return parser


def existing_file(text: str) -> str:
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no file at {text}")
    return os.path.abspath(text)


def add_serve_arguments(parser: argparse.ArgumentParser, defaults: bool = True) -> None:
    """The server's options; without defaults, an option left out keeps the value the parent parser read."""

    def default(value):
        return value if defaults else argparse.SUPPRESS

    parser.add_argument("--host", default=default("127.0.0.1"), help="0.0.0.0 to let a class reach it over the LAN")
    parser.add_argument("--port", type=int, default=default(8000))
    parser.add_argument("--workers", type=positive_int, default=default(None),
                        help="processes; more than 1 uses gunicorn (Linux, macOS). Default: one per core where "
                             "gunicorn runs, else 1 (waitress)")
    parser.add_argument("--threads", type=positive_int, default=default(None),
                        help=f"threads per process (default {GUNICORN_THREADS} with several processes, "
                             f"{WAITRESS_THREADS} with one)")
    parser.add_argument("--trusted-proxy", metavar="ADDRESS", default=default(None),
                        help="the reverse proxy's address (e.g. 127.0.0.1) whose X-Forwarded-Proto to believe, "
                             "so share links say https")
    parser.add_argument("--store", type=store_url, metavar="URL", default=default(None),
                        help="where class rooms live: sqlite:///PATH (default: rooms.sqlite3 in the user's data "
                             "folder) or redis://HOST:PORT/DB for several machines behind a load balancer")
    parser.add_argument("--frame-ancestors", type=frame_ancestors, metavar="SOURCES", default=default(None),
                        help="who may show the app in a frame: CSP sources, "
                             "e.g. \"'self' https://*.school.example\" (default 'self')")
    parser.add_argument("--allowed-hosts", type=allowed_hosts, metavar="HOSTS", default=default(()),
                        help="more addresses the class's pages may change a room from, besides 127.0.0.1, "
                             "localhost, --host and the LAN address (each with --port): e.g. "
                             "\"teacher-laptop.local:8000,class.school.example\" (a host alone: any port)")


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def store_url(text: str) -> str:
    from .room.backends import check_store_url

    try:
        return check_store_url(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def allowed_hosts(text: str) -> tuple[str, ...]:
    from .web.serving.hosts import parse_hosts

    try:
        return parse_hosts(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def frame_ancestors(text: str) -> str:
    from .web.serving.security import check_frame_ancestors

    try:
        return check_frame_ancestors(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "serve"
    if command == "fetch-model":
        return fetch_model(parser, args)
    if getattr(args, "model_file", None):  # the app's model loading reads it there, in every process
        from .inference.machinery.user_models import MODEL_FILE_ENV

        os.environ[MODEL_FILE_ENV] = args.model_file
    if command == "serve":
        if getattr(args, "store", None):  # every process, forked or not, opens the store it names
            from .room.backends import STORE_ENV

            os.environ[STORE_ENV] = args.store
        from .serve import default_processes, gunicorn_available, serve

        if args.workers and args.workers > 1 and not gunicorn_available():
            parser.error("--workers above 1 needs gunicorn (pip install gunicorn; not on Windows): "
                         "use --threads with one worker instead")
        workers, threads = default_processes(args.workers, args.threads, os.cpu_count() or 1, gunicorn_available())
        return serve(args.host, args.port, threads, workers, args.frame_ancestors, args.trusted_proxy,
                     args.allowed_hosts)
    try:
        from .inference.machinery.registry import load_bundled
        from .inference.machinery.user_models import load_available, model_file_name

        chosen = args.model or (model_file_name(args.model_file) if args.model_file else None)
        models = load_bundled()
        if chosen and chosen not in models:  # a fetched model or a file: load those only when asked for
            models = load_available()
        model = get_model(models, chosen or next(iter(default_first(models))))
        if command == "trace":
            return trace(model, args)
        return report_perplexity(model, args.files)
    except (InferenceError, OSError) as e:
        parser.error(str(e))
    return 2


def fetch_model(parser: argparse.ArgumentParser, args) -> int:
    from .fetch import FetchError, fetch_model

    try:
        fetch_model(args.name, force=args.force)
    except (FetchError, OSError) as e:
        parser.exit(1, f"{parser.prog} fetch-model: {e}\n")
    return 0


def default_first(models: dict) -> list[str]:
    from .inference.machinery.registry import DEFAULT_MODEL

    return [DEFAULT_MODEL] if DEFAULT_MODEL in models else list(models)


def trace(model, args) -> int:
    if args.steps < 0 or args.steps > 500:
        raise InferenceError(f"--steps must be from 0 to 500, not {args.steps}")
    chain = DEFAULT_CHAIN if args.chain is None else tuple(n.strip() for n in args.chain.split(",") if n.strip())
    settings = Settings(temperature=args.temperature, top_k=args.top_k, top_p=args.top_p, min_p=args.min_p,
                        seed=args.seed, chain=chain, repetition_penalty=args.repetition_penalty,
                        presence_penalty=args.presence_penalty, frequency_penalty=args.frequency_penalty,
                        range_order=args.range_order)
    for result in generate_table(model, args.prompt, args.steps, settings):
        if args.json:
            print(json.dumps(step_to_dict(model, result)))
            continue
        u = uncertainty_to_dict(result)
        surprise = "cut" if u["surprise_bits"] is None else f"{u['surprise_bits']:.2f} bits"
        print(f"step {result.step}  r = {result.r:.4f}  ->  {result.chosen.token!r} (id {result.chosen.id})  "
              f"entropy {u['entropy_bits']:.2f} bits, surprise {surprise}")
        print("  chain: " + "; ".join(stage_line(d) for d in stages_to_list(result)))
        for row in result.rows[: args.rows]:
            cut = "" if row.kept else "  cut"
            span = f"[{row.lo:.4f}, {row.hi:.4f})" if row.kept else ""
            print(f"  {row.rank:>3} {row.token!r:>16} id {row.id:<5} logit {row.logit:8.3f}  "
                  f"p {row.prob:.4f}  {span}{cut}")
    return 0


def stage_line(d: dict) -> str:
    """'top_p 0.9: kept 37 of 5000 (90.2 %)'; 'temperature 0.8'; 'min_p off'."""
    if not d["on"]:
        return f"{d['stage']} off"
    setting = d["setting"] if not isinstance(d["setting"], list) else "/".join("-" if v is None else f"{v:g}"
                                                                              for v in d["setting"])
    if d["stage"] == "penalties":
        return f"penalties {setting}: {d['n_changed']} logits changed"
    if d["stage"] == "temperature":
        return f"temperature {setting:g}"
    return f"{d['stage']} {setting:g}: kept {d['n_kept']:,} of {d['n_in']:,} ({100 * d['mass_kept']:.1f} %)"


def report_perplexity(model, files: list[str]) -> int:
    from pathlib import Path

    from .inference.derived.perplexity import perplexity

    for name in files:
        ppl, n = perplexity(model, Path(name).read_text(encoding="utf-8"))
        print(f"{model.name}  {name}: perplexity {ppl:.2f} over {n:,} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
