"""Search a model's vocabulary by text or by id, for the vocabulary page."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VocabEntry:
    id: int
    token: str
    count: int | None  # occurrences in the training text, where the model knows them


def search_vocab(model, query: str, limit: int = 200) -> tuple[list[VocabEntry], int]:
    """Tokens whose text contains query (case-insensitive), or the token with that id; and the match count.

    'darc' -> [Darcy (412)...]; '412' -> the token with id 412 and any token containing '412'.
    """
    counts = model.token_counts()
    q = query.strip()
    vocab = model.tokenizer.vocab
    if not q:
        hits = list(range(min(limit, len(vocab))))
        n = len(vocab)
    else:
        low = q.lower()
        exact = [i for i, token in enumerate(vocab) if token == q]  # the token itself first, then others
        hits = exact + [i for i, token in enumerate(vocab) if low in token.lower() and token != q]
        if q.isascii() and q.isdigit() and int(q) < len(vocab) and int(q) not in hits:
            hits.insert(0, int(q))
        n = len(hits)
    entries = [VocabEntry(i, vocab[i], None if counts is None else int(counts[i])) for i in hits[:limit]]
    return entries, n
