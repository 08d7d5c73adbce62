"""Other ways to choose the next token: greedy decoding and beam search, which search for a likely text
instead of sampling one.

Both read the model's logits at T = 1, untruncated: a token's log-probability is log(softmax(logits)), and a
text's is the sum of its tokens' (the probability of the whole text is their product).

Greedy takes the most probable token at every step. Beam search keeps the `width` most probable texts so far
(the beams): at each step every beam is followed by every token, and of all these candidates the `width` best
totals go on. The most probable next token need not start the most probable text, which is why the two differ.

Scores are Hugging Face's `generate(num_beams=width, length_penalty=a, early_stopping=True)`:

    score = (sum of the text's log-probabilities) / (number of tokens generated) ** a

where a text that ends with the end-of-sequence token counts it, and the candidates taken at each step are the
best 2 * width, so that a beam that ends does not leave fewer than `width` to go on. A text ended by the
end-of-sequence token is finished, if it ranks among the first `width` candidates; the search stops when
`width` texts are finished (early_stopping=True), or after `n_new` tokens, when the beams still running are
finished as they are (also when the last step's end-of-sequence tokens made `width`). Of the finished texts
the `width` best scores are kept, best first.

>>> from webapp.inference.class_bigram import ClassBigram
>>> model = ClassBigram.build(["a b c .", "a c b .", "b c ."])
>>> [model.tokenizer.token_text(i) for i in greedy(model, [model.start_id], 3).ids]
['a', 'b', 'c']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .model import LanguageModel

PER_BEAM = 3  # candidates of each beam the tree shows (the search itself weighs them all)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log(softmax(logits)) in float64: [n_vocab]."""
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def largest(values: np.ndarray, k: int) -> np.ndarray:
    """The places of the k largest values, largest first, an earlier place first among equals: what
    np.argsort(-values, kind="stable")[:k] gives, without sorting them all.

    >>> largest(np.array([0.1, 0.5, 0.3, 0.5]), 3).tolist()
    [1, 3, 2]
    """
    if k >= len(values):
        return np.argsort(-values, kind="stable")
    kth = np.partition(values, len(values) - k)[len(values) - k]  # the k-th largest value
    above, equal = np.flatnonzero(values > kth), np.flatnonzero(values == kth)
    chosen = np.concatenate([above, equal[: k - len(above)]])  # each part in order of place
    return chosen[np.argsort(-values[chosen], kind="stable")]


@dataclass(frozen=True)
class Beam:
    """A text generated after the prompt, with each of its tokens' log-probabilities."""

    ids: tuple[int, ...]
    log_probs: tuple[float, ...]
    ended: bool = False  # its last token is the end-of-sequence token

    @property
    def total(self) -> float:
        """The text's log-probability: the sum of its tokens'."""
        return math.fsum(self.log_probs)

    def score(self, length_penalty: float = 1.0) -> float:
        """total / length ** length_penalty, as Hugging Face's beam search ranks finished texts."""
        return self.total / len(self.ids) ** length_penalty if self.ids else 0.0

    def then(self, token: int, log_prob: float, ended: bool = False) -> Beam:
        return Beam((*self.ids, token), (*self.log_probs, log_prob), ended)


@dataclass(frozen=True)
class Candidate:
    """One beam followed by one token, as the tree shows it."""

    beam: int  # the beam it follows, by its place at its level
    id: int
    log_prob: float
    total: float  # the beam's total plus log_prob
    fate: str  # 'kept' (a beam of the next level), 'finished' (ended with end-of-sequence), or 'pruned'


@dataclass(frozen=True)
class Level:
    """One step of the search: the beams it started from and the candidates they were followed by."""

    beams: tuple[Beam, ...]
    candidates: tuple[Candidate, ...]  # each beam's best PER_BEAM, and every candidate kept or finished


@dataclass(frozen=True)
class Search:
    """Beam search's finished texts, best score first, and its levels, for the tree."""

    width: int
    length_penalty: float
    finished: tuple[Beam, ...]
    levels: tuple[Level, ...]

    @property
    def best(self) -> Beam:
        return self.finished[0]


def greedy(model: LanguageModel, prompt_ids: Sequence[int], n_new: int, eos_id: int | None = None) -> Beam:
    """The most probable token at every step (the first in vocabulary order among equals), until n_new tokens or
    the end-of-sequence token."""
    beam = Beam((), ())
    for _ in range(n_new):
        log_probs = log_softmax(model.logits([*prompt_ids, *beam.ids]))
        token = int(np.argmax(log_probs))
        beam = beam.then(token, float(log_probs[token]), ended=token == eos_id)
        if beam.ended:
            break
    return beam


def beam_search(model: LanguageModel, prompt_ids: Sequence[int], width: int, n_new: int,
                length_penalty: float = 1.0, eos_id: int | None = None) -> Search:
    """Hugging Face's beam search with early_stopping=True (see the module's docstring)."""
    running = [Beam((), ())]
    finished: list[Beam] = []
    levels = []
    cache = model.beam_cache()  # each beam's keys and values, copied from its parent's (machinery/kvcache.py)
    for _ in range(n_new):
        texts = [[*prompt_ids, *beam.ids] for beam in running]
        rows = [log_softmax(logits) for logits in model.logits_many(texts, cache)]  # [n_vocab] each
        totals = np.concatenate([beam.total + row for beam, row in zip(running, rows, strict=True)])
        order = largest(totals, 2 * width)  # beam-major: ties go to the earlier beam
        n_vocab = len(rows[0])
        fates: dict[tuple[int, int], str] = {}
        going: list[Beam] = []
        for rank, flat in enumerate(order):
            b, token = divmod(int(flat), n_vocab)
            if token == eos_id:
                if rank < width:
                    finished.append(running[b].then(token, float(rows[b][token]), ended=True))
                    fates[b, token] = "finished"
                continue
            going.append(running[b].then(token, float(rows[b][token])))
            fates[b, token] = "kept"
            if len(going) == width:
                break
        levels.append(_level(running, rows, fates))
        running = going
        if len(finished) >= width or not running:
            break
    # after the last step the beams still running are finished as they are, even if `width` ended at that step
    pool = [*finished, *running] if len(levels) == n_new else finished
    best = sorted(pool, key=lambda beam: -beam.score(length_penalty))[:width]
    return Search(width=width, length_penalty=length_penalty, finished=tuple(best), levels=tuple(levels))


def _level(running: list[Beam], rows: list[np.ndarray], fates: dict[tuple[int, int], str]) -> Level:
    shown = {(b, int(t)) for b, row in enumerate(rows) for t in largest(row, PER_BEAM)}
    shown |= set(fates)
    candidates = sorted(shown, key=lambda bt: (bt[0], -rows[bt[0]][bt[1]], bt[1]))
    return Level(beams=tuple(running), candidates=tuple(
        Candidate(beam=b, id=t, log_prob=float(rows[b][t]), total=running[b].total + float(rows[b][t]),
                  fate=fates.get((b, t), "pruned")) for b, t in candidates))
