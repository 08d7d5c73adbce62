"""How uncertain the step was, as the sampling panel shows it: entropy, effective vocabulary, top token, surprise.

The figures (webapp/inference/derived/uncertainty.py) are over the step's final distribution, the one r
samples from; the worked example writes the entropy's sum out, term by term, and compares the pick's
surprise with the entropy, the surprise of an average pick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from markupsafe import Markup

from ...inference.derived.uncertainty import Term, Uncertainty, uncertainty
from ..i18n.filters import fixed, pct, thousands
from ..i18n.labels import token_label
from ..i18n.translations import template_gettext as _
from .folds import FoldView, fold_view
from .screen import Screen


@dataclass(frozen=True, kw_only=True)
class TermView:
    """One term of the entropy's sum, written out: p × bits = term ('token')."""

    prob: str
    bits: str
    term: str
    token: str


@dataclass(frozen=True, kw_only=True)
class UncertaintyView:
    """The step's uncertainty figures, and its worked example."""

    entropy: str  # bits: '5.915'
    effective_vocab: str  # 2^H tokens: '60.33'
    top_token: str
    top_prob: str
    shows_surprise: bool  # the step was taken: its pick has a surprise
    surprise: str | None  # bits; None when the pick had p = 0 (infinitely surprising)
    worked: FoldView
    n_kept: int
    n_kept_text: str
    terms: tuple[TermView, ...]  # the largest terms of the sum
    more_terms: bool  # the sum has more terms than those
    max_entropy: str | None  # log2 n_kept, when more than one token is kept
    surprise_note: Markup | None  # the pick's surprise against an average pick's


def present(screen: Screen) -> UncertaintyView:
    """The uncertainty of the screen's step."""
    u = uncertainty(screen.result)
    surprise = None if u.surprise == math.inf else fixed(u.surprise, 3)
    return UncertaintyView(
        entropy=fixed(u.entropy, 3),
        effective_vocab=fixed(u.effective_vocab, 2),
        top_token=token_label(u.top_token),
        top_prob=pct(u.top_prob),
        shows_surprise=screen.taken,
        surprise=surprise,
        worked=fold_view(screen, "worked-uncertainty", "worked", _("Worked example")),
        n_kept=u.n_kept,
        n_kept_text=thousands(u.n_kept),
        terms=tuple(map(_term, u.terms)),
        more_terms=u.n_kept > len(u.terms),
        max_entropy=fixed(u.max_entropy, 3) if u.n_kept > 1 else None,
        surprise_note=surprise_note(u) if screen.taken and surprise is not None else None,
    )


def _term(t: Term) -> TermView:
    return TermView(prob=fixed(t.prob, 3), bits=fixed(t.bits, 3), term=fixed(t.term, 3), token=token_label(t.token))


def surprise_note(u: Uncertainty) -> Markup:
    """The pick's surprise, less or more than the entropy (an average pick's): 7.9 bits against 5.9 -> 'more'."""
    figures = {
        "token": token_label(u.picked_token),
        "p": fixed(u.picked_prob, 4),
        "bits": fixed(u.surprise, 3),
        "h": fixed(u.entropy, 3),
    }
    if u.surprise < u.entropy:
        return _(
            "'%(token)s' had p = %(p)s, so its surprise is −log<sub>2</sub> %(p)s = %(bits)s bits: less surprising "
            "than an average pick (%(h)s bits). An average pick is measured over every token, and most of them "
            "are even less likely than this one.",
            **figures,
        )
    return _(
        "'%(token)s' had p = %(p)s, so its surprise is −log<sub>2</sub> %(p)s = %(bits)s bits: more surprising "
        "than an average pick (%(h)s bits).",
        **figures,
    )
