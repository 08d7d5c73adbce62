"""`python -m webapp trace`, run as a student would run it: in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from webapp.__main__ import build_parser
from webapp.inference import Settings, generate_table
from webapp.serve import GUNICORN_THREADS, WAITRESS_THREADS, default_processes

REPO_ROOT = Path(__file__).resolve().parents[2]


def trace(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webapp", "trace", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=60)


def test_trace_json_prints_one_line_per_step_agreeing_with_generate(bigram):
    done = trace("Mr. Darcy said", "--steps", "3", "--seed", "7", "--json", "--model", "austen-bigram")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    steps = [json.loads(line) for line in lines]
    expected = generate_table(bigram, "Mr. Darcy said", 3, Settings(seed=7))
    assert [s["chosen"]["id"] for s in steps] == [e.chosen.id for e in expected]
    assert [s["r"] for s in steps] == [e.r for e in expected]
    assert [s["step"] for s in steps] == [0, 1, 2]
    assert [s["generated"]["ids"] for s in steps] == [list(e.generated) for e in expected]
    assert all(s["model"] == "austen-bigram" and s["seed"] == 7 for s in steps)


def test_trace_prints_a_readable_table(bigram):
    done = trace("Mr. Darcy said", "--steps", "2", "--temperature", "0.8", "--seed", "7", "--top-k", "5",
                 "--model", "austen-bigram")
    assert done.returncode == 0, done.stderr
    expected = generate_table(bigram, "Mr. Darcy said", 2, Settings(temperature=0.8, top_k=5, seed=7))
    headers = [line for line in done.stdout.splitlines() if line.startswith("step ")]
    assert len(headers) == 2
    for header, step in zip(headers, expected, strict=True):
        assert f"r = {step.r:.4f}" in header and f"(id {step.chosen.id})" in header


@pytest.mark.parametrize("args", [
    ["--temperature", "nan"],
    ["--temperature", "-1"],
    ["--top-p", "0"],
    ["--top-k", "0"],
    ["--min-p", "2"],
    ["--seed", "-1"],
    ["--model", "nope"],
    ["--steps", "abc"],
    ["--steps", "-1"],
], ids=" ".join)
def test_bad_arguments_exit_2_with_a_one_line_error(args):
    done = trace("Mr. Darcy said", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    error = done.stderr.strip()
    assert error and "\n" not in error and "Traceback" not in error
    assert "error:" in error


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ("127.0.0.1", 8000, None, None)),
        (["serve"], ("127.0.0.1", 8000, None, None)),
        (["--port", "9000", "serve"], ("127.0.0.1", 9000, None, None)),
        (["serve", "--port", "9001", "--host", "0.0.0.0"], ("0.0.0.0", 9001, None, None)),
        (["--workers", "3", "serve", "--threads", "4"], ("127.0.0.1", 8000, 3, 4)),
    ],
)
def test_server_options_count_before_and_after_serve(argv, expected):
    args = build_parser().parse_args(argv)
    assert (args.host, args.port, args.workers, args.threads) == expected


@pytest.mark.parametrize(
    ("asked", "n_cpus", "gunicorn_ok", "expected"),
    [
        ((None, None), 2, True, (2, GUNICORN_THREADS)),  # one process per core
        ((None, None), 16, True, (16, GUNICORN_THREADS)),
        ((None, None), 4, False, (1, WAITRESS_THREADS)),  # Windows, or gunicorn missing: one waitress process
        ((1, None), 8, True, (1, WAITRESS_THREADS)),
        ((None, 6), 2, True, (2, 6)),
        ((3, 1), 2, True, (3, 1)),
    ],
)
def test_default_processes(asked, n_cpus, gunicorn_ok, expected):
    assert default_processes(*asked, n_cpus, gunicorn_ok) == expected


def test_trace_carries_the_chain_the_penalties_and_the_range_order(bigram):
    args = ("--chain", "penalties,top_k,top_p,min_p,temperature", "--top-k", "40", "--top-p", "0.9",
            "--temperature", "0.7", "--repetition-penalty", "1.3", "--presence-penalty", "0.5",
            "--range-order", "vocabulary")
    done = trace("Mr. Darcy said", "--steps", "2", "--seed", "7", "--json", "--model", "austen-bigram", *args)
    assert done.returncode == 0, done.stderr
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    s = Settings(temperature=0.7, top_k=40, top_p=0.9, seed=7, repetition_penalty=1.3, presence_penalty=0.5,
                 chain=("penalties", "top_k", "top_p", "min_p", "temperature"), range_order="vocabulary")
    expected = generate_table(bigram, "Mr. Darcy said", 2, s)
    assert [x["chosen"]["id"] for x in steps] == [e.chosen.id for e in expected]
    first = steps[0]
    assert first["chain"] == list(s.chain) and first["range_order"] == "vocabulary"
    assert first["repetition_penalty"] == 1.3 and first["presence_penalty"] == 0.5
    assert [st["stage"] for st in first["stages"]] == list(s.chain)
    assert first["stages"][1]["n_kept"] == 40
    assert first["uncertainty"]["entropy_bits"] > 0
    readable = trace("Mr. Darcy said", "--steps", "1", "--seed", "7", "--model", "austen-bigram", *args)
    assert "top_k 40: kept 40 of 5,000" in readable.stdout and "entropy" in readable.stdout
