"""A llama-architecture model (SmolLM2 and its kin) from a GGUF file, run in NumPy, float32, with a KV cache.

One position's way through the model, in the names of the GGUF tensors:

    x = token_embd[id]                                    # [n_embd]
    for each of the n_layer blocks:
        x = x + attention(rms_norm(x)) @ attn_output      # grouped-query attention, rotary positions
        x = x + (silu(h @ ffn_gate) * (h @ ffn_up)) @ ffn_down, h = rms_norm(x)   # SwiGLU
    logits = rms_norm(x) @ output                         # output is token_embd when the file has none (tied)

Each weight matrix is [n_in, n_out], so that a layer is x @ W (machinery/llama_gguf.py arranges them).

Rotary position embeddings (RoPE) turn each pair of a query's or key's dimensions by an angle
pos * base^(-2i / rope_dim), so that a query-key dot product depends on how far apart they are; a pair
(a, b) is the complex number a + ib, and turning it by an angle is multiplying it by e^(i angle).
Which dimensions make a pair: llama.cpp's converter permutes the rows of the Q and K weights so that
a pair is two neighbouring dimensions (2i, 2i + 1) of a head, where the Hugging Face checkpoint pairs
dimension i with i + head_dim / 2. The weights are used as the file has them, so pairs are neighbours.

Grouped-query attention: n_head query heads share n_head_kv key/value heads, query head h reading
key/value head h // (n_head / n_head_kv).

`forward` is the whole model, top to bottom, as in transformer.py (whose attention it shares);
called with the window's ids it is the reference, and the app calls it with a KV cache
(machinery/kvcache.py, the same policy as the GPT's). The window: logits(ids) reads the last n_ctx
ids. A text with an empty prompt starts with `<|endoftext|>` (start_id), the mark between training
documents: the step puts it first at every step (step.context_ids), and an empty context reads as it
too; a file that asks for a BOS token gets it before every window instead. Reading the weights from
a GGUF file is machinery/llama_gguf.py. Beam search (decoding.py) runs its beams as the rows of one call,
ids [n_rows, n_seq]: the rows share every matrix product, and each attends to its own keys and values.

Float32 throughout: every scalar below is a Python float, as a NumPy float64 scalar would turn the
float32 activations into float64 and every matrix product after it ten times slower.

Left out on purpose: RoPE scaling (YaRN, llama3 frequency factors), biases on the projections,
mixture-of-experts, and any architecture other than "llama"; a file that needs them is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bpe import BPETokenizer
from .machinery.kvcache import BeamCache, BeamsTogether, KVCache, KVPool
from .model import Inside, LanguageModel
from .transformer import attention, causal_mask

BLOCK = 32  # the KV cache runs a window as blocks of 32, 16 and 8, then one position at a time (kvcache.py)
POOL_SIZE = 8  # KV caches kept: at least the threads a server process runs
MAX_CTX = 2048  # the window, at most: the app's steps never need more


@dataclass(frozen=True)
class LlamaConfig:
    """The shape of a llama-architecture model, from the file's `llama.*` metadata."""

    n_layer: int
    n_embd: int
    n_ff: int
    n_head: int
    n_head_kv: int
    rope_dim: int
    rope_base: float
    norm_eps: float
    n_ctx_train: int

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * w, along the last axis: [..., n_embd] -> [..., n_embd]."""
    mean_square = np.vecdot(x, x)[..., None] / x.shape[-1]  # [..., 1]; one call, where x * x then a sum is two
    return x / np.sqrt(mean_square + eps) * w


def silu(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x), with sigmoid(x) = (1 + tanh(x / 2)) / 2: no overflow in exp for very negative x.

    So silu(x) = h + h tanh(h) with h = x / 2.
    """
    h = 0.5 * x
    return h + h * np.tanh(h)


def rope_turns(positions: np.ndarray, rope_dim: int, base: float) -> np.ndarray:
    """e^(i pos base^(-2i / rope_dim)) for each position and pair i: [n_pos, rope_dim / 2], complex64.

    Position 0 turns no pair: all ones; pair 0 turns by one radian a position: e^(i pos).
    """
    inv_freq = base ** (-np.arange(0, rope_dim, 2, dtype=np.float64) / rope_dim)  # [rope_dim / 2]
    angles = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq  # [n_pos, rope_dim / 2]
    return np.exp(1j * angles).astype(np.complex64)


