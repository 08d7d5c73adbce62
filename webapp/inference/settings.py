"""How a step turns logits into a pick: the sampler chain's settings, each checked when it is made.

A bad setting is refused here, with a message that says which and why (errors.py), so that a step
never runs on settings it cannot honour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import chain, sampling
from .errors import N_, InvalidSetting

MAX_SEED = 2**63 - 1
MAX_REPETITION_PENALTY = 10.0
MAX_PENALTY = 2.0  # presence and frequency, as OpenAI's API bounds them
PENALTY_RANGE = {
    "presence_penalty": N_("presence penalty must be from %(min)s to %(max)s, not %(value)s"),
    "frequency_penalty": N_("frequency penalty must be from %(min)s to %(max)s, not %(value)s"),
}
RANGE_ORDERS = ("probability", "vocabulary")


@dataclass(frozen=True)
class Settings:
    """How to turn logits into a pick. None switches a truncation or a penalty off.

    `chain` is the order of the stages (chain.py); a stage it leaves out is not applied.
    `range_order` lays the kept tokens on [0, 1) by probability (largest first) or by id.
    """

    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    min_p: float | None = None
    seed: int = 0
    chain: tuple[str, ...] = chain.DEFAULT_CHAIN
    repetition_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    range_order: str = "probability"

    def __post_init__(self):
        sampling.check_temperature(self.temperature)
        object.__setattr__(self, "chain", chain.check_chain(self.chain))
        self._check_penalties()
        if self.range_order not in RANGE_ORDERS:
            raise InvalidSetting(N_("range order must be one of %(orders)s, not %(value)s"),
                                 orders=", ".join(RANGE_ORDERS), value=repr(self.range_order))
        if self.top_k is not None and (not isinstance(self.top_k, int) or self.top_k < 1):
            raise InvalidSetting(N_("top-k must be a whole number >= 1, not %(value)s"), value=repr(self.top_k))
        if self.top_p is not None and not (0 < self.top_p <= 1):
            raise InvalidSetting(N_("top-p must be in (0, 1], not %(value)s"), value=repr(self.top_p))
        if self.min_p is not None and not (0 <= self.min_p <= 1):
            raise InvalidSetting(N_("min-p must be in [0, 1], not %(value)s"), value=repr(self.min_p))
        if not isinstance(self.seed, int) or not 0 <= self.seed <= MAX_SEED:
            raise InvalidSetting(N_("seed must be a whole number from 0 to %(max)s, not %(value)s"), max=str(MAX_SEED),
                                 value=repr(self.seed))

    def _check_penalties(self):
        theta = self.repetition_penalty
        if theta is not None and not (math.isfinite(theta) and 0 < theta <= MAX_REPETITION_PENALTY):
            raise InvalidSetting(N_("repetition penalty must be above 0 and at most %(max)s, not %(value)s"),
                                 max=float(MAX_REPETITION_PENALTY), value=repr(theta))
        for name in ("presence_penalty", "frequency_penalty"):
            alpha = getattr(self, name)
            if alpha is not None and not (math.isfinite(alpha) and -MAX_PENALTY <= alpha <= MAX_PENALTY):
                raise InvalidSetting(PENALTY_RANGE[name], min=float(-MAX_PENALTY), max=float(MAX_PENALTY),
                                     value=repr(alpha))

    @property
    def truncating(self) -> bool:
        """Whether any of top-k, top-p and min-p is on."""
        return self.top_k is not None or self.top_p is not None or self.min_p is not None

    @property
    def applied_temperature(self) -> float:
        """The temperature the table's probabilities are at: T, or 1 when the chain leaves temperature out."""
        return self.temperature if "temperature" in self.chain else 1.0
