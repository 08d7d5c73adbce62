"""Keys and values of the positions a model computed last, kept for the next call that shares the prefix.

A step reads the ids so far; the step after it reads the same ids and one more. The keys and values
of every position but the new one are the same as before, so they are kept, keyed by the ids they
were computed from, and only the new position is run.

The rule that keeps a step pure (its logits never depend on what was computed before): every
position is always computed the same way, decided by the window alone. With blocks of B positions:
the positions of each complete block [0, B), [B, 2B), ... are run together as one block of B (fast
for a long prompt: the weights are read once for B positions), the positions after the last
complete block one by one. When a later window completes a block that was run one by one, that block
is run again as a block. The numbers of a position then come from the same operations on the same
inputs, bit for bit, whether or not they were cached.

A pool holds a few caches (one per text being stepped, say). A thread takes the cache that
shares the most with its window out of the pool, so no other thread sees it half-written, and gives
it back when done; the least recently used ones beyond the pool's size are dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np


class KVCache:
    """Keys and values of one window's positions: [n_layer, n_head_kv, capacity, head_dim] each."""

    def __init__(self, n_layer: int, n_head_kv: int, head_dim: int, max_positions: int, capacity: int = 64):
        self.max_positions = max_positions
        self.ids: list[int] = []  # the window whose positions are valid here
        self.n_block = 0  # positions [0, n_block) were run as whole blocks, the rest one by one
        self.logits: np.ndarray | None = None  # the logits after exactly the window `logits_ids`, once computed
        self.logits_ids: list[int] | None = None
        shape = (n_layer, n_head_kv, min(capacity, max_positions), head_dim)
        self.k = np.zeros(shape, dtype=np.float32)
        self.v = np.zeros(shape, dtype=np.float32)

    def reserve(self, n: int) -> None:
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
        """How many leading positions of window can be taken from here, by the rule in the module docstring.

        Block 4, cached [5, 9, 2] (run one by one): window [5, 9, 2, 7, 1] -> 0, as its first four
        positions are a complete block; window [5, 9, 2] -> 2, as the last position is always run.
        """
        n_block = len(window) // block * block
        n = min(_common_prefix(self.ids, window), len(window) - 1)
        if n_block != self.n_block:
            n = min(n, n_block, self.n_block)
        return n if n >= n_block else n // block * block


class KVPool:
    """A few caches shared by threads: take the best one for a window, then put it back."""

    def __init__(self, new_cache: Callable[[], KVCache], block: int, size: int = 4):
        self.new_cache = new_cache
        self.block = block
        self.size = size
        self._free: list[KVCache] = []  # least recently used first
        self._lock = threading.Lock()

    def take(self, window: list[int]) -> KVCache:
        """Take out the cache that has this very window's logits, else the one that shares the most with
        window; a new one if none shares anything and the pool has room, else the least recently used."""
        with self._lock:
            if self._free:
                best = max(range(len(self._free)), key=lambda i: (self._free[i].logits_ids == window,
                                                                   self._free[i].reusable(window, self.block), -i))
                cache = self._free[best]
                if cache.logits_ids == window or cache.reusable(window, self.block) or len(self._free) >= self.size:
                    return self._free.pop(best)
        return self.new_cache()

    def logits(self, window: list[int], run: Callable[[list[int], KVCache], np.ndarray]) -> np.ndarray:
        """The logits after window: kept by a cache if one has them, else run(window, cache) on the best
        cache, which then keeps them. A copy each time, so no caller can change the kept ones."""
        cache = self.take(window)
        try:
            if cache.logits_ids != window:
                cache.logits, cache.logits_ids = None, None  # a failed run leaves nothing stale behind
                cache.logits, cache.logits_ids = run(window, cache), window
            return cache.logits.copy()
        finally:
            self.give_back(cache)

    def give_back(self, cache: KVCache) -> None:
        with self._lock:
            self._free.append(cache)
            del self._free[: max(0, len(self._free) - self.size)]


def _common_prefix(a: list[int], b: list[int]) -> int:
    """[5, 9, 2] and [5, 9, 7, 1] -> 2."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    return next(i for i in range(n) if a[i] != b[i])
