"""The KV cache behind both NumPy transformers' forward passes: what a window can reuse, and the pool.

A step reads the ids so far; the step after it reads the same ids and one more. The keys and values
of the positions they share are the same, so they are kept, keyed by the ids they were computed
from, and only the new positions are run. The forward pass (transformer.forward, llama.forward)
does not know the policy below: it runs the positions it is given, after `start`, and asks the
cache for the keys and values of the positions before.

The rule that keeps a step pure (its logits never depend on what was computed before): how a
position is computed is decided by the window alone. A model names its block sizes, largest first;
a window runs as whole blocks of the first size, then whole blocks of the next in what is left, and
so on, and what is left after the smallest size (the tail) runs as one batch:

    sizes (32,),          40 ids:  [0, 32) [32, 40)                        the GPT: one block, then a tail of 8
    sizes (32, 16, 8, 1), 59 ids:  [0, 32) [32, 48) [48, 56) [56, 57) [57, 58) [58, 59)    the llama

Whole blocks keep their keys and values; the tail is run again on every call. A cache hands out the
blocks a new window would run the same way (the same ids, the same cut into blocks before them),
so a kept position was computed from the same inputs by the same operations as a cold start computes
it, and the logits are the same bit for bit whatever was cached. A batch reads the weights once for
all its positions: a long prompt costs its blocks, not one pass per id. A small model (the GPT) takes
one size and a tail: a batch of 32 costs about what one position costs, in Python's overhead. A large
one (the llama) ends with blocks of 1: each position of a batch costs real arithmetic, so a Step runs
only the new position, and every 8th Step a block that replaces the ones before it. Such a block costs
what two to four single positions cost (a matrix-matrix product packs the weights, where a vector one
streams them), so blocks are few and halve in size: a prompt of 8 to 15 ids runs as one block of 8
and the rest one by one, and after the blocks of 32 comes at most one block of each smaller size.

A pool holds a few caches (one per text being stepped, say) for the server's threads: a thread
takes out the cache that shares the most with its window, so no other thread sees it half-written,
and gives it back when done; the least recently used beyond the pool's size are dropped. Each cache
also keeps the logits of the last window it ran, so a screen asked again (Back, then Step) costs
nothing.

Beam search (decoding.py) asks for several windows at once, each its parent's window and one token more.
A beam cache keeps the keys and values of one search's beams, a row each: the first level (the prompt)
runs as a step does, on the pool (which may hold it already, and keeps it for greedy decoding or the
stepper), so its logits are the stepper's; at every later level each row starts as a copy of its
parent's row (where the prefix is the same, so are the keys and values), and the new positions of all
the beams run as one batch, a row each, at the same position: one matrix product per weight matrix for
them all (NumPy's product for a few rows costs about what as many single rows cost, so the saving is in
the shared positions not run again). Those positions are computed one at a time rather than in the
stepper's blocks, so a beam's logits agree with the stepper's to float32 rounding, not bit for bit; they
depend only on the search (its prompt and settings), never on what was cached before. A level whose
windows are not each a kept row's and one token more (the window has slid, every position moved) runs
each window from the start, as the stepper would.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

# forward(ids, start, cache, n_logits) -> [n_logits, n_vocab]: a model's forward pass, bound to its weights
Forward = Callable[[list[int], int, "KVCache", int], np.ndarray]


class KVCache:
    """Keys and values of one window's positions: [n_layer, n_head_kv, capacity, head_dim] each."""

    def __init__(self, n_layer: int, n_head_kv: int, head_dim: int, max_positions: int, capacity: int = 64):
        self.max_positions = max_positions
        self.ids: list[int] = []  # the ids of the kept blocks: positions [0, len(ids)) are valid
        self.blocks: list[tuple[int, int]] = []  # the kept blocks, (start, end) each, in order
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

    def reusable(self, window: list[int], sizes: tuple[int, ...]) -> int:
        """How many leading positions of window can be taken from here: the kept blocks that window would run
        the same way, never the last position (it gives the logits).

        Sizes (4,), kept [0, 4) of [5, 9, 2, 7]: window [5, 9, 2, 7, 1] -> 4; [5, 9, 2, 7] -> 0; [5, 9, 3, 7, 1] -> 0.
        Sizes (4, 1), kept [0, 4) [4, 5) [5, 6) of [5, 9, 2, 7, 1, 3]: window [5, 9, 2, 7, 1, 3, 8] -> 6;
        window [5, 9, 2, 7, 1, 3, 8, 6] -> 4, as its positions 4 to 7 make a block of 4.
        """
        shared = min(_common_prefix(self.ids, window), len(window) - 1)
        n = 0
        for kept, planned in zip(self.blocks, plan(len(window), sizes), strict=False):
            if kept != planned or planned[1] > shared:
                break
            n = planned[1]
        return n


