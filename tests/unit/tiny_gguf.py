"""Write a tiny random llama-architecture GGUF file with gguf's own writer, for tests that need no download,
and compute its logits by a reference pass written apart from the app's.

The vocabulary is byte-level BPE: three special tokens, the 256 byte stand-ins, and the results of
a few merges, so that some words are one token and any text can still be encoded.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from webapp.inference.bpe import byte_of_char

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MERGES = ["Ġ t", "h e", "Ġt he", "i n", "Ġ a", "a n", "Ġa n", "Ġan d", "e r", "Ġ Ġ", "Ã ©"]

N_EMBD, N_HEAD, N_HEAD_KV, N_FF, N_LAYER, N_CTX_TRAIN = 32, 4, 2, 48, 2, 64
HEAD_DIM = N_EMBD // N_HEAD


def vocabulary() -> tuple[list[str], list[int]]:
    """Tokens and their GGUF types (3 = control, 1 = normal): specials, bytes, then the merges' results."""
    chars = sorted(byte_of_char(), key=byte_of_char().get)  # the 256 stand-ins, in byte order
    merged = [m.replace(" ", "") for m in MERGES]
    tokens = [*SPECIALS, *chars, *merged]
    return tokens, [3] * len(SPECIALS) + [1] * (len(tokens) - len(SPECIALS))


def random_weights(n_vocab: int, tied: bool, seed: int = 0) -> dict[str, np.ndarray]:
    """Weights in the file's layout (NumPy order: a linear layer is [n_out, n_in])."""
    rng = np.random.default_rng(seed)

    def w(*shape, scale=0.3):
        return (scale * rng.standard_normal(shape)).astype(np.float32)

    tensors = {"token_embd.weight": w(n_vocab, N_EMBD, scale=1.0), "output_norm.weight": 1 + w(N_EMBD, scale=0.1)}
    if not tied:
        tensors["output.weight"] = w(n_vocab, N_EMBD)
    for i in range(N_LAYER):
        tensors.update({
            f"blk.{i}.attn_norm.weight": 1 + w(N_EMBD, scale=0.1),
            f"blk.{i}.attn_q.weight": w(N_HEAD * HEAD_DIM, N_EMBD),
            f"blk.{i}.attn_k.weight": w(N_HEAD_KV * HEAD_DIM, N_EMBD),
            f"blk.{i}.attn_v.weight": w(N_HEAD_KV * HEAD_DIM, N_EMBD),
            f"blk.{i}.attn_output.weight": w(N_EMBD, N_HEAD * HEAD_DIM),
            f"blk.{i}.ffn_norm.weight": 1 + w(N_EMBD, scale=0.1),
            f"blk.{i}.ffn_gate.weight": w(N_FF, N_EMBD),
            f"blk.{i}.ffn_up.weight": w(N_FF, N_EMBD),
            f"blk.{i}.ffn_down.weight": w(N_EMBD, N_FF),
        })
    return tensors


def write_tiny_gguf(path: Path, tied: bool = True, quantise_embedding: bool = False, seed: int = 0,
                    add_bos: bool = False) -> dict:
    """Write the file; return the float32 weights as written (after quantisation, where there is some).

    add_bos: the file asks for its BOS token (<|im_start|>, id 1) before every text, as some llama models' do.
    """
    import gguf

    tokens, types = vocabulary()
    tensors = random_weights(len(tokens), tied, seed)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_block_count(N_LAYER)
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(MERGES)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(add_bos)
    for name, array in tensors.items():
        if quantise_embedding and name == "token_embd.weight":
            q8 = gguf.GGMLQuantizationType.Q8_0
            packed = gguf.quants.quantize(array, q8)
            tensors[name] = gguf.quants.dequantize(packed, q8).astype(np.float32)
            writer.add_tensor(name, packed, raw_dtype=q8)
        else:
            writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return tensors


# --- the reference ------------------------------------------------------------------------------


def unpermute(w: np.ndarray, n_head: int) -> np.ndarray:
    """Undo llama.cpp's permutation of Q/K rows: per head, [hd/2, 2] pairs back to [2, hd/2] halves."""
    return w.reshape(n_head, HEAD_DIM // 2, 2, -1).swapaxes(1, 2).reshape(w.shape)


def rms(x, w):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w


def reference_logits(w: dict, ids: list[int]) -> np.ndarray:
    """Logits after ids from a full pass over all of them at once, in float64, on the weights write_tiny_gguf
    returned: [n_vocab]. It un-permutes llama.cpp's Q and K rows back to the Hugging Face layout and rotates
    halves, so that it shares neither code nor the pairing convention with the app's model."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    n = len(ids)
    angles = np.arange(n)[:, None] * 10000.0 ** (-np.arange(0, HEAD_DIM, 2) / HEAD_DIM)  # [n, hd/2]
    cos = np.cos(np.concatenate([angles, angles], -1))[:, None]  # [n, 1, hd]
    sin = np.sin(np.concatenate([angles, angles], -1))[:, None]

    def rotary(t):  # Hugging Face's rotate_half convention
        half = np.concatenate([-t[..., HEAD_DIM // 2 :], t[..., : HEAD_DIM // 2]], -1)
        return t * cos + half * sin

    mask = np.triu(np.full((n, n), -np.inf), 1)
    x = w["token_embd.weight"][ids]  # [n, n_embd]
    for i in range(N_LAYER):
        b = {k.split(".")[2]: v for k, v in w.items() if k.startswith(f"blk.{i}.")}
        h = rms(x, b["attn_norm"])
        q = rotary((h @ unpermute(b["attn_q"], N_HEAD).T).reshape(n, N_HEAD, HEAD_DIM))
        k = rotary((h @ unpermute(b["attn_k"], N_HEAD_KV).T).reshape(n, N_HEAD_KV, HEAD_DIM))
        v = (h @ b["attn_v"].T).reshape(n, N_HEAD_KV, HEAD_DIM)
        k, v = (np.repeat(t, N_HEAD // N_HEAD_KV, axis=1) for t in (k, v))  # [n, n_head, hd]
        scores = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(HEAD_DIM) + mask
        att = np.exp(scores - scores.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        x = x + np.einsum("hqk,khd->qhd", att, v).reshape(n, -1) @ b["attn_output"].T
        h = rms(x, b["ffn_norm"])
        gate = h @ b["ffn_gate"].T
        x = x + (gate / (1 + np.exp(-gate)) * (h @ b["ffn_up"].T)) @ b["ffn_down"].T
    head = w.get("output.weight", w["token_embd.weight"])
    return head @ rms(x[-1], w["output_norm.weight"])
