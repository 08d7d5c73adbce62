"""Read a training corpus and split it into a training part and a held-out part.

The held-out part is the last 10% of each file (cut at a paragraph break), so that
no model is ever trained on it and every model is measured on the same text.
"""

from __future__ import annotations

from pathlib import Path

HELDOUT_FRACTION = 0.1


def corpus_files(path: str | Path) -> list[Path]:
    """The .txt files of a folder (sorted, README excluded), or the one file given."""
    path = Path(path)
    if path.is_file():
        return [path]
    files = sorted(p for p in path.glob("*.txt") if p.name.lower() != "readme.txt")
    if not files:
        raise FileNotFoundError(f"no .txt files in {path}")
    return files


def split_text(text: str, fraction: float = HELDOUT_FRACTION) -> tuple[str, str]:
    """Split text at the first paragraph break after (1 - fraction) of its length."""
    cut = int(len(text) * (1 - fraction))
    brk = text.find("\n\n", cut)
    cut = brk if brk != -1 else cut
    return text[:cut], text[cut:]


def load_split(path: str | Path) -> tuple[list[str], list[str]]:
    """Read every file of a corpus; return (training texts, held-out texts), one per file."""
    train, heldout = [], []
    for f in corpus_files(path):
        a, b = split_text(f.read_text(encoding="utf-8"))
        train.append(a)
        heldout.append(b)
    return train, heldout
