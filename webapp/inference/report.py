"""A step as plain JSON-ready values: the numbers the JSON API and `trace --json` print."""

from __future__ import annotations

import math
from dataclasses import asdict

from .model import LanguageModel
from .step import StepResult, text_of


def _row(row) -> dict:
    """A row as a dict; a logit / T that overflowed (T near 0) becomes None, as JSON has no infinity."""
    d = asdict(row)
    if d["scaled"] is not None and not math.isfinite(d["scaled"]):
        d["scaled"] = None
    return d


def step_to_dict(model: LanguageModel, result: StepResult, full: bool = False) -> dict:
    """Everything about a step as dicts, lists, numbers and strings (no NumPy types).

    `text` is the text before the step; `text_after` has the pick appended.
    """
    s = result.settings
    generated = list(result.generated)
    out = {
        "prompt": result.prompt,
        "model": result.model,
        "n_vocab": model.n_vocab,
        "n_ctx": model.n_ctx,
        "prompt_tokens": [
            {"id": t.id, "text": t.text, "source": t.source, "start": t.start, "end": t.end, "unk": t.unk}
            for t in result.prompt_tokens
        ],
        "generated": {"ids": generated, "tokens": [model.tokenizer.token_text(i) for i in generated]},
        "temperature": s.temperature,
        "top_k": s.top_k,
        "top_p": s.top_p,
        "min_p": s.min_p,
        "seed": s.seed,
        "step": result.step,
        "window_start": result.window_start,
        "r": result.r,
        "r_source": result.r_source,
        "chosen": _row(result.chosen),
        "rows": [_row(row) for row in result.rows],
        "rest": asdict(result.rest),
        "n_kept": result.n_kept,
        "kept_mass": result.kept_mass,
        "text": text_of(model, result.prompt, generated),
        "text_after": text_of(model, result.prompt, [*generated, result.chosen.id]),
    }
    if full:
        out["logits"] = result.logits.tolist()
    return out
