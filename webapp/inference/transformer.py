"""A small GPT-style transformer, run in NumPy (float32) with a KV cache.

The forward pass follows picoGPT (jaymody): token and position embeddings (wte, wpe), blocks of
pre-LayerNorm causal multi-head attention (mha) and a 4x GELU MLP (ffn), a final LayerNorm (ln_f),
and logits from the token embedding again (the head is tied to wte). Trained by
scripts/train_transformer.py; GELU is the tanh approximation, as in training.

Two ways to the same numbers:

- `forward(ids)` computes every position at once, with no cache: the reference.
- `logits(ids)` reuses the keys and values of positions computed before (kvcache.py), so that
  appending a token costs one small batch of positions rather than the whole window. The
  positions run in blocks of BLOCK: each complete block [0, B), [B, 2B), ... as one batch whose
  keys and values are kept, and the positions after the last complete block (the tail) as one
  batch, run again on every call. The operations that compute a position depend only on the
  window, never on what was cached, so the logits are exactly the same, bit for bit, in any
  order of calls (Back then Step gives the same numbers). A pool of caches is shared by the
  server's threads; a thread takes one out while it computes, so no other sees it half-written.

The window: only the last n_ctx ids are read. Once there are more, the window slides: every token
moves to a new position, its keys and values change with it, and the whole window is recomputed
(n_ctx positions' work, not one). An empty context reads as a single `<p>`, as texts start a
paragraph in training (the bigram does the same).

Left out on purpose: batches of prompts, dropout, and anything else only training needs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .machinery.kvcache import KVCache, KVPool
from .model import LanguageModel
from .tokenizer import WordTokenizer

BLOCK = 32  # positions of a complete block, run and kept together (see the module docstring)
POOL_SIZE = 32  # caches kept: texts being stepped at the same time
_GELU_C = math.sqrt(2 / math.pi)  # a Python float: a NumPy float64 scalar would promote float32 arrays


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (PyTorch's approximate="tanh"). x * x * x, as x**3 is 80x slower."""
    return 0.5 * x * (1.0 + np.tanh(_GELU_C * (x + 0.044715 * (x * x * x))))  # same shape as x


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # same shape as x; the max first, so exp never overflows
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    n = x.shape[-1]  # sums over n rather than mean() and var(), which cost more in Python than in maths
    centred = x - x.sum(axis=-1, keepdims=True) / n  # [..., n_embd]
    variance = (centred * centred).sum(axis=-1, keepdims=True) / n  # [..., 1]
    return g * centred / np.sqrt(variance + eps) + b  # [..., n_embd]


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return x @ w + b  # [..., n_in] @ [n_in, n_out] -> [..., n_out]


def ffn(x: np.ndarray, c_fc: dict, c_proj: dict) -> np.ndarray:
    return linear(gelu(linear(x, **c_fc)), **c_proj)  # [..., n_embd] -> [..., 4 n_embd] -> [..., n_embd]


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    scale = 1.0 / math.sqrt(q.shape[-1])  # a Python float, so float32 stays float32
    scores = (q * scale) @ k.swapaxes(-1, -2)  # [..., n_q, hd] @ [..., hd, n_k] -> [..., n_q, n_k]
    if mask is not None:
        scores += mask  # [n_q, n_k]: -inf where a query would see the future
    return softmax(scores) @ v  # [..., n_q, n_k] @ [..., n_k, hd] -> [..., n_q, hd]