def rope(x: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Turn each pair of neighbouring dimensions (a, b) = (2i, 2i + 1) by its angle at each position.

    The pair is the complex number a + ib, and turning it is multiplying by e^(i angle) = cos + i sin:
    (a + ib)(cos + i sin) = (a cos - b sin) + i (a sin + b cos). x [n, n_heads, head_dim],
    turns = rope_turns(positions) [n, rope_dim / 2] -> [n, n_heads, head_dim]; dimensions past rope_dim
    are left as they are.
    """
    rot = 2 * turns.shape[-1]
    pairs = np.asarray(x[..., :rot], dtype=np.float32).view(np.complex64)  # [n, n_heads, rot / 2]: a + ib
    turned = (pairs * turns[:, None, :]).view(np.float32)  # [n, n_heads, rot]
    return np.concatenate([turned, x[..., rot:]], axis=-1) if rot < x.shape[-1] else turned


def gqa(
    x: np.ndarray,
    b: dict,
    c: LlamaConfig,
    turns: np.ndarray,
    start: int,
    mask: np.ndarray | None,
    cache: KVCache | BeamCache | None = None,
    layer: int = 0,
    inside: Inside | None = None,
    rows_of: tuple[int, ...] = (),
) -> np.ndarray:
    """Causal grouped-query attention of positions start.. over themselves and (from the cache) the ones before.

    [n, n_embd] -> [n, n_embd], with turns = rope_turns(positions) and mask = group_mask(n, start, c), the same for
    every layer. Query head h reads key/value head h // (n_head / n_head_kv). With rows_of = (n_rows,), several
    texts (beam search's beams): x is their n positions each, one text after the other, each attending to its own.
    """
    n_rows = rows_of[0] if rows_of else 1
    n, hd, group = x.shape[0] // n_rows, c.head_dim, c.n_head // c.n_head_kv
    n_qk = c.n_head + c.n_head_kv
    qkv = x @ b["attn_qkv"]  # [n_rows n, n_embd] @ [n_embd, (n_head + 2 n_head_kv) hd]: Q, K and V in one product
    qk = rope(qkv[:, : n_qk * hd].reshape(*rows_of, n, n_qk, hd), turns)  # [..., n, n_head + n_head_kv, hd]
    q = qk[..., : c.n_head, :].swapaxes(-3, -2)  # [..., n_head, n, hd] (... is n_rows, when there are rows)
    k = qk[..., c.n_head :, :].swapaxes(-3, -2)  # [..., n_head_kv, n, hd]
    v = qkv[:, n_qk * hd :].reshape(*rows_of, n, c.n_head_kv, hd).swapaxes(-3, -2)  # [..., n_head_kv, n, hd]
    if cache is not None:
        k, v = cache.extend(layer, start, k, v)  # [..., n_head_kv, start + n, hd]: the cached positions, then these
    queries = q.reshape(*rows_of, c.n_head_kv, group * n, hd)  # [..., n_head_kv, group n, hd]: a group's as one
    heads, weights = attention(queries, k, v, mask)  # [..., n_head_kv, group n, hd]
    if inside is not None:
        inside.queries.append(q)
        inside.keys.append(k)
        inside.attention.append(weights.reshape(c.n_head, n, start + n))
    merged = heads.reshape(*rows_of, c.n_head, n, hd).swapaxes(-3, -2).reshape(n_rows * n, c.n_head * hd)
    return merged @ b["attn_output"]  # [n_rows n, n_embd]


def group_mask(n: int, start: int, c: LlamaConfig) -> np.ndarray | None:
    """The causal mask of the query rows of a group of heads: [group n, start + n], group = n_head / n_head_kv;
    None for one position, which sees every position so far.

    The query heads that share a key/value head go through attention as one matrix, head after head: a
    product per key/value head costs less than a broadcast over the group.
    """
    if n == 1:
        return None
    return np.tile(causal_mask(n, start), (c.n_head // c.n_head_kv, 1))


def swiglu(x: np.ndarray, b: dict, c: LlamaConfig) -> np.ndarray:
    """ffn_down @ (silu(ffn_gate @ x) * (ffn_up @ x)): [n, n_embd] -> [n, n_ff] -> [n, n_embd]."""
    gate_up = x @ b["ffn_gate_up"]  # [n, 2 n_ff]: gate and up in one product
    gate, up = gate_up[:, : c.n_ff], gate_up[:, c.n_ff :]  # [n, n_ff] each
    return (silu(gate) * up) @ b["ffn_down"]  # [n, n_ff] @ [n_ff, n_embd]


def forward(
    params: dict,
    ids: Sequence[int] | np.ndarray,
    c: LlamaConfig,
    start: int = 0,
    cache: KVCache | BeamCache | None = None,
    inside: Inside | None = None,
    n_logits: int = 1,
) -> np.ndarray:
    """The logits after each of the last n_logits positions of ids, which sit at positions start..

    ids [n_seq] -> [n_logits, n_vocab], float32 (0 logits when the call only fills the cache); ids [n_rows, n_seq],
    one text per row, gives [n_rows, n_logits, n_vocab]. Positions before start come from the cache; without
    one, start is 0 and ids is the whole window.
    """
    ids = np.asarray(ids)
    rows_of, n_seq = ids.shape[:-1], ids.shape[-1]  # rows_of: () for one text, (n_rows,) for several
    n_rows = rows_of[0] if rows_of else 1
    x = params["token_embd"][ids.reshape(-1)]  # [n_rows n_seq, n_embd]: the rows' texts one after the other
    turns = rope_turns(np.arange(start, start + n_seq), c.rope_dim, c.rope_base)  # the positions' angles
    mask = group_mask(n_seq, start, c)  # [group n_seq, start + n_seq], or None
    if inside is not None:
        inside.residual.append(x)
    for layer, b in enumerate(params["blocks"]):
        h = rms_norm(x, b["attn_norm"], c.norm_eps)
        x = x + gqa(h, b, c, turns, start, mask, cache, layer, inside, rows_of)  # [n_rows n_seq, n_embd]
        x = x + swiglu(rms_norm(x, b["ffn_norm"], c.norm_eps), b, c)
        if inside is not None:
            inside.residual.append(x)
    n_embd = x.shape[-1]
    last = x.reshape(n_rows, n_seq, n_embd)[:, n_seq - n_logits :].reshape(n_rows * n_logits, n_embd)  # each text's
    logits = head(last, params, c)  # [n_rows n_logits, n_vocab]
    return logits.reshape(*rows_of, n_logits, logits.shape[-1])  # [..., n_logits, n_vocab]


def head(x: np.ndarray, params: dict, c: LlamaConfig) -> np.ndarray:
    """The final RMSNorm, then the output matrix: [n, n_embd] -> [n, n_vocab]."""
    return rms_norm(x, params["output_norm"], c.norm_eps) @ params["output"]  # [n, n_embd] @ [n_embd, n_vocab]


class LlamaModel(BeamsTogether, LanguageModel):
    """A llama-architecture decoder from GGUF weights: logits from the last n_ctx ids."""

    def __init__(
        self,
        name: str,
        tokenizer: BPETokenizer,
        params: dict,
        config: LlamaConfig,
        n_ctx: int,
        start_id: int,
        bos_id: int | None = None,
        description: str = "",
        block: int = BLOCK,
        eos_id: int | None = None,
    ):
        self.name = name
        self.eos_id = eos_id
        self.description = description
        self.tokenizer = tokenizer
        self.params = params
        self.config = config
        self.n_ctx = n_ctx  # ids read; a BOS token, where the file asks for one, comes before them
        self.start_id = start_id if bos_id is None else None  # a BOS starts every window: no start token besides
        self.bos_id = bos_id
        if params["token_embd"].shape != (tokenizer.n_vocab, config.n_embd):
            raise ValueError(f"model {name!r}: the embedding does not fit the vocabulary")
        n_pos = n_ctx + (bos_id is not None)
        c = config
        # how the KV cache runs a window: 32, 16, 8, then 1 (machinery/cost.py counts its passes by them)
        self.block_sizes = tuple(dict.fromkeys(s for s in (block, block // 2, block // 4, 1) if s))
        self._pool = KVPool(lambda: KVCache(c.n_layer, c.n_head_kv, c.head_dim, n_pos), self.block_sizes, POOL_SIZE)

    def context(self, ids: Sequence[int]) -> list[int]:
        """The ids the forward pass reads: BOS if the file asks for it, then the last n_ctx ids;
        the start token when there are none."""
        window = [int(i) for i in self.window(ids)]
        self.tokenizer.check_ids(window)
        if self.bos_id is not None:
            return [self.bos_id, *window]
        return window or [self.start_id]

    def logits(self, ids: Sequence[int], cached: bool = True, inside: Inside | None = None) -> np.ndarray:
        """Logits for the token after ids: float32 [n_vocab]. Uncached, or with `inside`, the window runs whole."""
        window = self.context(ids)
        if cached and inside is None:
            return self._pool.logits(window, self._forward)
        return forward(self.params, window, self.config, inside=inside)[-1]

    def _forward(self, ids: list[int], start: int, cache: KVCache, n_logits: int) -> np.ndarray:
        return forward(self.params, ids, self.config, start, cache, n_logits=n_logits)

    def cached_positions(self, ids: Sequence[int]) -> int:
        """How many positions of the window after ids the KV cache holds now (for the cost of a request)."""
        return self._pool.cached(self.context(ids))

    def unembed(self, h: np.ndarray) -> np.ndarray:
        return head(h, self.params, self.config)

    @property
    def embeddings(self) -> np.ndarray:
        """Each token's input vector: [n_vocab, n_embd]."""
        return self.params["token_embd"]
