"""What each stage of the sampler chain did at this step, in a sentence of its card (chain_view.py).

'Off: passed its 5,000 tokens on unchanged.', 'T = 0.5 sharpened the 5,000 tokens: ...'. A penalty or a
truncation first says its rule in plain words, then what it did this time: 'Top-k 5 keeps the 5 most likely
tokens and cuts the rest. This time it kept 62.0 % of the probability and cut 4,995 tokens.' A truncation
says at which temperature it saw the probabilities: T = 1 when the temperature stage comes after it.
"""

from __future__ import annotations

from markupsafe import Markup

from ...inference.chain import Stage
from ...inference.derived.table import StepResult
from ..i18n.filters import general, pct, thousands
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext


def sentence(step: StepResult, stage: Stage, title: str) -> Markup:
    """What the stage did at this step: 'Off: passed its 5,000 tokens on unchanged.', 'T = 0.5 sharpened ...'."""
    if not stage.on:
        return ngettext(
            "Off: passed its %(num)s token on unchanged.",
            "Off: passed its %(num)s tokens on unchanged.",
            stage.n_in,
            num=thousands(stage.n_in),
        )
    if stage.name == "penalties":
        return _join(
            _(
                "Penalties change the scores of tokens the text already has, most often to make them less likely, "
                "so that the model repeats itself less."
            ),
            ngettext(
                "This time they changed %(num)s score (logit); the top token now has %(p)s (was %(p_before)s).",
                "This time they changed %(num)s scores (logits); the top token now has %(p)s (was %(p_before)s).",
                stage.n_changed,
                num=thousands(stage.n_changed),
                p=pct(stage.top_out),
                p_before=pct(stage.top_in),
            ),
        )
    if stage.name == "temperature":
        return _temperature_sentence(stage)
    return _truncation_sentence(step, stage, title)


def _temperature_sentence(stage: Stage) -> Markup:
    """T = 0 kept the top token; below 1 it sharpened the distribution, above 1 it flattened it."""
    t, n = stage.setting, stage.n_in
    figures = {"t": general(t), "num": thousands(n), "p": pct(stage.top_out), "p_before": pct(stage.top_in)}
    if t == 0:
        return ngettext(
            "T = 0 (greedy) kept only the most probable of %(num)s token.",
            "T = 0 (greedy) kept only the most probable of %(num)s tokens.",
            n,
            **figures,
        )
    if t < 1:
        return ngettext(
            "T = %(t)s sharpened the %(num)s token: the top one has %(p)s (was %(p_before)s at T = 1).",
            "T = %(t)s sharpened the %(num)s tokens: the top one has %(p)s (was %(p_before)s at T = 1).",
            n,
            **figures,
        )
    if t > 1:
        return ngettext(
            "T = %(t)s flattened the %(num)s token: the top one has %(p)s (was %(p_before)s at T = 1).",
            "T = %(t)s flattened the %(num)s tokens: the top one has %(p)s (was %(p_before)s at T = 1).",
            n,
            **figures,
        )
    return ngettext(
        "T = %(t)s kept the %(num)s token: the top one has %(p)s (was %(p_before)s at T = 1).",
        "T = %(t)s kept the %(num)s tokens: the top one has %(p)s (was %(p_before)s at T = 1).",
        n,
        **figures,
    )


def _truncation_sentence(step: StepResult, stage: Stage, title: str) -> Markup:
    """The rule of top-k, top-p or min-p, then what it kept and cut, and at which temperature it saw them."""
    return _join(_rule(stage, title), _what_it_did(step, stage))


def _rule(stage: Stage, title: str) -> Markup:
    """The truncation's rule in plain words, with its setting: 'Top-k 5 keeps the 5 most likely tokens ...'."""
    setting = general(stage.setting)
    if stage.name == "top_k":
        return ngettext(
            "%(stage)s %(num)s keeps only the most likely token and cuts the rest.",
            "%(stage)s %(num)s keeps the %(num)s most likely tokens and cuts the rest.",
            stage.setting,
            stage=title,
            num=thousands(stage.setting),
        )
    if stage.name == "top_p":
        return _(
            "%(stage)s %(p)s keeps the most likely tokens, largest first, until their probabilities add up to at "
            "least %(p)s (%(percent)s), and cuts the rest.",
            stage=title,
            p=setting,
            percent=pct(stage.setting),
        )
    return _(
        "%(stage)s %(p)s keeps every token at least %(p)s times as likely as the most likely one "
        "(here: at least %(floor)s), and cuts the rest.",
        stage=title,
        p=setting,
        floor=pct(stage.min_p_floor, 2),
    )


def _what_it_did(step: StepResult, stage: Stage) -> Markup:
    """How many tokens it kept and cut this time, with their share of the probability it saw."""
    figures = {
        "num": thousands(stage.n_kept),
        "mass": pct(stage.mass_kept),
        "t": general(stage.temperature),
        "cut": thousands(stage.n_cut),
    }
    settings = step.settings
    if stage.temperature != 1:
        # Translators: "This time it kept 5 tokens, 62.0 % of the probability (at T = 0.5), and cut 4,995."
        return ngettext(
            "This time it kept %(num)s token, %(mass)s of the probability (at T = %(t)s), and cut %(cut)s.",
            "This time it kept %(num)s tokens, %(mass)s of the probability (at T = %(t)s), and cut %(cut)s.",
            stage.n_kept,
            **figures,
        )
    if settings.temperature != 1 and "temperature" in settings.chain:
        return ngettext(
            "This time it kept %(num)s token, %(mass)s of the probability (at T = 1: the temperature comes later), "
            "and cut %(cut)s.",
            "This time it kept %(num)s tokens, %(mass)s of the probability (at T = 1: the temperature comes later), "
            "and cut %(cut)s.",
            stage.n_kept,
            **figures,
        )
    return ngettext(
        "This time it kept %(num)s token, %(mass)s of the probability, and cut %(cut)s.",
        "This time it kept %(num)s tokens, %(mass)s of the probability, and cut %(cut)s.",
        stage.n_kept,
        **figures,
    )


def _join(*sentences: Markup) -> Markup:
    """Sentences one after the other, a space between."""
    return Markup(" ").join(sentences)