def mha(x: np.ndarray, c_attn: dict, c_proj: dict, n_head: int, last_only: bool = False) -> np.ndarray:
    """Causal multi-head self-attention: [..., n_seq, n_embd] -> [..., n_seq, n_embd], or [..., 1, n_embd]."""
    n_seq, n_embd = x.shape[-2:]
    qkv = linear(x, **c_attn)  # [..., n_seq, 3 n_embd]
    qkv = qkv.reshape(*x.shape[:-1], 3, n_head, n_embd // n_head)  # [..., n_seq, 3, n_head, hd]
    q, k, v = (np.moveaxis(qkv[..., i, :, :], -3, -2) for i in range(3))  # [..., n_head, n_seq, hd] each
    mask = np.triu(np.full((n_seq, n_seq), -np.inf, dtype=np.float32), k=1)  # [n_seq, n_seq], future = -inf
    if last_only:  # only the last query: all the keys and values are still needed
        q, mask = q[..., -1:, :], mask[-1:]  # [..., n_head, 1, hd], [1, n_seq]
    heads = attention(q, k, v, mask)  # [..., n_head, n_q, hd]
    merged = np.moveaxis(heads, -3, -2).reshape(*heads.shape[:-3], -1, n_embd)  # [..., n_q, n_embd]
    return linear(merged, **c_proj)  # [..., n_q, n_embd]


def block(x: np.ndarray, mlp: dict, attn: dict, ln_1: dict, ln_2: dict, n_head: int,
          last_only: bool = False) -> np.ndarray:
    a = mha(layer_norm(x, **ln_1), **attn, n_head=n_head, last_only=last_only)  # [..., n_q, n_embd]
    x = x[..., -a.shape[-2] :, :] + a  # [..., n_q, n_embd]
    return x + ffn(layer_norm(x, **ln_2), **mlp)  # [..., n_q, n_embd]


class TransformerModel(LanguageModel):
    """A GPT-style decoder: logits from the last n_ctx ids, with a pool of KV caches."""

    def __init__(self, name: str, tokenizer: WordTokenizer, params: dict, n_head: int, n_ctx: int,
                 description: str = ""):
        self.name = name
        self.description = description
        self.tokenizer = tokenizer
        self.params = params
        self.n_head = n_head
        self.n_ctx = n_ctx
        self.n_layer = len(params["blocks"])
        self.n_embd = params["wte"].shape[1]
        if params["wte"].shape[0] != tokenizer.n_vocab or params["wpe"].shape[0] < n_ctx:
            raise ValueError(f"model {name!r}: the weights do not fit the vocabulary or the context size")
        if self.n_embd % n_head:
            raise ValueError(f"model {name!r}: n_embd {self.n_embd} is not a multiple of n_head {n_head}")
        head_dim = self.n_embd // n_head
        self._pool = KVPool(lambda: KVCache(self.n_layer, n_head, head_dim, n_ctx, capacity=n_ctx), BLOCK, POOL_SIZE)

    @classmethod
    def load(cls, folder: str | Path) -> TransformerModel:
        """Load config.json, the weights (.npz, any float dtype, made float32) and vocab.json."""
        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        with np.load(folder / config.get("weights", "weights.npz")) as arrays:
            params = unflatten({key: arrays[key].astype(np.float32) for key in arrays.files})
        tokenizer = WordTokenizer.load(folder / "vocab.json")
        return cls(config["name"], tokenizer, params, config["n_head"], config["n_ctx"],
                   config.get("description", ""))

    def context(self, ids: Sequence[int]) -> list[int]:
        """The ids the forward pass reads: the last n_ctx, or [<p>] when there are none."""
        window = [int(i) for i in self.window(ids)]
        self.tokenizer.check_ids(window)
        return window or [self.tokenizer.paragraph_id]

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        """Logits for the token after ids, reusing cached keys and values: float32 [n_vocab]."""
        return self._pool.logits(self.context(ids), self._run)

    def _run(self, window: list[int], cache: KVCache) -> np.ndarray:
        """Run the blocks of window that cache lacks, then the tail; keep only complete blocks."""
        start = cache.reusable(window, BLOCK)
        n_block = len(window) // BLOCK * BLOCK
        if n_block == len(window):  # no tail: the last complete block gives the logits, so it is run
            n_block -= BLOCK
        cache.ids, cache.n_block = window[:start], start
        for lo in range(start, len(window), BLOCK):
            hi = min(lo + BLOCK, len(window)) if lo < n_block else len(window)
            x = self._positions(window[lo:hi], lo, cache)  # [hi - lo, n_embd]
            if hi <= n_block or hi - lo == BLOCK:  # a complete block: its keys and values are kept
                cache.ids, cache.n_block = window[:hi], hi
        return self.params["wte"] @ layer_norm(x[-1], **self.params["ln_f"])  # [n_vocab, n_embd] @ [n_embd]

    def logits_uncached(self, ids: Sequence[int]) -> np.ndarray:
        """The same logits from a full forward pass over the window, with no cache: float32 [n_vocab]."""
        window = self.context(ids)
        h = self.hidden(np.array(window), last_only=True)[-1]  # [n_embd]
        return self.params["wte"] @ h  # [n_vocab, n_embd] @ [n_embd] -> [n_vocab]

    def forward(self, ids: np.ndarray) -> np.ndarray:
        """Logits at every position of ids (at most n_ctx): [n_seq] -> [n_seq, n_vocab], float32."""
        return self.hidden(ids) @ self.params["wte"].T  # [n_seq, n_embd] @ [n_embd, n_vocab] -> [n_seq, n_vocab]

    def hidden(self, ids: np.ndarray, last_only: bool = False) -> np.ndarray:
        """The final-LayerNorm output at every position: [..., n_seq] -> [..., n_seq, n_embd].

        last_only: only at the last position ([..., 1, n_embd]), which spares most of the last block.
        """
        p = self.params
        x = p["wte"][ids] + p["wpe"][: ids.shape[-1]]  # [..., n_seq, n_embd]
        for layer, params in enumerate(p["blocks"]):
            last = last_only and layer == self.n_layer - 1
            x = block(x, **params, n_head=self.n_head, last_only=last)  # [..., n_seq, n_embd]
        return layer_norm(x, **p["ln_f"])  # [..., n_seq, n_embd]

    def token_log_probs(self, ids: Sequence[int], batch_size: int = 32) -> np.ndarray:
        """Log-probability of each id given the ids before it, read as logits() reads them: float64 [n_ids].

        The same numbers as logits() on every prefix (to float32 rounding), but the windows run as
        batches through forward(): the first n_ctx ids in one pass, then one window per later id.
        """
        ids = np.asarray(ids, dtype=np.int64)  # [n_ids]
        self.tokenizer.check_ids(ids)
        out = np.empty(len(ids))  # [n_ids]
        if not len(ids):
            return out
        out[0] = log_softmax(self.logits([]))[ids[0]]
        targets = ids[1 : self.n_ctx + 1]  # [m]: each read with every id before it, all inside the first window
        out[1 : len(targets) + 1] = take(log_softmax(self.forward(ids[: self.n_ctx])[: len(targets)]), targets)
        for start in range(self.n_ctx + 1, len(ids), batch_size):  # later ids: one sliding window each
            stop = min(start + batch_size, len(ids))
            windows = np.stack([ids[i - self.n_ctx : i] for i in range(start, stop)])  # [batch, n_ctx]
            h = self.hidden(windows, last_only=True)[:, -1]  # [batch, n_embd]
            out[start:stop] = take(log_softmax(h @ self.params["wte"].T), ids[start:stop])  # [batch]
        return out

    def _positions(self, ids: list[int], start: int, cache: KVCache) -> np.ndarray:
        """Run positions start .. start + len(ids) through every block, storing their keys and values:
        -> [n, n_embd], before ln_f."""
        p = self.params
        x = p["wte"][ids] + p["wpe"][start : start + len(ids)]  # [n, n_embd]
        for layer, params in enumerate(p["blocks"]):
            x = x + self._mha_positions(layer_norm(x, **params["ln_1"]), layer, start, cache, **params["attn"])
            x = x + ffn(layer_norm(x, **params["ln_2"]), **params["mlp"])  # [n, n_embd]
        return x

    def _mha_positions(self, x: np.ndarray, layer: int, start: int, cache: KVCache, c_attn: dict,
                       c_proj: dict) -> np.ndarray:
        """Attention of n new positions over themselves and the cached ones before: [n, n_embd] -> same."""
        n, end = x.shape[0], start + x.shape[0]
        qkv = linear(x, **c_attn).reshape(n, 3, self.n_head, -1)  # [n, 3, n_head, hd]
        q, k, v = (qkv[:, i].transpose(1, 0, 2) for i in range(3))  # [n_head, n, hd] each
        cache.k[layer, :, start:end] = k
        cache.v[layer, :, start:end] = v
        mask = None
        if n > 1:  # a position sees itself and the positions before it, not the ones after
            mask = np.triu(np.full((n, end), -np.inf, dtype=np.float32), k=start + 1)  # [n, end]
        heads = attention(q, cache.k[layer, :, :end], cache.v[layer, :, :end], mask)  # [n_head, n, hd]
        return linear(heads.transpose(1, 0, 2).reshape(n, -1), **c_proj)  # [n, n_embd] -> [n, n_embd]

def log_softmax(z: np.ndarray) -> np.ndarray:
    """Natural-log probabilities in float64, along the last axis: [..., n_vocab] -> [..., n_vocab]."""
    z = z.astype(np.float64)  # [..., n_vocab]
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def take(log_probs: np.ndarray, targets: np.ndarray) -> np.ndarray:
    return np.take_along_axis(log_probs, targets[:, None], axis=-1)[:, 0]  # [n, n_vocab], [n] -> [n]


def unflatten(flat: dict[str, np.ndarray]) -> dict:
    """Nest dotted names, numbered parts as lists: {"blocks.0.ln_1.g": a} -> {"blocks": [{"ln_1": {"g": a}}]}."""
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
