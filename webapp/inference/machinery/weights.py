"""Weights stored under flat dotted names, nested back into the dicts and lists a forward pass reads."""

from __future__ import annotations

import numpy as np


def unflatten(flat: dict[str, np.ndarray]) -> dict:
    """Nest dotted names, numbered parts as lists.

    >>> unflatten({"blocks.0.ln_1.g": 1, "blocks.1.ln_1.g": 2, "wte": 3})
    {'blocks': [{'ln_1': {'g': 1}}, {'ln_1': {'g': 2}}], 'wte': 3}
    """
    tree: dict = {}
    for key, value in flat.items():
        node = tree
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return _lists(tree)


def _lists(node):
    if not isinstance(node, dict):
        return node
    if node and all(k.isdigit() for k in node):
        return [_lists(node[str(i)]) for i in range(len(node))]
    return {k: _lists(v) for k, v in node.items()}
