"""A bigram model: the next token depends only on the one before it.

Its logits are log-probabilities from counts, add-k smoothed, so a student can
check any of them by hand:

    logit(next | prev) = log((count(prev, next) + k) / (count(prev) + k * n_vocab))

where count(prev) is how often prev is followed by any token. Before the first
token of a text, prev is the paragraph token `<p>` (texts start a paragraph).

The counts are stored sparse (CSR: one row per prev token), a few hundred KB.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .model import LanguageModel
from .tokenizer import WordTokenizer


class BigramModel(LanguageModel):
    """Logits from add-k smoothed bigram counts."""

    n_ctx = 1

    def __init__(self, name: str, tokenizer: WordTokenizer, indptr, indices, counts, k: float,
                 description: str = ""):
        self.name = name
        self.description = description
        self.tokenizer = tokenizer
        self.start_id = tokenizer.paragraph_id  # a text starts a paragraph, as the counted stream does
        self.k = float(k)
        self.indptr = np.asarray(indptr, dtype=np.int64)  # [n_vocab + 1]
        self.indices = np.asarray(indices, dtype=np.int64)  # [n_pairs]
        self.counts = np.asarray(counts, dtype=np.int64)  # [n_pairs]
        prev = np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))  # [n_pairs]
        self.row_totals = np.bincount(prev, weights=self.counts, minlength=len(self.indptr) - 1)  # [n_vocab]

    @classmethod
    def from_ids(cls, name: str, tokenizer: WordTokenizer, ids: np.ndarray, k: float,
                 description: str = "") -> BigramModel:
        """Count the pairs of a token stream (which should start with `<p>`)."""
        n = tokenizer.n_vocab
        ids = np.asarray(ids, dtype=np.int64)
        pair_codes, pair_counts = np.unique(ids[:-1] * n + ids[1:], return_counts=True)
        prev, nxt = np.divmod(pair_codes, n)  # sorted by prev, then next
        indptr = np.searchsorted(prev, np.arange(n + 1))
        return cls(name, tokenizer, indptr, nxt, pair_counts, k, description)

    @classmethod
    def load(cls, folder: str | Path) -> BigramModel:
        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        arrays = np.load(folder / "counts.npz")
        tokenizer = WordTokenizer.load(folder / "vocab.json")
        return cls(config["name"], tokenizer, arrays["indptr"], arrays["indices"], arrays["counts"],
                   config["k"], config.get("description", ""))

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        config = {"type": "bigram", "name": self.name, "k": self.k, "description": self.description}
        (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        self.tokenizer.save(folder / "vocab.json")
        np.savez_compressed(folder / "counts.npz", indptr=self.indptr.astype(np.int32),
                            indices=self.indices.astype(np.int32), counts=self.counts.astype(np.int32))

    def token_counts(self) -> np.ndarray:
        """How often each token followed another in the training text: [n_vocab]."""
        return np.bincount(self.indices, weights=self.counts, minlength=self.n_vocab).astype(np.int64)

    def pair_count(self, prev: int, nxt: int) -> int:
        """How often nxt followed prev in the training text."""
        lo, hi = self.indptr[prev], self.indptr[prev + 1]
        j = lo + np.searchsorted(self.indices[lo:hi], nxt)
        return int(self.counts[j]) if j < hi and self.indices[j] == nxt else 0

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        prev = ids[-1] if len(ids) else self.start_id
        lo, hi = self.indptr[prev], self.indptr[prev + 1]
        log_total = np.log(self.row_totals[prev] + self.k * self.n_vocab)
        logits = np.full(self.n_vocab, np.log(self.k) - log_total)  # [n_vocab], unseen pairs
        logits[self.indices[lo:hi]] = np.log(self.counts[lo:hi] + self.k) - log_total
        return logits
