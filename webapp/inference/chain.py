"""The sampler chain: penalties, temperature, top-k, top-p and min-p, in the order the settings give.

Real systems order their stages differently. Hugging Face's `generate` applies the repetition
penalty, then temperature, then top-k, top-p and min-p (DEFAULT_CHAIN, this app's default).
llama.cpp's default chain is `penalties; dry; top_n_sigma; top_k; typ_p; top_p; min_p; xtc;
temperature`: temperature last (LLAMA_CPP_CHAIN, without the stages this app does not have).

What each stage sees is the distribution the stage before it passed on:

- Before the temperature stage that distribution is at T = 1, softmax(z): top-k, top-p and min-p
  placed before temperature choose their tokens from the model's own probabilities. Top-k's set
  does not depend on T (dividing by T > 0 keeps the order), but top-p's and min-p's do: at T < 1
  the top tokens reach p sooner, so top-p before temperature keeps a different set than after it.
- The temperature stage recomputes softmax(z / T) over the tokens kept so far. T = 0 keeps only
  the largest logit among them (greedy), and nothing is divided.
- A truncation stage keeps some tokens of what it saw and renormalises them to sum to 1.
- The penalties stage changes the logits of tokens the text has already used (penalise below)
  and recomputes the distribution over the kept tokens. Placed after temperature, it acts on the
  logits as the temperature left them (z / T), as llama.cpp's would.
- A stage the chain leaves out is not applied, whatever its setting; a stage whose setting is off
  (None) passes its input on unchanged.

A model whose probabilities are typed (the article's) hands the chain its distribution at T = 1 as
fractions, and the chain works on them exactly for as long as the temperature is 1 and no penalty
moved a logit (exact.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from . import exact, sampling
from .errors import N_, InvalidSetting

STAGES = ("penalties", "temperature", "top_k", "top_p", "min_p")
DEFAULT_CHAIN = ("penalties", "temperature", "top_k", "top_p", "min_p")  # Hugging Face's order
LLAMA_CPP_CHAIN = ("penalties", "top_k", "top_p", "min_p", "temperature")
PRESETS = {"Hugging Face": DEFAULT_CHAIN, "llama.cpp": LLAMA_CPP_CHAIN}
TRUNCATIONS = {"top_k": "top-k", "top_p": "top-p", "min_p": "min-p"}  # stage -> the rule's name in a Cut


class ChainSettings(Protocol):
    """What the chain reads from the settings (step.Settings has it all)."""

    chain: tuple[str, ...]
    temperature: float
    top_k: int | None
    top_p: float | None
    min_p: float | None
    repetition_penalty: float | None
    presence_penalty: float | None
    frequency_penalty: float | None


def check_chain(chain: Sequence[str]) -> tuple[str, ...]:
    """Return the chain as a tuple if every stage is known and none repeats.

    >>> check_chain(["top_k", "temperature"])
    ('top_k', 'temperature')
    """
    chain = tuple(chain)
    unknown = [name for name in chain if name not in STAGES]
    if unknown:
        raise InvalidSetting(N_("the chain has no stage %(value)s; the stages are %(stages)s"), value=repr(unknown[0]),
                             stages=", ".join(STAGES))
    if len(set(chain)) != len(chain):
        raise InvalidSetting(N_("the chain names a stage twice: %(chain)s"), chain=",".join(chain))
    return chain


def penalise(logits: np.ndarray, window: Sequence[int], generated: Sequence[int], repetition: float | None = None,
             presence: float | None = None, frequency: float | None = None, scale: float = 1.0) -> np.ndarray:
    """Apply the repetition, presence and frequency penalties to logits; return new logits. [n_vocab] -> [n_vocab].

    repetition theta (CTRL, Keskar et al. 2019, as Hugging Face's RepetitionPenaltyLogitsProcessor and
    llama.cpp's repeat penalty apply it): every distinct token in the window the model read gets
    z / theta if z > 0, else z * theta, so theta > 1 makes it less likely either way.
    presence alpha_p and frequency alpha_f (OpenAI's API reference): a token generated c times gets
    z - c * alpha_f - (1 if c > 0 else 0) * alpha_p. `scale` is the temperature the logits are
    already divided by (the penalty then subtracts alpha * T from z, i.e. alpha from z / T).

    Repetition theta 2 on tokens 0 and 1 gives [1.0, -2.0, 0.5]; then token 1, generated c = 2 times,
    gets -2.0 - 2 * 0.1 - 0.5 = -2.7 from alpha_f 0.1 and alpha_p 0.5:

    >>> penalise(np.array([2.0, -1.0, 0.5]), window=[0, 1], generated=[1, 1], repetition=2, presence=0.5,
    ...          frequency=0.1).tolist()
    [1.0, -2.7, 0.5]
    """
    z = np.array(logits, dtype=np.float64)  # [n_vocab], a copy
    if repetition is not None and len(window):
        seen = np.unique(np.asarray(window, dtype=np.int64))  # [n_seen] distinct ids
        z[seen] = np.where(z[seen] > 0, z[seen] / repetition, z[seen] * repetition)
    if (presence is not None or frequency is not None) and len(generated):
        counts = np.bincount(np.asarray(generated, dtype=np.int64), minlength=len(z))  # [n_vocab]
        z -= scale * (counts * (frequency or 0.0) + (counts > 0) * (presence or 0.0))
    return z

SAME = 1e-12  # renormalising by a sum that is 1 within rounding changes a probability by about 1e-16

@dataclass(frozen=True)
class Stage:
    """What one stage of the chain did at this step: the distribution it saw and the one it passed on."""

    name: str  # one of STAGES
    setting: float | int | tuple | None  # None: off, passed its input on; penalties: (theta, alpha_p, alpha_f)
    temperature: float  # the temperature of the distribution it saw (1 before the temperature stage)
    probs_in: np.ndarray = field(repr=False)  # [n_vocab] the distribution it saw
    probs_out: np.ndarray = field(repr=False)  # [n_vocab] the distribution it passed on
    logits_out: np.ndarray = field(repr=False)  # [n_vocab] the logits after it, before any division by T
    n_in: int  # tokens with probability in what it saw
    n_kept: int  # tokens with probability in what it passed on
    mass_kept: float  # the probability, in what it saw, of the tokens it kept
    n_changed: int  # tokens still in play (not cut by an earlier stage) whose logit it changed (penalties), else 0

    @property
    def on(self) -> bool:
        return self.setting is not None

    @property
    def n_cut(self) -> int:
        return self.n_in - self.n_kept

    @property
    def unchanged(self) -> bool:
        """Whether it passed on the distribution it saw: cut nothing and moved no probability beyond rounding.

        Off, T = 1, top-k 50 of 40 tokens left, top-p 1, min-p 0 -> True; T = 0.9, top-k 5 of 40 -> False.
        """
        if self.probs_out is self.probs_in:
            return True
        return self.n_cut == 0 and float(np.abs(self.probs_out - self.probs_in).max()) <= SAME

    @property
    def top_in(self) -> float:
        return float(self.probs_in.max())

    @property
    def top_out(self) -> float:
        return float(self.probs_out.max())

    @property
    def min_p_floor(self) -> float | None:
        """Min-p's bar: the least probability it keeps, its setting times the top one it saw; None for the others.

        Min-p 0.1 over [0.5, 0.3, 0.04] -> 0.05: it keeps 0.5 and 0.3.
        """
        if self.name != "min_p" or self.setting is None:
            return None
        return self.setting * self.top_in


def stage_setting(name: str, s: ChainSettings) -> float | int | tuple | None:
    """The setting a stage runs with, or None when it is off."""
    if name == "penalties":
        penalties = (s.repetition_penalty, s.presence_penalty, s.frequency_penalty)
        return None if all(v is None for v in penalties) else penalties
    return getattr(s, name)


def apply_chain(logits: np.ndarray, s: ChainSettings, window: Sequence[int] = (), generated: Sequence[int] = (),
                exact_probs: np.ndarray | None = None) -> tuple[np.ndarray, list[Stage]]:
    """Run the stages of s.chain in order; return the final probabilities [n_vocab] and what each stage did.

    logits [2, 1, 0], chain (top_k, temperature), top_k 2, T 0.5: top-k sees softmax(z) =
    [0.665, 0.245, 0.090] and keeps ids 0 and 1; temperature gives softmax([4, 2]) over them.

    >>> from webapp.inference.settings import Settings
    >>> s = Settings(top_k=2, temperature=0.5, chain=("top_k", "temperature"))
    >>> probs, stages = apply_chain(np.array([2.0, 1.0, 0.0]), s)
    >>> probs.round(3).tolist(), [(stage.name, stage.n_kept) for stage in stages]
    ([0.881, 0.119, 0.0], [('top_k', 2), ('temperature', 2)])

    exact_probs, softmax(logits) as fractions where the model knows it exactly (exact.py), is what the
    stages work on while they can: the final probabilities are then fractions too (an object array),
    and each Stage holds the nearest floats.
    """
    z = np.asarray(logits, dtype=np.float64)  # [n_vocab]
    t = 1.0  # the temperature the running distribution is at
    keep = np.ones(len(z), dtype=bool)  # [n_vocab]: not cut by any stage so far
    p = sampling.probabilities(z, t) if exact_probs is None else exact_probs  # [n_vocab]
    ranked = None  # the ranking, once a truncation needs it; penalties change it
    stages = []
    for name in check_chain(s.chain):
        setting = stage_setting(name, s)
        p_in, z_in, t_in, n_changed = p, z, t, 0
        if setting is None:
            pass
        elif name == "penalties":
            z = penalise(z, window, generated, *setting, scale=t)
            # what the class can see change: a token an earlier stage cut stays at 0 whatever its logit
            n_changed, ranked = int(((z != z_in) & keep).sum()), None
            if exact_probs is not None and not np.array_equal(z, z_in):
                exact_probs = None  # softmax(z) is no longer the typed probabilities: floats from here on
            p = at_temperature(z, t, keep, exact_probs)
        elif name == "temperature":
            t = setting
            p = at_temperature(z, t, keep, exact_probs)  # keep all True: softmax(z / T) itself
            keep &= p > 0  # T = 0 keeps only the argmax
        else:
            ranked = sampling.order(p, z) if ranked is None else ranked
            mask = truncation_mask(name, p, ranked, setting)
            keep &= mask
            p = sampling.renormalise(p, mask)
        stages.append(Stage(name=name, setting=setting, temperature=t_in,
                            probs_in=floats(p_in), probs_out=floats(p), logits_out=z, n_in=int((p_in > 0).sum()),
                            n_kept=int((p > 0).sum()), mass_kept=float(p_in[p > 0].sum()), n_changed=n_changed))
    return p, stages


def at_temperature(z: np.ndarray, t: float, keep: np.ndarray, exact_probs: np.ndarray | None = None) -> np.ndarray:
    """softmax(z / T) over the kept tokens, 0 for the others. [n_vocab]

    With exact_probs (softmax(z) as fractions, exact.py) and T = 1, those fractions renormalised over the
    kept tokens: the same distribution, exactly. At any other T, floats.
    """
    if exact_probs is not None and t == 1:
        return sampling.renormalise(exact_probs, keep)
    return sampling.probabilities(np.where(keep, z, -np.inf), t)


def uncut(logits: np.ndarray, penalised: np.ndarray, t: float, exact_probs: np.ndarray | None = None) -> np.ndarray:
    """softmax(penalised / T) over every token: the distribution at T before any cut, as floats. [n_vocab]

    The nearest floats to exact_probs where the chain works on them (T = 1, no penalty moved a logit).
    """
    if exact_probs is not None and t == 1 and np.array_equal(penalised, logits):
        return floats(exact_probs)
    return sampling.probabilities(penalised, t)


def floats(probs: np.ndarray) -> np.ndarray:
    """The probabilities as float64: fractions become the nearest floats; floats are handed back as they are."""
    return np.asarray(probs, dtype=np.float64)


def truncation_mask(name: str, probs: np.ndarray, ranked: np.ndarray, setting) -> np.ndarray:
    """The tokens top-k, top-p or min-p keeps of probs. [n_vocab] bool."""
    if name == "top_k":
        return sampling.top_k_mask(probs, ranked, setting)
    if exact.is_exact(probs):  # among fractions, top-p 0.9 is 9/10, not the float a little above it
        setting = exact.decimal(setting)
    if name == "top_p":
        return sampling.top_p_mask(probs, ranked, setting)
    return sampling.min_p_mask(probs, setting)


def cuts(stages: Sequence[Stage], probs: np.ndarray) -> list[sampling.Cut]:
    """What each truncation stage that is on cut, its mass measured in probs (the distribution at T before any cut).

    >>> from webapp.inference.settings import Settings
    >>> probs = np.array([0.5, 0.3, 0.2])
    >>> cuts(apply_chain(np.log(probs), Settings(top_k=2))[1], probs)
    [Cut(rule='top-k', setting=2, n_cut=1, mass_cut=0.2)]
    """
    out = []
    for stage in stages:
        if stage.name in TRUNCATIONS and stage.on:
            removed = (stage.probs_in > 0) & (stage.probs_out == 0)  # [n_vocab]
            out.append(sampling.Cut(TRUNCATIONS[stage.name], stage.setting, int(removed.sum()),
                                    float(probs[removed].sum())))
    return out
