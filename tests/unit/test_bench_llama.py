"""bench/bench_llama.py's llama.cpp side: an interpreter that cannot run it gives one line, not a traceback."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_llama.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_llama", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def args(llama_python: str) -> argparse.Namespace:
    return argparse.Namespace(llama_python=llama_python, tokens=2, threads=1)


def test_a_missing_interpreter_is_named_in_one_line(bench, tmp_path):
    missing = tmp_path / "no-venv" / "bin" / "python"
    why = bench.llama_cpp_result(args(str(missing)), tmp_path / "model.gguf")
    assert isinstance(why, str)
    assert str(missing) in why and "No such file" in why and "\n" not in why


def test_an_interpreter_without_llama_cpp_says_why_in_one_line(bench, tmp_path):
    # this environment has no llama_cpp: the child fails on its import, and its last line is what is said
    if importlib.util.find_spec("llama_cpp") is not None:
        pytest.skip("llama_cpp is installed here")
    why = bench.llama_cpp_result(args(sys.executable), tmp_path / "model.gguf")
    assert isinstance(why, str)
    assert "failed" in why and "llama_cpp" in why and "\n" not in why
