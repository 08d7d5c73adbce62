"""Fixtures for the unit tests of the inference core: the bundled bigram model, loaded once."""

from __future__ import annotations

import pytest

from webapp.inference.bigram import BigramModel
from webapp.inference.machinery.registry import MODELS_DIR

BIGRAM_DIR = MODELS_DIR / "austen-bigram"

@pytest.fixture(scope="session")
def bigram() -> BigramModel:
    """Load austen-bigram straight from its folder, so other bundled models cannot break these tests."""
    return BigramModel.load(BIGRAM_DIR)


@pytest.fixture(scope="session")
def tokenizer(bigram):
    return bigram.tokenizer
