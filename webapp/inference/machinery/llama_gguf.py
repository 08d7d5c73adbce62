"""Build a LlamaModel from a GGUF file: its metadata, its tensors arranged for the forward pass, its tokenizer.

The float32 weights of a model in the user's model folder are kept beside its file after the first
load (float32_weights.py), so that later loads take a second, not the many that parsing and
dequantising a GGUF file take.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np

from ..bpe import BPETokenizer
from ..llama import BLOCK, MAX_CTX, LlamaConfig, LlamaModel
from .float32_weights import load_float32, save_float32
from .gguf_file import read_gguf


def config_from_metadata(meta: dict) -> LlamaConfig:
    """The model's shape from the file's `llama.*` metadata; other architectures and RoPE scaling are refused."""
    arch = meta.get("general.architecture")
    if arch != "llama":
        raise ValueError(f"the architecture {arch!r} is not supported, only 'llama'")
    scaling = meta.get("llama.rope.scaling.type", "none")
    if scaling != "none":
        raise ValueError(f"RoPE scaling {scaling!r} is not supported")
    n_head = int(meta["llama.attention.head_count"])
    n_embd = int(meta["llama.embedding_length"])
    return LlamaConfig(
        n_layer=int(meta["llama.block_count"]), n_embd=n_embd, n_ff=int(meta["llama.feed_forward_length"]),
        n_head=n_head, n_head_kv=int(meta.get("llama.attention.head_count_kv", n_head)),
        rope_dim=int(meta.get("llama.rope.dimension_count", n_embd // n_head)),
        rope_base=float(meta.get("llama.rope.freq_base", 10000.0)),
        norm_eps=float(meta["llama.attention.layer_norm_rms_epsilon"]), n_ctx_train=int(meta["llama.context_length"]))


def from_gguf(path: str | Path, name: str | None = None, n_ctx: int | None = None, description: str = "",
              block: int = BLOCK) -> LlamaModel:
    """Load a llama-architecture GGUF file: weights dequantised to float32, the BPE tokenizer."""
    contents = read_gguf(path)
    params = gather_params(contents.tensors, config_from_metadata(contents.metadata))
    return from_parts(contents.metadata, params, name or Path(path).stem.lower(), n_ctx, description, block)


def from_parts(meta: dict, params: dict, name: str, n_ctx: int | None = None, description: str = "",
               block: int = BLOCK) -> LlamaModel:
    """Build the model from the file's metadata and its arranged float32 weights (gather_params)."""
    config = config_from_metadata(meta)
    tokenizer = tokenizer_from_metadata(meta)
    bos_id = int(meta.get("tokenizer.ggml.bos_token_id", 0))
    add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", False))
    n_ctx = min(n_ctx or MAX_CTX, config.n_ctx_train - add_bos)
    endoftext = tokenizer.id_of("<|endoftext|>")
    start_id = endoftext if endoftext is not None else bos_id
    eos_id = meta.get("tokenizer.ggml.eos_token_id")  # SmolLM2's <|im_end|>, as its generation_config.json says
    return LlamaModel(name, tokenizer, params, config, n_ctx, start_id, bos_id if add_bos else None, description,
                      block, None if eos_id is None else int(eos_id))


def load(folder: str | Path) -> LlamaModel:
    """Load the model a config.json describes: {"type": "gguf", "name": ..., "file": ...}."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    path = folder / config["file"]
    ready = load_float32(folder / "float32", path)
    if ready:
        meta, params = ready[0], nest_params(ready[1])
    else:
        contents = read_gguf(path)
        meta = contents.metadata
        params = gather_params(contents.tensors, config_from_metadata(meta))
        with contextlib.suppress(OSError):  # a read-only folder: the next load reads the GGUF file again
            save_float32(folder / "float32", path, meta, flat_params(params))
    return from_parts(meta, params, config["name"], config.get("n_ctx"), config.get("description", ""))


def gather_params(tensors: dict[str, np.ndarray], c: LlamaConfig) -> dict:
    """Arrange the file's tensors for llama.forward: by block, each matrix as [n_in, n_out], so that a layer is
    x @ W, and Q, K, V (and gate, up) joined into one matrix each.

    The file keeps W as [n_out, n_in] (y = W x). Stored transposed, x @ W reads W row after row, as it lies
    in memory: one token's pass streams the weights at the memory's speed (about 1.6x faster than x @ W.T
    here). One product for the three projections reads the same weights as three, with fewer calls.
    A tied head (no output.weight) is the embedding itself: token_embd is then a view of output.
    """
    known = {"token_embd.weight", "output_norm.weight", "output.weight"}
    blocks = []
    for i in range(c.n_layer):
        t = {name: tensors[f"blk.{i}.{name}.weight"] for name in
             ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")}
        known |= {f"blk.{i}.{name}.weight" for name in t}
        blocks.append({
            "attn_norm": t["attn_norm"], "ffn_norm": t["ffn_norm"],
            "attn_qkv": _in_out(np.concatenate([t["attn_q"], t["attn_k"], t["attn_v"]])),  # [n_embd, (n_head+2n_kv) hd]
            "attn_output": _in_out(t["attn_output"]),  # [n_head hd, n_embd]
            "ffn_gate_up": _in_out(np.concatenate([t["ffn_gate"], t["ffn_up"]])),  # [n_embd, 2 n_ff]
            "ffn_down": _in_out(t["ffn_down"]),  # [n_ff, n_embd]
        })
    unknown = sorted(set(tensors) - known)
    if unknown:
        raise ValueError(f"the file has tensors this model does not use, e.g. {unknown[0]!r}: not supported")
    embd = tensors["token_embd.weight"]  # [n_vocab, n_embd]
    output = _in_out(tensors.get("output.weight", embd))  # [n_embd, n_vocab]
    return {"token_embd": output.T if "output.weight" not in tensors else embd,
            "output_norm": tensors["output_norm.weight"], "output": output, "blocks": blocks}


def _in_out(w: np.ndarray) -> np.ndarray:
    """[n_out, n_in] as the file has it -> [n_in, n_out], contiguous."""
    return np.ascontiguousarray(w.T)


def flat_params(params: dict) -> dict[str, np.ndarray]:
    """The arranged weights by one flat name each, e.g. "blk.3.attn_qkv"; a tied embedding is not repeated."""
    flat = {"output": params["output"], "output_norm": params["output_norm"]}
    if not np.shares_memory(params["token_embd"], params["output"]):
        flat["token_embd"] = params["token_embd"]
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
    output = flat["output"]
    return {"token_embd": flat.get("token_embd", output.T), "output_norm": flat["output_norm"], "output": output,
            "blocks": [blocks[i] for i in range(len(blocks))]}


def tokenizer_from_metadata(meta: dict) -> BPETokenizer:
    """The byte-level BPE tokenizer described by the file's tokenizer.ggml.* metadata."""
    kind = meta.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise ValueError(f"the tokenizer {kind!r} is not supported, only byte-level BPE ('gpt2')")
    tokens = meta["tokenizer.ggml.tokens"]
    types = meta.get("tokenizer.ggml.token_type", [1] * len(tokens))
    return BPETokenizer(tokens, meta.get("tokenizer.ggml.merges", []), types, meta.get("tokenizer.ggml.pre", "default"))
