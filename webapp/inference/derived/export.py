"""A step as plain JSON-ready values (the numbers the JSON API and `trace --json` print), and the CSV
downloads: the table of one step, headed by its prompt, settings and r; and the whole run, one line
per generated token."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict

from ..model import LanguageModel
from ..step import FORCED, N_ROWS, Settings, StepResult, run_step, text_of


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


def replay(model: LanguageModel, prompt: str, ids, sources, settings: Settings, n_rows: int = N_ROWS):
    """Each generated token's step, recomputed with today's settings as the screen does, with the rows
    the screen shows: the top n_rows, then the pick and the text's token if they rank below."""
    for i, token in enumerate(ids):
        given = None if isinstance(sources[i], str) else float(sources[i])
        result = run_step(model, prompt, ids[:i], settings, r=given, n_rows=n_rows)
        yield i, token, result.showing([result.chosen.id, token])


def trace_to_dict(model: LanguageModel, prompt: str, ids, sources, settings: Settings, n_rows: int = N_ROWS) -> dict:
    """Every generated token's step: settings, r, the pick, the token in the text, the rows on screen.

    sources[i] is SEEDED (picked by the seeded r), FORCED (chosen by hand) or a float (an r typed in).
    Every step is recomputed with today's settings, as the screen does.
    """
    steps = []
    for i, token, result in replay(model, prompt, ids, sources, settings, n_rows):
        steps.append({
            "step": i, "temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p,
            "min_p": settings.min_p, "seed": settings.seed, "r": result.r, "r_source": result.r_source,
            "pick": _row(result.chosen), "token_in_text": _row(result.row_of(token)),
            "forced": sources[i] == FORCED, "rows": [_row(row) for row in result.rows], "rest": asdict(result.rest),
        })
    return {"model": model.name, "prompt": prompt, "generated": list(ids),
            "text": text_of(model, prompt, list(ids)), "steps": steps}


# `tokens` is how many tokens a line stands for, `kept` how many of them are kept: 1 and 1 (or 0)
# for a token's line, the count and the kept count for the rest's.
CSV_COLUMNS = ("rank", "token", "id", "tokens", "logit", "scaled", "prob", "prob_t1", "kept", "prob_kept", "lo", "hi")


def _cells(values) -> list:
    return ["" if v is None else v for v in values]


def settings_lines(result: StepResult, taken: bool) -> list[tuple[str, object]]:
    """The CSV's heading: prompt, model, step, settings, and r once the step is taken (before, it is not drawn)."""
    s = result.settings
    lines = [("prompt", result.prompt), ("model", result.model), ("step", result.step),
             ("temperature", s.temperature), ("top_k", s.top_k), ("top_p", s.top_p), ("min_p", s.min_p),
             ("seed", s.seed)]
    return lines + [("r", result.r if taken else None), ("picked", result.chosen.id if taken else None)]


def rows_to_csv(result: StepResult, taken: bool = True) -> str:
    """The step's logits table as CSV: a heading (settings_lines), a blank line, the rows, and a last
    line for the rest of the vocabulary."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(_cells(line) for line in settings_lines(result, taken))
    writer.writerow([])
    writer.writerow(CSV_COLUMNS)
    for row in result.rows:
        d = _row(row) | {"tokens": 1, "kept": int(row.kept)}
        writer.writerow(_cells(d[c] for c in CSV_COLUMNS))
    rest = result.rest
    writer.writerow(_cells(["", f"{rest.count} other tokens", "", rest.count, "", "", rest.prob, "", rest.kept_count,
                            rest.prob_kept, rest.lo, rest.hi]))
    return out.getvalue()


def read_table_csv(text: str) -> tuple[dict[str, str], list[list[str]]]:
    """Read rows_to_csv back: ({'prompt': ..., 'temperature': '1.0', 'r': '0.73...', ...}, [columns, *lines])."""
    lines = list(csv.reader(io.StringIO(text)))
    blank = lines.index([])
    return dict(lines[:blank]), lines[blank + 1 :]


RUN_COLUMNS = ("step", "token", "id", "rank", "prob", "prob_kept", "r", "picked_by",
               "temperature", "top_k", "top_p", "min_p", "seed", "model", "prompt")
PICKED_BY = {"seed": "seeded r", "given": "typed r"}  # by the step's r_source, unless chosen by hand


def run_to_csv(model: LanguageModel, prompt: str, ids, sources, settings: Settings) -> str:
    """The whole run as CSV, one line per generated token: its step, the token, its rank and probability
    there, the r of that step, how the token was picked (seeded r, typed r, chosen by hand), the settings."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RUN_COLUMNS)
    s = settings
    for i, token, result in replay(model, prompt, ids, sources, settings, n_rows=0):
        row = result.row_of(token)
        how = "chosen by hand" if sources[i] == FORCED else PICKED_BY[result.r_source]
        writer.writerow(_cells([i, row.token, row.id, row.rank, row.prob, row.prob_kept, result.r, how,
                                s.temperature, s.top_k, s.top_p, s.min_p, s.seed, model.name, prompt]))
    return out.getvalue()