def plan(n: int, sizes: tuple[int, ...]) -> list[tuple[int, int]]:
    """How a window of n positions runs, by the rule in the module docstring: (start, end) of each batch.

    >>> plan(70, (32,)), plan(18, (16, 1))
    ([(0, 32), (32, 64), (64, 70)], [(0, 16), (16, 17), (17, 18)])
    """
    batches, lo = [], 0
    for size in sizes:
        n_whole = (n - lo) // size
        batches += [(lo + i * size, lo + (i + 1) * size) for i in range(n_whole)]
        lo += n_whole * size
    return batches + [(lo, n)] if lo < n else batches


def run_in_blocks(window: list[int], cache: KVCache, forward: Forward, sizes: tuple[int, ...]) -> np.ndarray:
    """The logits after window, running only what cache lacks, by the rule in the module docstring: [n_vocab]."""
    start = cache.reusable(window, sizes)
    cache.ids, cache.blocks = window[:start], [b for b in cache.blocks if b[1] <= start]  # what stays valid
    for lo, hi in plan(len(window), sizes):
        if lo < start:
            continue
        logits = forward(window[lo:hi], lo, cache, 1 if hi == len(window) else 0)  # [1 or 0, n_vocab]
        if hi - lo in sizes:  # a whole block: kept
            cache.ids = window[:hi]
            cache.blocks.append((lo, hi))
    return logits[-1]


class KVPool:
    """A few caches shared by threads: take the best one for a window, run, then put it back."""

    def __init__(self, new_cache: Callable[[], KVCache], sizes: tuple[int, ...], size: int):
        self.new_cache = new_cache
        self.sizes = sizes  # the block sizes, largest first
        self.size = size  # at least the server's threads per process, so that each can keep its text
        self._free: list[KVCache] = []  # least recently used first
        self._lock = threading.Lock()

    def take(self, window: list[int]) -> KVCache:
        """Take out the cache that has this very window's logits, else the one that shares the most with
        window; a new one if none shares anything and the pool has room, else the least recently used."""
        with self._lock:
            if not self._free:
                return self.new_cache()
            scores = [(c.logits_ids == window, c.reusable(window, self.sizes), -i) for i, c in enumerate(self._free)]
            best = max(range(len(scores)), key=scores.__getitem__)
            has_logits, shared, _ = scores[best]
            if has_logits or shared or len(self._free) >= self.size:
                return self._free.pop(best)
        return self.new_cache()

    def cached(self, window: list[int]) -> int:
        """How many leading positions of window the pool holds now: all of them if its logits are kept."""
        with self._lock:
            if any(c.logits_ids == window for c in self._free):
                return len(window)
            return max((c.reusable(window, self.sizes) for c in self._free), default=0)

    def give_back(self, cache: KVCache) -> None:
        with self._lock:
            self._free.append(cache)
            del self._free[: max(0, len(self._free) - self.size)]

    def logits(self, window: list[int], forward: Forward, then: Callable[[KVCache], None] | None = None) -> np.ndarray:
        """The logits after window: kept by a cache if one has them, else run in blocks on the best cache,
        which then keeps them. A copy each time, so no caller can change the kept ones: [n_vocab].
        `then` is shown the cache while it holds the window's keys and values (a beam cache copies them)."""
        cache = self.take(window)
        try:
            if cache.logits_ids != window:
                cache.logits, cache.logits_ids = None, None  # a failed run leaves nothing stale behind
                cache.logits, cache.logits_ids = run_in_blocks(window, cache, forward, self.sizes), window
            if then is not None:
                then(cache)
            return cache.logits.copy()
        finally:
            self.give_back(cache)


