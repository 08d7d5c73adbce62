"""A llama-architecture model (SmolLM2 and its kin) from a GGUF file, run in NumPy, float32, with a KV cache.

One position's way through the model, in the names of the GGUF tensors:

    x = token_embd[id]                                    # [n_embd]
    for each of the n_layer blocks:
        x = x + attn_output @ attention(rms_norm(x))      # grouped-query attention, rotary positions
        x = x + ffn_down @ (silu(ffn_gate @ h) * (ffn_up @ h)), h = rms_norm(x)   # SwiGLU
    logits = output @ rms_norm(x)                         # output is token_embd when the file has none (tied)

Rotary position embeddings (RoPE) turn each pair of a query's or key's dimensions by an angle
pos * base^(-2i / rope_dim), so that a query-key dot product depends on how far apart they are.
Which dimensions make a pair: llama.cpp's converter permutes the rows of the Q and K weights so that
a pair is two neighbouring dimensions (2i, 2i + 1) of a head, where the Hugging Face checkpoint pairs
dimension i with i + head_dim / 2. The weights are used as the file has them, so pairs are neighbours.

Grouped-query attention: n_head query heads share n_head_kv key/value heads, query head h reading
key/value head h // (n_head / n_head_kv).

The window and the cache: logits(ids) reads the last n_ctx ids (an empty context reads as
`<|endoftext|>`, the mark between training documents). Keys and values are cached per prefix of ids
and reused by the rule in kvcache.py, which keeps every step's logits the same, bit for bit, whatever
was computed before; the pool of caches makes that safe across threads.

Float32 throughout: every scalar below is a Python float, as a NumPy float64 scalar would turn the
float32 activations into float64 and every matrix product after it ten times slower.

Left out on purpose: RoPE scaling (YaRN, llama3 frequency factors), biases on the projections,
mixture-of-experts, and any architecture other than "llama"; a file that needs them is refused.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bpe import BPETokenizer
from .machinery.float32_weights import load_float32, save_float32
from .machinery.gguf_file import read_gguf
from .machinery.kvcache import KVCache, KVPool
from .model import LanguageModel

BLOCK = 16  # positions run together as one block (see kvcache.py)
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

    @classmethod
    def from_metadata(cls, meta: dict) -> LlamaConfig:
        arch = meta.get("general.architecture")
        if arch != "llama":
            raise ValueError(f"the architecture {arch!r} is not supported, only 'llama'")
        scaling = meta.get("llama.rope.scaling.type", "none")
        if scaling != "none":
            raise ValueError(f"RoPE scaling {scaling!r} is not supported")
        n_head = int(meta["llama.attention.head_count"])
        n_embd = int(meta["llama.embedding_length"])
        return cls(int(meta["llama.block_count"]), n_embd, int(meta["llama.feed_forward_length"]), n_head,
                   int(meta.get("llama.attention.head_count_kv", n_head)),
                   int(meta.get("llama.rope.dimension_count", n_embd // n_head)),
                   float(meta.get("llama.rope.freq_base", 10000.0)),
                   float(meta["llama.attention.layer_norm_rms_epsilon"]), int(meta["llama.context_length"]))


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * w, along the last axis: [..., n_embd] -> [..., n_embd]."""
    mean_square = (x * x).sum(axis=-1, keepdims=True) / x.shape[-1]  # [..., 1]
    return x * (1.0 / np.sqrt(mean_square + eps)) * w


