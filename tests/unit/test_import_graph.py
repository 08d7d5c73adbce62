"""The package's import graph, read from the modules' own import statements: no circles, nothing upward.

Every `import` and `from ... import` in every module of `webapp` counts, those inside functions too,
so an import moved into a function to dodge a circle is still seen.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import webapp

PACKAGE_DIR = Path(webapp.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def imported(name: str) -> Iterator[str]:
    """The modules of webapp that module `name` imports, anywhere in its file."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from . import x` imports the module x when there is one, else a name of the package.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        yield from (target for target in targets if target in MODULES and target != name)


GRAPH = {name: sorted(set(imported(name))) for name in MODULES}


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_graph_is_read_from_the_files():
    assert "webapp.inference.sampling" in GRAPH["webapp.inference.step"]  # a relative import is resolved
    assert len(GRAPH) > 50


def test_cycles_finds_a_circle_and_only_a_circle():
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": []}) == []


def test_no_module_imports_one_that_imports_it_back():
    assert cycles(GRAPH) == []


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("webapp.inference", "webapp.web"),
        ("webapp.inference", "webapp.room"),
        ("webapp.inference", "webapp.serve"),
        ("webapp.inference", "webapp.lessons"),
        ("webapp.lessons", "webapp.web"),
        ("webapp.lessons", "webapp.room"),
        ("webapp.room", "webapp.web"),
        ("webapp.room", "webapp.serve"),
        ("webapp.web", "webapp.serve"),
        ("webapp.web", "webapp.__main__"),
    ],
)
def test_nothing_is_imported_upward(lower, higher):
    upward = [
        (name, target)
        for name, targets in GRAPH.items()
        if name == lower or name.startswith(lower + ".")
        for target in targets
        if target == higher or target.startswith(higher + ".")
    ]
    assert upward == []
