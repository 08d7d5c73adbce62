"""A step as plain JSON-ready values: the numbers the JSON API and `trace --json` print."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict

from ..model import LanguageModel
from ..step import FORCED, Settings, StepResult, run_step, text_of
from .uncertainty import uncertainty


def _row(row) -> dict:
    """A row as a dict; a logit / T that overflowed (T near 0) becomes None, as JSON has no infinity."""
    d = asdict(row)
    if d["scaled"] is not None and not math.isfinite(d["scaled"]):
        d["scaled"] = None
    return d


def settings_to_dict(s: Settings) -> dict:
    """The chain's settings: its order, the penalties and the range order."""
    return {"chain": list(s.chain), "repetition_penalty": s.repetition_penalty, "presence_penalty": s.presence_penalty,
            "frequency_penalty": s.frequency_penalty, "range_order": s.range_order}


def stages_to_list(result: StepResult) -> list[dict]:
    """What each stage of the chain did: its setting, the temperature it saw, the tokens and mass it kept."""
    return [{"stage": st.name, "setting": list(st.setting) if isinstance(st.setting, tuple) else st.setting,
             "on": st.on, "temperature_in": st.temperature, "n_in": st.n_in, "n_kept": st.n_kept, "n_cut": st.n_cut,
             "mass_kept": st.mass_kept, "top_in": st.top_in, "top_out": st.top_out, "n_changed": st.n_changed}
            for st in result.stages]


def uncertainty_to_dict(result: StepResult) -> dict:
    """Entropy (bits), effective vocabulary, the top probability and the pick's surprise (bits)."""
    u = uncertainty(result)
    return {"entropy_bits": u.entropy, "effective_vocab": u.effective_vocab, "top_token": u.top_token,
            "top_prob": u.top_prob, "picked_prob": u.picked_prob,
            "surprise_bits": u.surprise if math.isfinite(u.surprise) else None}


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
        **settings_to_dict(s),
        "stages": stages_to_list(result),
        "uncertainty": uncertainty_to_dict(result),
    }
    if full:
        out["logits"] = result.logits.tolist()
    return out


def trace_to_dict(model: LanguageModel, prompt: str, ids, sources, settings: Settings, n_rows: int = 10) -> dict:
    """Every generated token's step: settings, r, the pick, the token in the text, the top rows.

    sources[i] is SEEDED (picked by the seeded r), FORCED (chosen by hand) or a float (an r typed in).
    Every step is recomputed with today's settings, as the screen does.
    """
    steps = []
    for i, token in enumerate(ids):
        given = None if isinstance(sources[i], str) else float(sources[i])
        result = run_step(model, prompt, ids[:i], settings, r=given, n_rows=n_rows)
        steps.append({
            "step": i, "temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p,
            "min_p": settings.min_p, "seed": settings.seed, "r": result.r, "r_source": result.r_source,
            "pick": _row(result.chosen), "token_in_text": _row(result.row_of(token)),
            "forced": sources[i] == FORCED, "rows": [_row(row) for row in result.rows], "rest": asdict(result.rest),
            **settings_to_dict(settings), "stages": stages_to_list(result), "uncertainty": uncertainty_to_dict(result),
        })
    return {"model": model.name, "prompt": prompt, "generated": list(ids),
            "text": text_of(model, prompt, list(ids)), "steps": steps}


CSV_COLUMNS = ("rank", "token", "id", "logit", "scaled", "prob", "prob_t1", "kept", "prob_kept", "lo", "hi")


def rows_to_csv(result: StepResult) -> str:
    """The step's logits table as CSV, with a last line for the rest of the vocabulary."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in result.rows:
        d = _row(row)
        writer.writerow(["" if d[c] is None else d[c] for c in CSV_COLUMNS])
    rest = result.rest
    writer.writerow(["", f"{rest.count} other tokens", "", "", "", rest.prob, "", rest.kept_count, rest.prob_kept,
                     "" if rest.lo is None else rest.lo, "" if rest.hi is None else rest.hi])
    return out.getvalue()


CHAIN_COLUMNS = ("stage", "setting", "temperature_in", "n_in", "n_kept", "n_cut", "mass_kept", "n_changed")


def chain_to_csv(result: StepResult) -> str:
    """The step's sampler chain as CSV: one line per stage, then the range order and the uncertainty figures."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CHAIN_COLUMNS)
    for d in stages_to_list(result):
        setting = d["setting"]
        d["setting"] = " ".join("" if v is None else repr(v) for v in setting) if isinstance(setting, list) else setting
        writer.writerow(["" if d[c] is None else d[c] for c in CHAIN_COLUMNS])
    writer.writerow(["range_order", result.settings.range_order])
    for key, value in uncertainty_to_dict(result).items():
        writer.writerow([key, "" if value is None else value])
    return out.getvalue()