def silu(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x), with sigmoid as 0.5 (1 + tanh(x / 2)): no overflow in exp for very negative x."""
    return x * (0.5 + 0.5 * np.tanh(0.5 * x))


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # the max first, so exp never overflows
    return e / e.sum(axis=-1, keepdims=True)


def rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Turn each pair of neighbouring dimensions (a, b) = (2i, 2i + 1) by its angle at each position.

    (a, b) -> (a cos - b sin, a sin + b cos), as x * cos + (b, a) * (-sin, sin) with the tables of
    rope_tables. x [n, n_heads, head_dim], cos and sin [n, rope_dim] -> [n, n_heads, head_dim];
    dimensions past rope_dim are left as they are.
    """
    rot = cos.shape[-1]
    turning = x[..., :rot]  # [n, n_heads, rot]
    swapped = turning.reshape(*x.shape[:-1], rot // 2, 2)[..., ::-1].reshape(turning.shape)  # (b, a) pairs
    turned = turning * cos[:, None, :] + swapped * sin[:, None, :]
    return np.concatenate([turned, x[..., rot:]], axis=-1) if rot < x.shape[-1] else turned


def rope_tables(n_pos: int, rope_dim: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and signed sin of pos * base^(-2i / rope_dim), each twice per pair: [n_pos, rope_dim] each, float32.

    Pair i's angle fills dimensions 2i and 2i + 1: cos (c0, c0, c1, c1, ...), sin (-s0, s0, -s1, s1, ...).
    """
    inv_freq = base ** (-np.arange(0, rope_dim, 2, dtype=np.float64) / rope_dim)  # [rope_dim / 2]
    angles = np.arange(n_pos, dtype=np.float64)[:, None] * inv_freq  # [n_pos, rope_dim / 2]
    cos = np.repeat(np.cos(angles), 2, axis=-1)  # [n_pos, rope_dim]
    sin = np.stack([-np.sin(angles), np.sin(angles)], axis=-1).reshape(n_pos, rope_dim)
    return cos.astype(np.float32), sin.astype(np.float32)


class LlamaModel(LanguageModel):
    """A llama-architecture decoder from GGUF weights: logits from the last n_ctx ids."""

    def __init__(self, name: str, tokenizer: BPETokenizer, params: dict, config: LlamaConfig, n_ctx: int,
                 start_id: int, bos_id: int | None = None, description: str = "", block: int = BLOCK):
        self.name = name
        self.description = description
        self.tokenizer = tokenizer
        self.params = params
        self.config = config
        self.n_ctx = n_ctx  # ids read; a BOS token, where the file asks for one, comes before them
        self.start_id = start_id  # what an empty context reads
        self.bos_id = bos_id
        self.block = block  # positions run together (kvcache.py); any size gives the same logits, to rounding
        if params["token_embd"].shape != (tokenizer.n_vocab, config.n_embd):
            raise ValueError(f"model {name!r}: the embedding does not fit the vocabulary")
        n_pos = n_ctx + (bos_id is not None)
        self.cos, self.sin = rope_tables(n_pos, config.rope_dim, config.rope_base)
        c = config
        self._pool = KVPool(lambda: KVCache(c.n_layer, c.n_head_kv, c.head_dim, n_pos), block)

    @classmethod
    def from_gguf(cls, path: str | Path, name: str | None = None, n_ctx: int | None = None,
                  description: str = "", block: int = BLOCK) -> LlamaModel:
        """Load a llama-architecture GGUF file: weights dequantised to float32, the BPE tokenizer."""
        contents = read_gguf(path)
        params = gather_params(contents.tensors, LlamaConfig.from_metadata(contents.metadata))
        return cls.from_parts(contents.metadata, params, name or Path(path).stem.lower(), n_ctx, description, block)

    @classmethod
    def from_parts(cls, meta: dict, params: dict, name: str, n_ctx: int | None = None, description: str = "",
                   block: int = BLOCK) -> LlamaModel:
        """Build the model from the file's metadata and its arranged float32 weights (gather_params)."""
        config = LlamaConfig.from_metadata(meta)
        tokenizer = tokenizer_from_metadata(meta)
        bos_id = int(meta.get("tokenizer.ggml.bos_token_id", 0))
        add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", False))
        n_ctx = min(n_ctx or MAX_CTX, config.n_ctx_train - add_bos)
        endoftext = tokenizer.id_of("<|endoftext|>")
        start_id = endoftext if endoftext is not None else bos_id
        return cls(name, tokenizer, params, config, n_ctx, start_id, bos_id if add_bos else None, description, block)

    @classmethod
    def load(cls, folder: str | Path) -> LlamaModel:
        """Load the model a config.json describes: {"type": "gguf", "name": ..., "file": ...}.

        The float32 weights are kept beside the file after the first load (machinery/float32_weights.py), so that
        later loads take a second, not the many a GGUF file's parsing and dequantising take.
        """
        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        path = folder / config["file"]
        ready = load_float32(folder / "float32", path)
        if ready:
            meta, params = ready[0], nest_params(ready[1])
        else:
            contents = read_gguf(path)
            meta = contents.metadata
            params = gather_params(contents.tensors, LlamaConfig.from_metadata(meta))
            with contextlib.suppress(OSError):  # a read-only folder: the next load reads the GGUF file again
                save_float32(folder / "float32", path, meta, flat_params(params))
        return cls.from_parts(meta, params, config["name"], config.get("n_ctx"), config.get("description", ""))

    def context(self, ids: Sequence[int]) -> list[int]:
        """The ids the forward pass reads: BOS if the file asks for it, then the last n_ctx ids;
        the start token when there are none."""
        window = [int(i) for i in self.window(ids)]
        self.tokenizer.check_ids(window)
        if self.bos_id is not None:
            return [self.bos_id, *window]
        return window or [self.start_id]

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        """Logits for the token after ids, reusing cached keys and values: float32 [n_vocab]."""
        return self._pool.logits(self.context(ids), self._run)

    def _run(self, window: list[int], cache: KVCache) -> np.ndarray:
        """Run the positions of window that cache lacks: whole blocks together, the rest one by one."""
        start = cache.reusable(window, self.block)
        n_block = len(window) // self.block * self.block
        cache.ids, cache.n_block = window[:start], min(cache.n_block, start)
        cache.reserve(len(window))
        chunks = [(s, s + self.block) for s in range(start, n_block, self.block)]
        chunks += [(p, p + 1) for p in range(max(start, n_block), len(window))]
        for lo, hi in chunks:
            x = self._positions(window[lo:hi], lo, cache)  # [hi - lo, n_embd]
            cache.ids, cache.n_block = window[:hi], min(hi, n_block)
        h = rms_norm(x[-1], self.params["output_norm"], self.config.norm_eps)  # [n_embd]
        return self.params["output"] @ h  # [n_vocab, n_embd] @ [n_embd] -> [n_vocab]

    def _positions(self, ids: list[int], start: int, cache: KVCache) -> np.ndarray:
        """Run positions start .. start + len(ids) through every block, caching keys and values: -> [n, n_embd]."""
        p, eps = self.params, self.config.norm_eps
        x = p["token_embd"][ids]  # [n, n_embd]
        cos, sin = self.cos[start : start + len(ids)], self.sin[start : start + len(ids)]  # [n, rope_dim]
        for layer, b in enumerate(p["blocks"]):
            x = x + self._attention(rms_norm(x, b["attn_norm"], eps), b, layer, start, cache, cos, sin)
            gate_up = rms_norm(x, b["ffn_norm"], eps) @ b["ffn_gate_up"].T  # [n, 2 n_ff]
            n_ff = gate_up.shape[-1] // 2
            x = x + (silu(gate_up[:, :n_ff]) * gate_up[:, n_ff:]) @ b["ffn_down"].T  # [n, n_ff] @ [n_ff, n_embd]
        return x

    def _attention(self, x: np.ndarray, b: dict, layer: int, start: int, cache: KVCache, cos: np.ndarray,
                   sin: np.ndarray) -> np.ndarray:
        """Causal grouped-query attention of n new positions over them and the cached ones: [n, n_embd] -> same."""
        c = self.config
        n, hd, end = x.shape[0], c.head_dim, start + x.shape[0]
        n_qk = c.n_head + c.n_head_kv
        qkv = x @ b["attn_qkv"].T  # [n, n_embd] @ [n_embd, (n_head + 2 n_head_kv) hd]
        qk = rope(qkv[:, : n_qk * hd].reshape(n, n_qk, hd), cos, sin)  # [n, n_head + n_head_kv, hd]
        cache.k[layer, :, start:end] = qk[:, c.n_head :].transpose(1, 0, 2)  # [n_head_kv, n, hd]
        cache.v[layer, :, start:end] = qkv[:, n_qk * hd :].reshape(n, c.n_head_kv, hd).transpose(1, 0, 2)
        keys, values = cache.k[layer, :, None, :end], cache.v[layer, :, None, :end]  # [n_head_kv, 1, end, hd]
        q = qk[:, : c.n_head] * (1.0 / math.sqrt(hd))  # [n, n_head, hd]
        q = q.reshape(n, c.n_head_kv, c.n_head // c.n_head_kv, hd).transpose(1, 2, 0, 3)  # [n_head_kv, group, n, hd]
        scores = q @ keys.swapaxes(-1, -2)  # [n_head_kv, group, n, end]
        if n > 1:  # a position sees itself and the positions before it, not the ones after
            scores = scores + np.triu(np.full((n, end), -np.inf, dtype=np.float32), k=start + 1)
        heads = softmax(scores) @ values  # [n_head_kv, group, n, hd]
        return heads.transpose(2, 0, 1, 3).reshape(n, c.n_head * hd) @ b["attn_output"].T  # [n, n_embd]


def gather_params(tensors: dict[str, np.ndarray], c: LlamaConfig) -> dict:
    """Arrange the file's tensors by block, joining Q, K, V (and gate, up) into one matrix each.

    One matrix product for the three projections reads the same weights as three, with fewer calls.
    """
    known = {"token_embd.weight", "output_norm.weight", "output.weight"}
    blocks = []
    for i in range(c.n_layer):
        t = {name: tensors[f"blk.{i}.{name}.weight"] for name in
             ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")}
        known |= {f"blk.{i}.{name}.weight" for name in t}
        blocks.append({
            "attn_norm": t["attn_norm"], "ffn_norm": t["ffn_norm"],
            "attn_qkv": np.concatenate([t["attn_q"], t["attn_k"], t["attn_v"]]),  # [(n_head + 2 n_head_kv) hd, n_embd]
            "attn_output": t["attn_output"],  # [n_embd, n_head hd]
            "ffn_gate_up": np.concatenate([t["ffn_gate"], t["ffn_up"]]),  # [2 n_ff, n_embd]
            "ffn_down": t["ffn_down"],  # [n_embd, n_ff]
        })
    unknown = sorted(set(tensors) - known)
    if unknown:
        raise ValueError(f"the file has tensors this model does not use, e.g. {unknown[0]!r}: not supported")
    embd = tensors["token_embd.weight"]  # [n_vocab, n_embd]
    return {"token_embd": embd, "output_norm": tensors["output_norm.weight"],
            "output": tensors.get("output.weight", embd), "blocks": blocks}


def flat_params(params: dict) -> dict[str, np.ndarray]:
    """The arranged weights by one flat name each, e.g. "blk.3.attn_qkv"; a tied head is not repeated."""
    flat = {"token_embd": params["token_embd"], "output_norm": params["output_norm"]}
    if params["output"] is not params["token_embd"]:
        flat["output"] = params["output"]
    for i, block in enumerate(params["blocks"]):
        flat.update({f"blk.{i}.{key}": a for key, a in block.items()})
    return flat


def nest_params(flat: dict[str, np.ndarray]) -> dict:
    """flat_params undone: {"blk.3.attn_qkv": a, ...} -> {"blocks": [..., {"attn_qkv": a}], ...}."""
    blocks: dict[int, dict] = {}
    for name, a in flat.items():
        if name.startswith("blk."):
            _, i, key = name.split(".", 2)
            blocks.setdefault(int(i), {})[key] = a
    embd = flat["token_embd"]
    return {"token_embd": embd, "output_norm": flat["output_norm"], "output": flat.get("output", embd),
            "blocks": [blocks[i] for i in range(len(blocks))]}


def tokenizer_from_metadata(meta: dict) -> BPETokenizer:
    """The byte-level BPE tokenizer described by the file's tokenizer.ggml.* metadata."""
    kind = meta.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise ValueError(f"the tokenizer {kind!r} is not supported, only byte-level BPE ('gpt2')")
    tokens = meta["tokenizer.ggml.tokens"]
    types = meta.get("tokenizer.ggml.token_type", [1] * len(tokens))
    return BPETokenizer(tokens, meta.get("tokenizer.ggml.merges", []), types, meta.get("tokenizer.ggml.pre", "default"))
