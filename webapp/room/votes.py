"""The class as a language model: its votes counted, set beside the model's probabilities.

The class is compared with the model as language models are: by the average surprise, -log2 p, of the
tokens picked. For that the class's guesses must be what the model's are, a probability for every
token of the vocabulary (V tokens) that adds up to 1, never 0 for a token (one nobody voted would be
infinitely surprising). With N votes on a revealed round, the class's distribution is its votes with
add-alpha smoothing over the whole vocabulary:

    p_class(t) = (votes(t) + alpha) / (N + alpha * V),   alpha = 1 / V,   so   (votes(t) + 1/V) / (N + 1)

one imaginary vote in all, spread evenly over the V tokens (Perks's prior): as if one more student had
no idea at all. A token nobody voted gets 1 / (V * (N + 1)): the class's unvoted mass, 1 / (N + 1) in
all, is shared by every token nobody voted, not given to the pick. alpha = 1 (Laplace's add-one) or 1/2
(Jeffreys) would add V or V/2 imaginary votes: with V = 5,000 they drown a class of 30, which would get
31 / 5,030 (7.3 bits) for a pick every student guessed. With one imaginary vote the class's own votes
decide, and a class that never guessed the pick cannot beat a model that gave it even 1 %.

So 30 votes, 20 for 'the', 10 for 'a', V = 5,000: picked 'a', p = (10 + 1/5000) / 31, 1.63 bits;
picked 'her', which nobody voted, p = 1 / 155,000, 17.24 bits.
The model's surprise is -log2 of its probability at T = 1 (the model as trained, before the
teacher's temperature or truncation). Rounds nobody voted in are left out of both averages.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np

from ..inference import StepResult

MODEL_ROWS = 5  # the model's top tokens always shown in the histogram
MAX_BARS = 12


@dataclass(frozen=True)
class RoundResult:
    """A revealed round: what the class voted, what was picked, and the model's figures."""

    round: int
    step: int  # the generation index of the step voted on
    picked: int
    top: int  # the model's most probable token
    tally: dict[int, int]  # token id -> votes
    order: tuple[int, ...]  # the tokens shown, in the model's ranking
    probs: dict[int, float]  # the model's probability of each shown token, at the teacher's settings
    p1_picked: float  # the model's probability of the picked token at T = 1
    n_vocab: int  # the model's vocabulary: the tokens the class's distribution is spread over
    revealed_in: int = 0  # the room's version that revealed it (a round kept for later is revealed after later ones)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RoundResult:
        d = json.loads(text)
        tally = {int(k): v for k, v in d["tally"].items()}
        # a result an older server saved has no n_vocab: the tokens voted and one for the rest, its old reading
        n_vocab = d.get("n_vocab") or len(tally) + 1
        return cls(round=d["round"], step=d["step"], picked=d["picked"], top=d["top"], tally=tally,
                   order=tuple(d["order"]), probs={int(k): v for k, v in d["probs"].items()}, p1_picked=d["p1_picked"],
                   n_vocab=n_vocab, revealed_in=d.get("revealed_in", 0))

    @property
    def n_votes(self) -> int:
        return sum(self.tally.values())

    @property
    def n_picked(self) -> int:
        """How many guessed the picked token."""
        return self.tally.get(self.picked, 0)

    @property
    def n_top(self) -> int:
        """How many guessed the model's most probable token."""
        return self.tally.get(self.top, 0)

    def share(self, n: int) -> float:
        return n / self.n_votes if self.n_votes else 0.0

    @property
    def class_p(self) -> float:
        """The class's probability of the picked token (class_probability)."""
        return class_probability(self.tally, self.picked, self.n_vocab)


def tally(votes: Mapping[str, int]) -> dict[int, int]:
    """Votes by student -> counts by token: {'a': 5, 'b': 5, 'c': 9} -> {5: 2, 9: 1}."""
    return dict(Counter(votes.values()))


def round_result(round_: int, step: StepResult, picked: int, votes: Mapping[str, int], revealed_in: int = 0
                 ) -> RoundResult:
    """Count a round's votes against the step the teacher revealed (by the room's version revealed_in)."""
    counts = tally(votes)
    shown = [row.id for row in step.rows[:MODEL_ROWS]]
    by_votes = sorted(counts, key=lambda t: (-counts[t], t))
    for token in (picked, *by_votes):
        if token not in shown and len(shown) < MAX_BARS:
            shown.append(token)
    rows = {token: step.row_of(token) for token in shown}
    order = tuple(sorted(shown, key=lambda t: rows[t].rank))
    return RoundResult(round=round_, step=step.step, picked=picked, top=step.rows[0].id, tally=counts, order=order,
                       probs={t: rows[t].prob for t in order}, p1_picked=rows[picked].prob_t1, n_vocab=len(step.probs),
                       revealed_in=revealed_in)