class BeamCache:
    """Keys and values of the beams of one search, a row each: [n_layer, n_beams, n_head_kv, capacity, head_dim].

    windows[b] is the window row b holds: its positions [0, len(windows[b])) are valid.
    """

    def __init__(self, pool: KVPool):
        self.pool = pool  # a level run from the start runs each window as a step would, on the pool's caches
        self.windows: list[list[int]] = []
        self.k: np.ndarray | None = None
        self.v: np.ndarray | None = None

    def extend(self, layer: int, start: int, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Store one layer's keys and values of every beam's new positions start.., and return those of every
        position so far: k, v [n_beams, n_head_kv, n, head_dim] -> [n_beams, n_head_kv, start + n, head_dim]."""
        end = start + k.shape[2]
        self.k[layer, :, :, start:end] = k
        self.v[layer, :, :, start:end] = v
        return self.k[layer, :, :, :end], self.v[layer, :, :, :end]

    def parents(self, windows: list[list[int]]) -> list[int] | None:
        """The row each window follows (its window is the window less its last token), if every window has one
        and they are all as long; else None."""
        rows = {tuple(w): b for b, w in enumerate(self.windows)}
        found = [rows.get(tuple(w[:-1])) for w in windows]
        if None in found or len({len(w) for w in windows}) != 1:
            return None
        return found

    def follow(self, parents: list[int], n: int) -> None:
        """Make row b a copy of row parents[b], with room for n positions."""
        k, v = self.k[:, parents], self.v[:, parents]  # [n_layer, n_beams, n_head_kv, capacity, head_dim]: copies
        if k.shape[3] < n:
            pad = [(0, 0)] * 3 + [(0, max(n, 2 * k.shape[3]) - k.shape[3]), (0, 0)]
            k, v = np.pad(k, pad), np.pad(v, pad)
        self.k, self.v = k, v

    def start(self, windows: list[list[int]], forward: Forward) -> np.ndarray:
        """Run each window as a step would (the pool may hold it already), and keep their keys and values, a row
        each, if they are as long; else keep none. The logits after each: [n_windows, n_vocab]."""
        rows: list[tuple[np.ndarray, np.ndarray]] = []

        def copy(cache: KVCache) -> None:
            n = len(cache.logits_ids)
            rows.append((cache.k[:, :, :n].copy(), cache.v[:, :, :n].copy()))  # [n_layer, n_head_kv, n, hd] each

        logits = np.stack([self.pool.logits(w, forward, then=copy) for w in windows])
        self.windows, self.k, self.v = [], None, None
        if len({len(w) for w in windows}) == 1:
            self.k = np.stack([k for k, _v in rows], axis=1)  # [n_layer, n_beams, n_head_kv, n, hd]
            self.v = np.stack([v for _k, v in rows], axis=1)
            self.windows = [list(w) for w in windows]
        return logits


def beam_logits(windows: list[list[int]], cache: BeamCache, forward: Forward) -> np.ndarray:
    """The logits after each window, by the rule in the module docstring: [n_windows, n_vocab]."""
    parents = cache.parents(windows)
    if parents is None:
        return cache.start(windows, forward)
    n = len(windows[0])
    cache.follow(parents, n)
    last = np.array([[w[-1]] for w in windows])  # [n_beams, 1]: each beam's new token, at position n - 1
    logits = forward(last, n - 1, cache, 1)[:, -1]  # [n_beams, n_vocab]
    cache.windows = [list(w) for w in windows]
    return logits


class BeamsTogether:
    """What a model with a KV pool (`_pool`) and a forward pass bound to its weights (`_forward`) adds to a
    LanguageModel: beam search's texts run together on a beam cache."""

    def logits_many(self, texts: Sequence[Sequence[int]], cache: BeamCache | None = None) -> np.ndarray:
        """Logits for the token after each text: float32 [n_texts, n_vocab]; with a beam cache, texts that each
        follow one the cache kept run together (beam_logits)."""
        if cache is None:
            return super().logits_many(texts)
        return beam_logits([self.context(ids) for ids in texts], cache, self._forward)

    def beam_cache(self) -> BeamCache:
        return BeamCache(self._pool)


def _common_prefix(a: list[int], b: list[int]) -> int:
    """How many ids two lists share at their start.

    >>> _common_prefix([5, 9, 2], [5, 9, 7, 1])
    2
    """
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    return next(i for i in range(n) if a[i] != b[i])
