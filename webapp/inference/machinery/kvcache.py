"""The KV cache behind both NumPy transformers' forward passes: what a window can reuse, and the pool.

A step reads the ids so far; the step after it reads the same ids and one more. The keys and values
of the positions they share are the same, so they are kept, keyed by the ids they were computed
from, and only the new positions are run. The forward pass (transformer.forward, llama.forward)
does not know the policy below: it runs the positions it is given, after `start`, and asks the
cache for the keys and values of the positions before.

The rule that keeps a step pure (its logits never depend on what was computed before): how a
position is computed is decided by the window alone. The window runs in blocks of B positions:

    complete blocks [0, B), [B, 2B), ...   each run as one batch; their keys and values are kept
    the tail, after the last complete block  run as one batch on every call, never kept

(a window of 2B + 3 ids: two kept blocks, then a tail of 3; a window of exactly 2B: the second
block gives the logits and is kept). A kept block was computed from the same ids, in a batch of the
same size, after the same kept blocks, as a cold start computes it, so the logits are the same bit
for bit whatever was cached. A batch reads the weights once for all its positions: a long prompt
costs its blocks, not one pass per id, and a Step costs one tail (1 to B positions).

A pool holds a few caches (one per text being stepped, say) for the server's threads: a thread
takes out the cache that shares the most with its window, so no other thread sees it half-written,
and gives it back when done; the least recently used beyond the pool's size are dropped. Each cache
also keeps the logits of the last window it ran, so a screen asked again (Back, then Step) costs
nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

# forward(ids, start, cache, n_logits) -> [n_logits, n_vocab]: a model's forward pass, bound to its weights
Forward = Callable[[list[int], int, "KVCache", int], np.ndarray]


class KVCache:
    """Keys and values of one window's positions: [n_layer, n_head_kv, capacity, head_dim] each."""

    def __init__(self, n_layer: int, n_head_kv: int, head_dim: int, max_positions: int, capacity: int = 64):
        self.max_positions = max_positions
        self.ids: list[int] = []  # the ids of the kept blocks: positions [0, len(ids)) are valid
        self.logits: np.ndarray | None = None  # the logits after exactly the window `logits_ids`
        self.logits_ids: list[int] | None = None
        shape = (n_layer, n_head_kv, min(capacity, max_positions), head_dim)
        self.k = np.zeros(shape, dtype=np.float32)
        self.v = np.zeros(shape, dtype=np.float32)

    def extend(self, layer: int, start: int, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Store one layer's keys and values of positions start.., and return those of every position so far.

        k, v [n_head_kv, n, head_dim] -> keys, values [n_head_kv, start + n, head_dim]
        """
        end = start + k.shape[1]
        self._reserve(end)
        self.k[layer, :, start:end] = k
        self.v[layer, :, start:end] = v
        return self.k[layer, :, :end], self.v[layer, :, :end]

    def _reserve(self, n: int) -> None:
        """Make room for n positions, doubling the capacity so that growing costs little over a text."""
        capacity = self.k.shape[2]
        if n <= capacity:
            return
        capacity = min(max(n, 2 * capacity), self.max_positions)
        for name in ("k", "v"):
            old = getattr(self, name)
            new = np.zeros((*old.shape[:2], capacity, old.shape[3]), dtype=np.float32)
            new[:, :, : old.shape[2]] = old
            setattr(self, name, new)

    def reusable(self, window: list[int], block: int) -> int:
        """How many leading positions of window can be taken from here: whole kept blocks it shares, never
        the last position (it gives the logits).

        Block 4, kept [5, 9, 2, 7]: window [5, 9, 2, 7, 1] -> 4; [5, 9, 2, 7] -> 0; [5, 9, 3, 7, 1] -> 0.
        """
        return min(_common_prefix(self.ids, window), len(window) - 1) // block * block


def run_in_blocks(window: list[int], cache: KVCache, forward: Forward, block: int) -> np.ndarray:
    """The logits after window, running only what cache lacks, by the rule in the module docstring: [n_vocab]."""
    start = cache.reusable(window, block)
    cache.ids = window[:start]  # only these stay valid while the rest is written
    for lo in range(start, len(window), block):
        hi = min(lo + block, len(window))
        logits = forward(window[lo:hi], lo, cache, 1 if hi == len(window) else 0)  # [1 or 0, n_vocab]
        if hi - lo == block:  # a complete block: kept
            cache.ids = window[:hi]
    return logits[-1]


class KVPool:
    """A few caches shared by threads: take the best one for a window, run, then put it back."""

    def __init__(self, new_cache: Callable[[], KVCache], block: int, size: int):
        self.new_cache = new_cache
        self.block = block
        self.size = size  # at least the server's threads per process, so that each can keep its text
        self._free: list[KVCache] = []  # least recently used first
        self._lock = threading.Lock()

    def take(self, window: list[int]) -> KVCache:
        """Take out the cache that has this very window's logits, else the one that shares the most with
        window; a new one if none shares anything and the pool has room, else the least recently used."""
        with self._lock:
            if not self._free:
                return self.new_cache()
            scores = [(c.logits_ids == window, c.reusable(window, self.block), -i) for i, c in enumerate(self._free)]
            best = max(range(len(scores)), key=scores.__getitem__)
            has_logits, shared, _ = scores[best]
            if has_logits or shared or len(self._free) >= self.size:
                return self._free.pop(best)
        return self.new_cache()

    def give_back(self, cache: KVCache) -> None:
        with self._lock:
            self._free.append(cache)
            del self._free[: max(0, len(self._free) - self.size)]

    def logits(self, window: list[int], forward: Forward) -> np.ndarray:
        """The logits after window: kept by a cache if one has them, else run in blocks on the best cache,
        which then keeps them. A copy each time, so no caller can change the kept ones: [n_vocab]."""
        cache = self.take(window)
        try:
            if cache.logits_ids != window:
                cache.logits, cache.logits_ids = None, None  # a failed run leaves nothing stale behind
                cache.logits, cache.logits_ids = run_in_blocks(window, cache, forward, self.block), window
            return cache.logits.copy()
        finally:
            self.give_back(cache)


def _common_prefix(a: list[int], b: list[int]) -> int:
    """[5, 9, 2] and [5, 9, 7, 1] -> 2."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    return next(i for i in range(n) if a[i] != b[i])
