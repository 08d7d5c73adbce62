"""A small GPT-style transformer, run in NumPy (float32).

The forward pass follows picoGPT (jaymody): token and position embeddings (wte, wpe), blocks of
pre-LayerNorm causal multi-head attention (mha) and a 4x GELU MLP (ffn), a final LayerNorm (ln_f),
and logits from the token embedding again (the head is tied to wte). Trained by
scripts/train_transformer.py; GELU is the tanh approximation, as in training.

`forward` is the whole model, top to bottom. Called with the window's ids it is the reference;
the app calls it with a KV cache (machinery/kvcache.py), which hands each attention the keys and
values of the positions computed before, so that appending a token runs a few positions rather
than the whole window. With an `Inside`, it also hands back every block's residual stream and
attention weights.

The window: only the last n_ctx ids are read. Once there are more, the window slides: every token
moves to a new position, its keys and values change with it, and the whole window is recomputed.
A text with an empty prompt starts with `<p>` (start_id), as texts start a paragraph in training:
the step puts it first at every step (step.context_ids), and an empty context reads as it too (the
bigram does the same).

Beam search (decoding.py) runs its beams as the rows of one call, ids [n_rows, n_seq], each row attending to
its own keys and values. Left out on purpose: batches of prompts of different lengths (padding), dropout, and
anything else only training needs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .machinery.kvcache import BeamCache, BeamsTogether, KVCache, KVPool
from .machinery.weights import unflatten
from .model import Inside, LanguageModel
from .sampling import softmax
from .tokenizer import WordTokenizer

BLOCKS = (32,)  # how the KV cache runs a window: blocks of 32, then a tail (machinery/kvcache.py)
POOL_SIZE = 32  # KV caches kept: texts being stepped at the same time
_GELU_C = math.sqrt(2 / math.pi)  # a Python float: a NumPy float64 scalar would promote float32 arrays


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (PyTorch's approximate="tanh")."""
    return 0.5 * x * (1.0 + np.tanh(_GELU_C * (x + 0.044715 * (x * x * x))))  # x * x * x: x**3 is 80x slower


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Normalise each vector to mean 0 and variance 1, then scale by g and shift by b: [..., n] -> [..., n]."""
    n = x.shape[-1]
    centred = x - x.sum(axis=-1, keepdims=True) / n  # x - mean; sums over n cost less than np.mean
    variance = (centred * centred).sum(axis=-1, keepdims=True) / n  # [..., 1]; likewise for np.var
    return g * centred / np.sqrt(variance + eps) + b


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return x @ w + b  # [..., n_in] @ [n_in, n_out] -> [..., n_out]


def ffn(x: np.ndarray, c_fc: dict, c_proj: dict) -> np.ndarray:
    return linear(gelu(linear(x, **c_fc)), **c_proj)  # [..., n_embd] -> [..., 4 n_embd] -> [..., n_embd]


def causal_mask(n_q: int, start: int) -> np.ndarray:
    """-inf where a query would see a later position: queries at start.., keys at 0.. -> [n_q, start + n_q].

    n_q 2, start 1: [[0, 0, -inf], [0, 0, 0]]
    """
    return np.triu(np.full((n_q, start + n_q), -np.inf, dtype=np.float32), k=start + 1)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """softmax(q k^T / sqrt(d) + mask) v, and the weights softmax(...); mask None: every query sees every key.

    q [..., n_q, d], k and v [..., n_k, d] -> [..., n_q, d], and the weights [..., n_q, n_k]. The mask
    leaves each query at least one key (a causal mask leaves it itself), so softmax needs no guard.
    """
    scores = (q * (1.0 / math.sqrt(q.shape[-1]))) @ k.swapaxes(-1, -2)  # [..., n_q, n_k]
    weights = softmax(scores if mask is None else scores + mask, guard=False)
    return weights @ v, weights


def mha(
    x: np.ndarray,
    c_attn: dict,
    c_proj: dict,
    n_head: int,
    start: int = 0,
    cache: KVCache | BeamCache | None = None,
    layer: int = 0,
    inside: Inside | None = None,
) -> np.ndarray:
    """Causal multi-head self-attention of positions start.. over themselves and (from the cache) the ones before.

    [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    """
    n_seq, n_embd = x.shape[-2:]
    qkv = linear(x, **c_attn).reshape(*x.shape[:-1], 3, n_head, n_embd // n_head)  # [..., n_seq, 3, n_head, hd]
    q, k, v = (np.moveaxis(qkv[..., i, :, :], -3, -2) for i in range(3))  # [..., n_head, n_seq, hd] each
    if cache is not None:
        k, v = cache.extend(layer, start, k, v)  # [n_head, start + n_seq, hd]: the cached positions, then these
    heads, weights = attention(q, k, v, causal_mask(n_seq, start))  # [..., n_head, n_seq, hd]
    if inside is not None:
        inside.queries.append(q)
        inside.keys.append(k)
        inside.attention.append(weights)
    merged = np.moveaxis(heads, -3, -2).reshape(*x.shape[:-1], n_embd)  # [..., n_seq, n_embd]
    return linear(merged, **c_proj)


def block(
    x: np.ndarray,
    mlp: dict,
    attn: dict,
    ln_1: dict,
    ln_2: dict,
    n_head: int,
    start: int = 0,
    cache: KVCache | None = None,
    layer: int = 0,
    inside: Inside | None = None,
) -> np.ndarray:
    """One pre-LayerNorm block: x + attention, then + MLP. [..., n_seq, n_embd] -> same."""
    x = x + mha(layer_norm(x, **ln_1), **attn, n_head=n_head, start=start, cache=cache, layer=layer, inside=inside)
    return x + ffn(layer_norm(x, **ln_2), **mlp)  # [..., n_seq, n_embd]


def head(x: np.ndarray, wte: np.ndarray, ln_f: dict) -> np.ndarray:
    """The final LayerNorm, then the token embedding again as the output matrix: [..., n_embd] -> [..., n_vocab]."""
    return layer_norm(x, **ln_f) @ wte.T  # [..., n_embd] @ [n_embd, n_vocab]


def forward(
    params: dict,
    ids: np.ndarray,
    n_head: int,
    start: int = 0,
    cache: KVCache | None = None,
    inside: Inside | None = None,
    n_logits: int = 1,
) -> np.ndarray:
    """The logits after each of the last n_logits positions of ids, which sit at positions start..

    ids [..., n_seq] -> [..., n_logits, n_vocab], float32. n_logits = n_seq gives every position's
    (as training computes them), 0 none (when the call only fills the cache). Positions before
    start come from the cache; without one, start is 0 and ids is the whole window.
    """
    ids = np.asarray(ids)
    x = params["wte"][ids] + params["wpe"][start : start + ids.shape[-1]]  # [..., n_seq, n_embd]
    if inside is not None:
        inside.residual.append(x)
    for layer, block_params in enumerate(params["blocks"]):
        x = block(x, **block_params, n_head=n_head, start=start, cache=cache, layer=layer, inside=inside)
        if inside is not None:
            inside.residual.append(x)
    return head(x[..., x.shape[-2] - n_logits :, :], params["wte"], params["ln_f"])  # [..., n_logits, n_vocab]


class TransformerModel(BeamsTogether, LanguageModel):
    """A GPT-style decoder: logits from the last n_ctx ids, with a pool of KV caches."""

    def __init__(
        self, name: str, tokenizer: WordTokenizer, params: dict, n_head: int, n_ctx: int, description: str = ""
    ):
        self.name = name
        self.description = description
        self.tokenizer = tokenizer
        self.params = params
        self.n_head = n_head
        self.n_ctx = n_ctx
        self.start_id = tokenizer.paragraph_id
        self.n_layer = len(params["blocks"])
        self.n_embd = params["wte"].shape[1]
        if params["wte"].shape[0] != tokenizer.n_vocab or params["wpe"].shape[0] < n_ctx:
            raise ValueError(f"model {name!r}: the weights do not fit the vocabulary or the context size")
        if self.n_embd % n_head:
            raise ValueError(f"model {name!r}: n_embd {self.n_embd} is not a multiple of n_head {n_head}")
        head_dim = self.n_embd // n_head
        self.block_sizes = BLOCKS  # machinery/cost.py counts a window's passes by them
        self._pool = KVPool(lambda: KVCache(self.n_layer, n_head, head_dim, n_ctx), self.block_sizes, POOL_SIZE)

    @classmethod
    def load(cls, folder: str | Path) -> TransformerModel:
        """Load config.json, the weights (.npz, any float dtype, made float32) and vocab.json."""
        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        with np.load(folder / config.get("weights", "weights.npz")) as arrays:
            params = unflatten({key: arrays[key].astype(np.float32) for key in arrays.files})
        tokenizer = WordTokenizer.load(folder / "vocab.json")
        return cls(config["name"], tokenizer, params, config["n_head"], config["n_ctx"], config.get("description", ""))

    def context(self, ids: Sequence[int]) -> list[int]:
        """The ids the forward pass reads: the last n_ctx, or [<p>] when there are none."""
        window = [int(i) for i in self.window(ids)]
        self.tokenizer.check_ids(window)
        return window or [self.start_id]

    def logits(self, ids: Sequence[int], cached: bool = True, inside: Inside | None = None) -> np.ndarray:
        """Logits for the token after ids: float32 [n_vocab]. Uncached, or with `inside`, the window runs whole."""
        window = self.context(ids)
        if cached and inside is None:
            return self._pool.logits(window, self._forward)
        return forward(self.params, window, self.n_head, inside=inside)[-1]

    def _forward(self, ids: list[int], start: int, cache: KVCache, n_logits: int) -> np.ndarray:
        return forward(self.params, ids, self.n_head, start, cache, n_logits=n_logits)

    def cached_positions(self, ids: Sequence[int]) -> int:
        """How many positions of the window after ids the KV cache holds now (for the cost of a request)."""
        return self._pool.cached(self.context(ids))

    def unembed(self, h: np.ndarray) -> np.ndarray:
        return head(h, self.params["wte"], self.params["ln_f"])

    @property
    def embeddings(self) -> np.ndarray:
        """Each token's input vector: [n_vocab, n_embd]."""
        return self.params["wte"]
