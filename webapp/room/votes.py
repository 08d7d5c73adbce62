"""The class as a language model: its votes counted, set beside the model's probabilities.

For one revealed round with N votes over K distinct tokens, the class's distribution over the
next token is the votes with add-one smoothing over the tokens voted, plus one pseudo-vote for
every token nobody voted:

    p_class(t) = (votes(t) + 1) / (N + K + 1)   for a token t that somebody voted
    p_class(t) = 1 / (N + K + 1)                for the picked token, if nobody voted it

so 30 votes, 20 for 'the', 10 for 'a', picked 'a': p = 11 / 33, surprise -log2(1/3) = 1.58 bits.
The model's surprise is -log2 of its probability at T = 1 (the model as trained, before the
teacher's temperature or truncation). Rounds nobody voted in are left out of both averages.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass

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

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RoundResult:
        d = json.loads(text)
        return cls(round=d["round"], step=d["step"], picked=d["picked"], top=d["top"],
                   tally={int(k): v for k, v in d["tally"].items()}, order=tuple(d["order"]),
                   probs={int(k): v for k, v in d["probs"].items()}, p1_picked=d["p1_picked"])

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


def tally(votes: Mapping[str, int]) -> dict[int, int]:
    """Votes by student -> counts by token: {'a': 5, 'b': 5, 'c': 9} -> {5: 2, 9: 1}."""
    return dict(Counter(votes.values()))


def round_result(round_: int, step: StepResult, picked: int, votes: Mapping[str, int]) -> RoundResult:
    """Count a round's votes against the step the teacher revealed."""
    counts = tally(votes)
    shown = [row.id for row in step.rows[:MODEL_ROWS]]
    by_votes = sorted(counts, key=lambda t: (-counts[t], t))
    for token in (picked, *by_votes):
        if token not in shown and len(shown) < MAX_BARS:
            shown.append(token)
    rows = {token: step.row_of(token) for token in shown}
    order = tuple(sorted(shown, key=lambda t: rows[t].rank))
    return RoundResult(round=round_, step=step.step, picked=picked, top=step.rows[0].id, tally=counts, order=order,
                       probs={t: rows[t].prob for t in order}, p1_picked=rows[picked].prob_t1)


def class_probability(counts: Mapping[int, int], token: int) -> float:
    """The class's probability of token: add-one over the tokens voted, one pseudo-vote for the rest."""
    n, k = sum(counts.values()), len(counts)
    return (counts.get(token, 0) + 1) / (n + k + 1)


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
    class_bits = sum(bits(class_probability(r.tally, r.picked)) for r in counted) / len(counted)
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
