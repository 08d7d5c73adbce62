"""What each stage of the sampler chain did at this step, in a sentence of its card (chain_view.py).

'Off: passed its 5,000 tokens on unchanged.', 'T = 0.5 sharpened the 5,000 tokens: ...', 'Top-k 5 kept 5
tokens, 62.0 % of the mass; cut 4,995.' A truncation says at which temperature it saw the probabilities:
T = 1 when the temperature stage comes after it.
"""

from __future__ import annotations

from markupsafe import Markup

from ...inference.chain import Stage
from ...inference.derived.table import StepResult
from ..i18n.filters import general, pct, thousands
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
        return ngettext(
            "Changed %(num)s logit of tokens the text already has; the top token now has %(p)s (was %(p_before)s).",
            "Changed %(num)s logits of tokens the text already has; the top token now has %(p)s (was %(p_before)s).",
            stage.n_changed,
            num=thousands(stage.n_changed),
            p=pct(stage.top_out),
            p_before=pct(stage.top_in),
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
    """What top-k, top-p or min-p kept and cut, and at which temperature it saw the probabilities."""
    figures = {
        "stage": title,
        "setting": general(stage.setting),
        "num": thousands(stage.n_kept),
        "mass": pct(stage.mass_kept),
        "t": general(stage.temperature),
        "cut": thousands(stage.n_cut),
    }
    settings = step.settings
    if stage.temperature != 1:
        # Translators: "Top-k 5 kept 5 tokens, 62.0 % of the mass; cut 4,995."
        return ngettext(
            "%(stage)s %(setting)s kept %(num)s token, %(mass)s of the mass (at T = %(t)s); cut %(cut)s.",
            "%(stage)s %(setting)s kept %(num)s tokens, %(mass)s of the mass (at T = %(t)s); cut %(cut)s.",
            stage.n_kept,
            **figures,
        )
    if settings.temperature != 1 and "temperature" in settings.chain:
        return ngettext(
            "%(stage)s %(setting)s kept %(num)s token, %(mass)s of the mass (at T = 1: temperature comes later); "
            "cut %(cut)s.",
            "%(stage)s %(setting)s kept %(num)s tokens, %(mass)s of the mass (at T = 1: temperature comes later); "
            "cut %(cut)s.",
            stage.n_kept,
            **figures,
        )
    return ngettext(
        "%(stage)s %(setting)s kept %(num)s token, %(mass)s of the mass; cut %(cut)s.",
        "%(stage)s %(setting)s kept %(num)s tokens, %(mass)s of the mass; cut %(cut)s.",
        stage.n_kept,
        **figures,
    )