def in_reveal_order(results: list[RoundResult]) -> list[RoundResult]:
    """The results in the order they were revealed: a round kept for later comes after rounds opened after it."""
    return sorted(results, key=lambda r: (r.revealed_in, r.round))


PSEUDO_VOTES = 1.0  # imaginary votes in all, spread evenly over the vocabulary: alpha = PSEUDO_VOTES / V


def class_probability(counts: Mapping[int, int], token: int, n_vocab: int) -> float:
    """The class's probability of token: its votes and an even share of one imaginary vote, over N + 1.

    >>> round(class_probability({1: 20, 2: 10}, 2, 5000) * 31, 6), round(class_probability({}, 3, 5000) * 5000, 6)
    (10.0002, 1.0)
    """
    alpha = PSEUDO_VOTES / n_vocab
    return (counts.get(token, 0) + alpha) / (sum(counts.values()) + PSEUDO_VOTES)


def class_distribution(counts: Mapping[int, int], n_vocab: int) -> np.ndarray:
    """The class's probability of every token of the vocabulary: [n_vocab], adding up to 1."""
    votes = np.zeros(n_vocab)  # [n_vocab]
    for token, n in counts.items():
        votes[token] = n
    return (votes + PSEUDO_VOTES / n_vocab) / (votes.sum() + PSEUDO_VOTES)  # [n_vocab]


def bits(p: float) -> float:
    """Surprise in bits: -log2 p (p = 1/8 -> 3.0)."""
    return -math.log2(p)


@dataclass(frozen=True)
class Bar:
    """One token of the revealed histogram: the class's share beside the model's probability."""

    token: int
    votes: int
    share: float
    prob: float
    picked: bool
    top: bool
    colour: int  # the same colour for the class's bar and the model's


def histogram(result: RoundResult) -> list[Bar]:
    return [Bar(token=t, votes=result.tally.get(t, 0), share=result.share(result.tally.get(t, 0)),
                prob=result.probs[t], picked=t == result.picked, top=t == result.top, colour=i % 6)
            for i, t in enumerate(result.order)]


def other_votes(result: RoundResult) -> int:
    """Votes for tokens beyond the histogram's bars."""
    return result.n_votes - sum(result.tally.get(t, 0) for t in result.order)


@dataclass(frozen=True)
class Running:
    """The lesson so far: the average surprise of the picked tokens, in bits, class against model."""

    n_rounds: int
    class_bits: float | None
    model_bits: float | None


def running(results: list[RoundResult]) -> Running:
    counted = [r for r in results if r.n_votes]
    if not counted:
        return Running(0, None, None)
    class_bits = sum(bits(r.class_p) for r in counted) / len(counted)
    model_bits = sum(bits(r.p1_picked) for r in counted) / len(counted)
    return Running(len(counted), class_bits, model_bits)


@dataclass(frozen=True)
class Guess:
    round: int
    step: int
    guess: int
    picked: int

    @property
    def hit(self) -> bool:
        return self.guess == self.picked


def record(my_votes: Mapping[int, int], results: list[RoundResult]) -> list[Guess]:
    """One student's guesses on the revealed rounds, oldest first."""
    return [Guess(r.round, r.step, my_votes[r.round], r.picked) for r in results if r.round in my_votes]


@dataclass(frozen=True)
class Place:
    nickname: str
    hits: int
    guesses: int


def leaderboard(all_votes: Mapping[int, Mapping[str, int]], results: list[RoundResult],
                nicknames: Mapping[str, str], n: int = 10) -> list[Place]:
    """The students with the most hits over the revealed rounds (ties: fewer guesses, then name)."""
    hits: Counter[str] = Counter()
    guesses: Counter[str] = Counter()
    for r in results:
        for student, token in all_votes.get(r.round, {}).items():
            guesses[student] += 1
            hits[student] += token == r.picked
    places = [Place(nicknames.get(s) or "(no name)", hits[s], guesses[s]) for s in guesses]
    return sorted(places, key=lambda p: (-p.hits, p.guesses, p.nickname))[:n]
