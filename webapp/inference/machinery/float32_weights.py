"""A fetched GGUF model kept ready to load: its float32 weights in one flat file, its metadata as JSON.

Reading a GGUF file means parsing ~100,000 metadata strings (the vocabulary and the merges) and
dequantising 135 million weights: seconds, every time the app starts. So the first load of a model
in the user's model folder (done by `fetch-model`) writes what it computed beside the file:

    float32/weights.f32     every array, float32, one after another (540 MB for SmolLM2-135M)
    float32/index.json      the metadata, and each array's name, offset and shape

and later loads map those back into memory (a fraction of a second; the pages are read as the first
forward pass touches them, and the server's processes share them through the page cache).
index.json names the GGUF file's size and modification time; when they change, or the format does,
the folder is written again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

FORMAT = 2  # 2: matrices as [n_in, n_out] (llama_gguf.gather_params)


def _source(gguf_path: Path) -> dict:
    stat = gguf_path.stat()
    return {"file": gguf_path.name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "format": FORMAT}


def load_float32(folder: Path, gguf_path: Path) -> tuple[dict, dict[str, np.ndarray]] | None:
    """(metadata, arrays by name) from folder, or None if it is missing or was made from another file."""
    try:
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        if index["source"] != _source(gguf_path):
            return None
        flat = np.memmap(folder / "weights.f32", dtype=np.float32, mode="r")  # [n_weights]: paged in as read
    except (OSError, ValueError, KeyError):
        return None
    if flat.size != index["n_weights"]:
        return None
    arrays = {name: flat[start : start + int(np.prod(shape))].reshape(shape)
              for name, (start, shape) in index["arrays"].items()}
    return index["metadata"], arrays


def save_float32(folder: Path, gguf_path: Path, metadata: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write the arrays and metadata; each file takes its name only once complete (atomic replace)."""
    folder.mkdir(parents=True, exist_ok=True)
    layout, start = {}, 0
    for name, a in arrays.items():
        layout[name] = (start, list(a.shape))
        start += a.size
    part = f".part-{os.getpid()}"
    with open(folder / ("weights.f32" + part), "wb") as f:
        for a in arrays.values():
            np.ascontiguousarray(a, dtype=np.float32).tofile(f)
    os.replace(folder / ("weights.f32" + part), folder / "weights.f32")
    index = {"source": _source(gguf_path), "n_weights": start, "arrays": layout, "metadata": metadata}
    (folder / ("index.json" + part)).write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    os.replace(folder / ("index.json" + part), folder / "index.json")
