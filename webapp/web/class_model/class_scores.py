"""Held-out perplexity on a class model's page: its own model, its mix with Austen's bigram, and the app's
bundled models, each scoring the same left-out sentences (inference/derived/held_out.py).

The transformer reads each token of each sentence, so the sentences scored are bounded: at most MAX_SCORED,
and no more than fit in SCORE_SECONDS of estimated work (machinery/cost.scoring_work), which the route
declares (policy.Work.SCORE) so that the work budget charges it before it runs. The page says how many of the
left-out sentences were scored.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g

from ...inference.class_bigram import DEFAULT_K, ClassBigram, MixedBigram
from ...inference.class_text import MIXED_WITH, ClassText
from ...inference.derived.held_out import held_out_split, sentence_perplexity
from ...inference.machinery import cost
from ...inference.model import LanguageModel
from ..i18n.filters import fixed, thousands
from ..i18n.translations import gettext as _
from ..i18n.translations import ngettext

MAX_SCORED = 40  # left-out sentences scored by every model
SCORE_SECONDS = 0.5  # estimated, for all the models together: half the request's work budget
COMPARED = ("austen-bigram", "austen-transformer")  # the bundled models beside the class's, if this server has them
MIX_W = 0.5


@dataclass(frozen=True)
class Plan:
    """What the page scores: the models by their labels, the left-out sentences, and the first of them that fit."""

    models: tuple[tuple[str, LanguageModel], ...]
    n_kept: int
    left_out: tuple[str, ...]
    scored: tuple[str, ...]
    work: cost.Work


@dataclass(frozen=True)
class ScoreRow:
    label: str
    perplexity: str
    n_tokens: str
    own: bool  # the class's own model


@dataclass(frozen=True)
class Scores:
    """The comparison as the page shows it; `problem` instead of rows when nothing can be scored."""

    rows: tuple[ScoreRow, ...]
    scored_note: str
    problem: str | None


def sentence_work(models, sentence: str) -> cost.Work:
    return sum((cost.scoring_work(m, len(m.tokenizer.encode_ids(sentence))) for _, m in models), cost.Work())


def compared_models(text: ClassText, kept: list[str]) -> tuple[tuple[str, LanguageModel], ...]:
    """(label, model): the class's model counted from the kept sentences, its mix, and the bundled models."""
    shelf = current_app.extensions["models"]
    own = ClassBigram.build(kept, DEFAULT_K, limits=not text.pasted)
    models = [(_("This text's model (k = %(k)s)", k=f"{DEFAULT_K:g}"), own)]
    if MIXED_WITH in shelf:
        models.append((_("This text's model, mixed half and half with %(model)s", model=MIXED_WITH),
                       MixedBigram(own, shelf[MIXED_WITH], MIX_W)))
    return (*models, *((name, shelf[name]) for name in COMPARED if name in shelf))


def plan(text: ClassText) -> Plan:
    """The models and the left-out sentences that fit the bound, worked out once per request."""
    plans = g.setdefault("class_plans", {})
    if text.id not in plans:
        kept, left_out = held_out_split(text.sentences, limits=not text.pasted)
        models = compared_models(text, kept) if kept else ()
        total, scored = cost.Work(), []
        for sentence in left_out[:MAX_SCORED] if models else ():
            work = sentence_work(models, sentence)
            if scored and total.seconds + work.seconds > SCORE_SECONDS:
                break
            total, scored = total + work, [*scored, sentence]
        plans[text.id] = Plan(models=models, n_kept=len(kept), left_out=tuple(left_out), scored=tuple(scored),
                              work=total)
    return plans[text.id]


def estimate(text: ClassText) -> tuple[cost.Work, str]:
    """The page's work for the budget, and what it is in words."""
    p = plan(text)
    return p.work, ngettext("%(num)s sentence scored by %(models)s models",
                            "%(num)s sentences scored by %(models)s models", len(p.scored), models=len(p.models))


def scores(text: ClassText) -> Scores:
    """Each model's perplexity on the scored sentences, with the tokens it was pooled over."""
    p = plan(text)
    if not p.scored:
        return Scores(rows=(), scored_note="", problem=_(
            "There is nothing to test the model on: the last sentence of each paragraph (or of each student) is "
            "left out to test it, and the model is counted from the others, so it needs paragraphs of more than "
            "one sentence."))
    rows = []
    for i, (label, model) in enumerate(p.models):
        scored = sentence_perplexity(model, p.scored)
        rows.append(ScoreRow(label=label, perplexity=fixed(scored.perplexity, 1), n_tokens=thousands(scored.n_tokens),
                             own=i == 0))
    note = ngettext("%(num)s left-out sentence scored", "%(num)s left-out sentences scored", len(p.scored))
    if len(p.scored) < len(p.left_out):
        note = _("%(scored)s of %(all)s left-out sentences scored (the first ones: the others would take the "
                 "server too long)", scored=thousands(len(p.scored)), all=thousands(len(p.left_out)))
    return Scores(rows=tuple(rows), scored_note=note, problem=None)
