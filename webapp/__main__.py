"""Command line: serve the app, trace the loop in a terminal, or measure perplexity.

    python -m webapp                      # serve on http://127.0.0.1:8000
    python -m webapp trace "Mr. Darcy said" --steps 5 --temperature 0.8 --seed 7
    python -m webapp perplexity --model austen-bigram held-out.txt
"""

from __future__ import annotations

import argparse
import json
import sys

from .inference import InferenceError, Settings, generate, get_model, load_bundled
from .inference.report import step_to_dict


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")



def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m webapp", description="Token by token: step through how a model writes.")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)

    serve = sub.add_parser("serve", help="serve the app (the default command)")
    add_serve_arguments(serve)
    add_serve_arguments(parser)

    trace = sub.add_parser("trace", help="print the steps of the loop for a prompt")
    trace.add_argument("prompt")
    trace.add_argument("--steps", type=int, default=5)
    trace.add_argument("--temperature", type=float, default=1.0)
    trace.add_argument("--top-k", type=int)
    trace.add_argument("--top-p", type=float)
    trace.add_argument("--min-p", type=float)
    trace.add_argument("--seed", type=int, default=0)
    trace.add_argument("--model")
    trace.add_argument("--rows", type=int, default=5, help="rows of the table to print per step")
    trace.add_argument("--json", action="store_true", help="print each step as a line of JSON")

    ppl = sub.add_parser("perplexity", help="per-token perplexity of a model on text files")
    ppl.add_argument("--model")
    ppl.add_argument("files", nargs="+")
    return parser


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="0.0.0.0 to let a class reach it over the LAN")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=8, help="worker threads")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "serve"
    if command == "serve":
        from .serve import serve

        return serve(args.host, args.port, args.threads)
    models = load_bundled()
    try:
        model = get_model(models, args.model or next(iter(default_first(models))))
        if command == "trace":
            return trace(model, args)
        return report_perplexity(model, args.files)
    except (InferenceError, OSError) as e:
        parser.error(str(e))
    return 2


def default_first(models: dict) -> list[str]:
    from .inference.registry import DEFAULT_MODEL

    return [DEFAULT_MODEL] if DEFAULT_MODEL in models else list(models)


def trace(model, args) -> int:
    if args.steps < 0 or args.steps > 500:
        raise InferenceError(f"--steps must be from 0 to 500, not {args.steps}")
    settings = Settings(args.temperature, args.top_k, args.top_p, args.min_p, args.seed)
    for result in generate(model, args.prompt, args.steps, settings):
        if args.json:
            print(json.dumps(step_to_dict(model, result)))
            continue
        print(f"step {result.step}  r = {result.r:.4f}  ->  {result.chosen.token!r} (id {result.chosen.id})")
        for row in result.rows[: args.rows]:
            cut = "" if row.kept else "  cut"
            span = f"[{row.lo:.4f}, {row.hi:.4f})" if row.kept else ""
            print(f"  {row.rank:>3} {row.token!r:>16} id {row.id:<5} logit {row.logit:8.3f}  "
                  f"p {row.prob:.4f}  {span}{cut}")
    return 0


def report_perplexity(model, files: list[str]) -> int:
    from pathlib import Path

    from .inference.perplexity import perplexity

    for name in files:
        ppl, n = perplexity(model, Path(name).read_text(encoding="utf-8"))
        print(f"{model.name}  {name}: perplexity {ppl:.2f} over {n:,} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
