"""The worked examples in the core's docstrings, run by doctest: every module of webapp.inference."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import webapp.inference

MODULES = sorted(m.name for m in pkgutil.walk_packages(webapp.inference.__path__, "webapp.inference."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def doctests(name: str) -> list[doctest.DocTest]:
    """The docstrings of module `name` that hold examples."""
    return [test for test in doctest.DocTestFinder().find(importlib.import_module(name)) if test.examples]


def failures(tests: list[doctest.DocTest]) -> str:
    """Run the examples; return doctest's report of those whose output differs, '' if none does."""
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    return "".join(report)


@pytest.mark.parametrize("name", MODULES)
def test_the_worked_examples_are_true(name):
    report = failures(doctests(name))
    assert not report, report


def test_the_core_has_worked_examples_to_run():
    n = sum(len(test.examples) for name in MODULES for test in doctests(name))
    assert n >= 40, f"only {n} examples found: is the walk over webapp.inference finding its modules?"


def test_a_wrong_example_fails():
    wrong = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    assert "Expected:\n    3\nGot:\n    2" in failures([wrong])
