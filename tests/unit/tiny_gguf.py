"""Write a tiny random llama-architecture GGUF file with gguf's own writer, for tests that need no download.

The vocabulary is byte-level BPE: three special tokens, the 256 byte stand-ins, and the results of
a few merges, so that some words are one token and any text can still be encoded.
"""

from __future__ import annotations

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


def write_tiny_gguf(path: Path, tied: bool = True, quantise_embedding: bool = False, seed: int = 0) -> dict:
    """Write the file; return the float32 weights as written (after quantisation, where there is some)."""
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
    writer.add_add_bos_token(False)
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
