"""The bundled models the tests name, and a query for the bigram, whose logits a student can check by hand."""

from __future__ import annotations

BIGRAM_MODEL = "austen-bigram"
TRANSFORMER = "austen-transformer"  # bundled when its weights are; its states are skipped otherwise


def bigram(**params: str) -> dict[str, str]:
    return {"model": BIGRAM_MODEL, **params}
