"""The article's example as a model: a handful of tokens whose scores the teacher types.

The seed article walks through one step by hand: three tokens with probabilities 0.1, 0.2 and
0.7, laid on [0, 1) as "0.0 to 0.1 -> token 0; 0.1 to 0.3 -> token 1; 0.3 to 1.0 -> token 2".
This model gives the same logits at every step, whatever the text, so a class can repeat the
article's numbers, change them, and watch temperature, truncation and r act on them.

Scores typed as probabilities become logits log(p / sum(p)): softmax gives the probabilities
back (a zero probability is a logit of -inf, which softmax turns into 0). The model also hands the
sampler chain those probabilities exactly, as fractions of the decimals typed, so that the ranges
end where the article says they do: r = 0.1 falls in [0.1, 0.3) (exact.py). Scores typed as logits
are used as they are. The model reads no text: its tokenizer encodes any prompt to no tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import exact
from .errors import N_, InvalidSetting
from .model import LanguageModel
from .tokenizer import Token, VocabularyTokenizer

ARTICLE = "article"
MAX_TOKENS = 8
MAX_TOKEN_CHARS = 16
MAX_LOGIT = 100.0
KINDS = ("probabilities", "logits")


@dataclass(frozen=True)
class ArticleScores:
    """The teacher's tokens and scores, checked: 2 to 8 distinct tokens, one finite score each."""

    tokens: tuple[str, ...] = ("A", "B", "C")
    scores: tuple[float, ...] = (0.1, 0.2, 0.7)
    kind: str = "probabilities"  # or "logits"

    def __post_init__(self):
        if not 2 <= len(self.tokens) <= MAX_TOKENS:
            raise InvalidSetting(N_("the article model needs 2 to %(max)s tokens, not %(n)s"), max=str(MAX_TOKENS),
                                 n=len(self.tokens))
        for token in self.tokens:
            if not (0 < len(token) <= MAX_TOKEN_CHARS) or any(c.isspace() or c == "," for c in token):
                raise InvalidSetting(
                    N_("each token must be 1 to %(max)s characters without spaces or commas, not %(value)s"),
                    max=MAX_TOKEN_CHARS, value=repr(token[:20]))
        if len(set(self.tokens)) != len(self.tokens):
            raise InvalidSetting(N_("the article model's tokens must differ from each other"))
        if len(self.scores) != len(self.tokens):
            raise InvalidSetting(N_("give one score per token: %(tokens)s tokens, %(scores)s scores"),
                                 tokens=len(self.tokens), scores=len(self.scores))
        if self.kind not in KINDS:
            raise InvalidSetting(N_("scores are probabilities or logits, not %(value)s"), value=repr(self.kind))
        self._check_scores()

    def _check_scores(self):
        if not all(math.isfinite(x) for x in self.scores):
            raise InvalidSetting(N_("every score must be a finite number"))
        if self.kind == "logits" and any(abs(x) > MAX_LOGIT for x in self.scores):
            raise InvalidSetting(N_("logits must be from %(min)s to %(max)s"), min=float(-MAX_LOGIT),
                                 max=float(MAX_LOGIT))
        if self.kind == "probabilities" and (min(self.scores) < 0 or sum(self.scores) <= 0):
            raise InvalidSetting(N_("probabilities must be 0 or more, and not all 0"))
        if self.kind == "probabilities" and not math.isfinite(sum(self.scores)):  # 1e308 + 1e308 is inf
            raise InvalidSetting(N_("the probabilities add up to more than a number can hold; divide them all by "
                                    "the same amount"))

    def logits(self) -> np.ndarray:
        """The logits the scores stand for. [n_vocab]

        >>> ArticleScores().logits().round(3).tolist()  # probabilities [0.1, 0.2, 0.7]: log 0.1, log 0.2, log 0.7
        [-2.303, -1.609, -0.357]
        """
        if self.kind == "logits":
            return np.array(self.scores, dtype=np.float64)  # [n_vocab]
        with np.errstate(divide="ignore"):  # log 0 is -inf: that token can never be picked
            return np.log(np.asarray(self.fractions(), dtype=np.float64))  # [n_vocab]

    def fractions(self) -> np.ndarray | None:
        """The probabilities typed, divided by their sum, as exact fractions [n_vocab]; None for typed logits.

        >>> [str(p) for p in ArticleScores(scores=(1.0, 1.0, 2.0)).fractions()]
        ['1/4', '1/4', '1/2']
        """
        return exact.fractions(self.scores) if self.kind == "probabilities" else None

    @property
    def normalised(self) -> bool:
        """Whether the probabilities typed add up to 1 as they are (else they are divided by their sum)."""
        return self.kind == "logits" or math.isclose(math.fsum(self.scores), 1.0, abs_tol=1e-9)


class ArticleTokenizer(VocabularyTokenizer):
    """The teacher's tokens, ids 0, 1, 2, ... in the order typed; it reads no text."""

    unk_id = None

    def __init__(self, tokens: Sequence[str]):
        self.vocab = tuple(tokens)

    def encode(self, text: str) -> list[Token]:
        return []

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.decode_pieces(ids)).lstrip(" ")

    def decode_pieces(self, ids: Sequence[int]) -> list[str]:
        """Each token with a space before it, as it follows the prompt.

        >>> ArticleTokenizer(["A", "B", "C"]).decode_pieces([2, 1])
        [' C', ' B']
        """
        self.check_ids(ids)
        return [" " + self.vocab[i] for i in ids]


class ArticleModel(LanguageModel):
    """The same typed logits at every step."""

    name = ARTICLE
    n_ctx = 1

    def __init__(self, scores: ArticleScores = ArticleScores()):
        self.scores = scores
        self.tokenizer = ArticleTokenizer(scores.tokens)
        self.description = (f"The article's example: {len(scores.tokens)} tokens whose {scores.kind} you type; "
                            "the same scores at every step, whatever the text.")
        self._logits = scores.logits()  # [n_vocab]
        self.exact_probs = scores.fractions()  # [n_vocab] or None

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        return self._logits.copy()  # [n_vocab]

    def __eq__(self, other) -> bool:  # the same scores are the same model (labels are cached by model)
        return isinstance(other, ArticleModel) and other.scores == self.scores

    def __hash__(self) -> int:
        return hash(self.scores)
