"""The interface every model implements: a vocabulary, a context size, and a forward pass."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .tokenizer import Token


class Tokenizer(Protocol):
    """What the loop needs from a tokenizer: text to tokens and ids back to text."""

    unk_id: int | None
    special_ids: frozenset[int]  # tokens that mark rather than write text: <|endoftext|>, <|im_start|>
    vocab: Sequence[str]

    @property
    def n_vocab(self) -> int: ...

    def encode(self, text: str) -> list[Token]: ...

    def decode(self, ids: Sequence[int]) -> str: ...

    def decode_pieces(self, ids: Sequence[int]) -> list[str]: ...

    def token_text(self, i: int) -> str: ...

    def check_ids(self, ids: Sequence[int]) -> None: ...


@dataclass
class Inside:
    """What a forward pass hands back when asked for it: the residual stream, queries, keys and attention.

    residual[0] is the embeddings, residual[l] the stream after block l: [n_seq, n_embd] each.
    For block l: queries[l - 1] [n_head, n_seq, head_dim] and keys[l - 1] [n_head_kv, n_keys, head_dim]
    (after any rotation, before the 1 / sqrt(head_dim)), and attention[l - 1], the weights
    [n_head, n_seq, n_keys], each row summing to 1.
    """

    residual: list[np.ndarray] = field(default_factory=list)
    queries: list[np.ndarray] = field(default_factory=list)
    keys: list[np.ndarray] = field(default_factory=list)
    attention: list[np.ndarray] = field(default_factory=list)


class LanguageModel(ABC):
    """A next-token model: ids seen so far in, one logit per vocabulary token out."""

    name: str
    description: str
    tokenizer: Tokenizer
    n_ctx: int  # how many of the last ids the forward pass reads
    # the token a text begins with when its prompt is empty, read first at every step (step.context_ids);
    # None for a model that reads no text, or whose forward pass puts its own BOS before every window
    start_id: int | None = None
    # softmax(logits) as exact fractions (exact.py), the same after any ids, for a model whose probabilities
    # are typed (the article's): an object array [n_vocab]; None for a model that computes its logits
    exact_probs: np.ndarray | None = None
    # the token that ends a text, where the model was trained to write one (SmolLM2-Instruct's <|im_end|>): greedy
    # decoding and beam search stop there (decoding.py); None for the word models, which write on
    eos_id: int | None = None

    @property
    def n_vocab(self) -> int:
        return self.tokenizer.n_vocab

    @abstractmethod
    def logits(self, ids: Sequence[int]) -> np.ndarray:
        """Return the logits for the token after ids: float array of shape [n_vocab].

        Only the last n_ctx ids are read (a sliding window). ids may be empty.
        """

    def logits_many(self, texts: Sequence[Sequence[int]], cache: object | None = None) -> np.ndarray:
        """The logits for the token after each text: [n_texts, n_vocab]. Beam search asks for its beams' together,
        with the cache beam_cache() gives, which a transformer uses to run them as one batch; here, one by one."""
        return np.stack([self.logits(ids) for ids in texts])

    def beam_cache(self) -> object | None:
        """A cache for one beam search's logits_many (machinery/kvcache.py), or None for a model without one."""
        return None

    def unembed(self, h: np.ndarray) -> np.ndarray:
        """The model's head on residual streams: the final norm, then the output matrix. [n, n_embd] -> [n, n_vocab].

        Only models with layers have one; the logit lens reads each layer through it.
        """
        raise NotImplementedError(f"{self.name} has no layers")

    def token_counts(self) -> np.ndarray | None:
        """How often each token occurred in the training text, if the model knows: [n_vocab]."""
        return None

    def window(self, ids: Sequence[int]) -> Sequence[int]:
        """The ids the forward pass reads: the last n_ctx of them."""
        return ids[max(0, len(ids) - self.n_ctx) :]
