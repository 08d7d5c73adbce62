"""A step as plain JSON-ready values (the numbers the JSON API and `trace --json` print), and the CSV
downloads: the table of one step, headed by its prompt, settings and r; and the whole run, one line
per generated token."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict

import numpy as np

from ..class_bigram import ClassBigram, MixedBigram
from ..machinery import cost
from ..model import LanguageModel
from ..settings import Settings
from ..step import context_ids, encode_prompt, text_of
from .table import N_ROWS, StepResult, run_step_table
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
        "context_ids": list(result.context_ids),
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
    if isinstance(model, (ClassBigram, MixedBigram)):
        out["class"] = class_to_dict(model, result)
    if full:
        out["logits"] = result.logits.tolist()
    return out


def class_to_dict(model: ClassBigram | MixedBigram, result: StepResult) -> dict:
    """The counts behind a class model's step: the row it reads (its nonzero counts by token), n_prev, the
    sentences, k and V, so that p = (count + k) / (n_prev + k * V); in a mix, w and each returned row's p_class
    and p_other, so that p = w * p_class + (1 - w) * p_other."""
    mixed = isinstance(model, MixedBigram)
    counted = (model.class_model if mixed else model).counted(result.context_ids)
    vocab = model.tokenizer.vocab
    out = {"prev": counted.prev, "n_prev": counted.n_prev, "n_sentences": counted.n_sentences, "k": counted.k,
           "n_vocab": counted.n_vocab,
           "counts": {vocab[i]: int(counted.counts[i]) for i in np.flatnonzero(counted.counts)},
           "w": model.w if mixed else 1.0}
    if mixed:
        p_class, p_other, _ = model.parts(result.context_ids)  # [n_vocab] each
        out["p_class"] = {vocab[row.id]: float(p_class[row.id]) for row in result.rows}
        out["p_other"] = {vocab[row.id]: float(p_other[row.id]) for row in result.rows}
    return out


def affordable_steps(model: LanguageModel, prompt: str, ids, seconds: float | None) -> int:
    """How many of the generated tokens' steps fit `seconds` of estimated work (machinery/cost.py); all if None."""
    if seconds is None:
        return len(ids)
    n_prompt = len(context_ids(model, encode_prompt(model, prompt)))  # an empty prompt's start token too
    return cost.affordable_steps(cost.steps_work(model, n_prompt, len(ids)), seconds)


def replay(model: LanguageModel, prompt: str, ids, settings: Settings, given_rs: Sequence[float | None],
           n_rows: int = N_ROWS, go_on: Callable[[], bool] | None = None):
    """Each generated token's step, recomputed with today's settings as the screen does, with the rows
    the screen shows: the top n_rows, then the pick and the text's token if they rank below. Step i
    draws given_rs[i], or the seeded r where that is None. Each reuses the keys and values of the one
    before (the KV cache); it stops before a step when go_on() says False."""
    for i, token in enumerate(ids):
        if go_on is not None and not go_on():
            return
        result = run_step_table(model, prompt, ids[:i], settings, r=given_rs[i], n_rows=n_rows)
        yield i, token, result.showing([result.chosen.id, token])


def trace_to_dict(model: LanguageModel, prompt: str, ids, settings: Settings, *, given_rs: Sequence[float | None],
                  forced: Sequence[bool], n_rows: int = N_ROWS, seconds: float | None = None,
                  go_on: Callable[[], bool] | None = None) -> dict:
    """Every generated token's step: settings, r, the pick, the token in the text, the rows on screen.

    How generated token i came about: given_rs[i] is the r given for its step (typed by the teacher),
    None where the seeded r picked it; forced[i] is True where it was chosen by hand from the table
    instead (its step draws the seeded r, whose pick the token replaced).
    Every step is recomputed with today's settings, as the screen does; each reuses the keys and
    values of the one before (the KV cache), so a step runs its new position, not its whole context.
    `seconds` bounds the estimated work (machinery/cost.py): the steps after the last that fits are
    left out, and the trace says how many ("complete": false). So are the steps after `go_on()`
    says False (a deadline), asked before each step.
    """
    steps = []
    for i, token, result in replay(model, prompt, ids[: affordable_steps(model, prompt, ids, seconds)], settings,
                                   given_rs, n_rows, go_on):
        steps.append({
            "step": i, "temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p,
            "min_p": settings.min_p, "seed": settings.seed, "r": result.r, "r_source": result.r_source,
            "pick": _row(result.chosen), "token_in_text": _row(result.row_of(token)),
            "forced": bool(forced[i]), "rows": [_row(row) for row in result.rows], "rest": asdict(result.rest),
            **settings_to_dict(settings), "stages": stages_to_list(result), "uncertainty": uncertainty_to_dict(result),
        })
    n_fit = len(steps)
    trace = {"model": model.name, "prompt": prompt, "generated": list(ids),
             "text": text_of(model, prompt, list(ids)), "steps": steps, "complete": n_fit == len(ids)}
    if n_fit < len(ids):
        trace["steps_left_out"] = len(ids) - n_fit
        trace["note"] = (f"Steps {n_fit} to {len(ids) - 1} are left out: recomputing them would take more than "
                         "the computing one request may use on the server. "
                         "`python -m webapp trace` prints every step in a terminal.")
    return trace


# `tokens` is how many tokens a line stands for, `kept` how many of them are kept: 1 and 1 (or 0)
# for a token's line, the count and the kept count for the rest's.
CSV_COLUMNS = ("rank", "token", "id", "tokens", "logit", "scaled", "prob", "prob_t1", "kept", "prob_kept", "lo", "hi")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet would run such a cell as a formula


def _cell(value):
    """A CSV cell: text that a spreadsheet would read as a formula gets a leading apostrophe.

    >>> _cell("=1+1"), _cell("-"), _cell("hello"), _cell(-3.2)  # numbers stay numbers
    ("'=1+1", "'-", 'hello', -3.2)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _cells(values) -> list:
    return ["" if v is None else _cell(v) for v in values]


def settings_lines(result: StepResult, taken: bool) -> list[tuple[str, object]]:
    """The CSV's heading: prompt, model, step, settings, and r once the step is taken (before, it is not drawn)."""
    s = result.settings
    lines = [("prompt", result.prompt), ("model", result.model), ("step", result.step),
             ("temperature", s.temperature), ("top_k", s.top_k), ("top_p", s.top_p), ("min_p", s.min_p),
             ("seed", s.seed), ("chain", ",".join(s.chain)), ("repetition_penalty", s.repetition_penalty),
             ("presence_penalty", s.presence_penalty), ("frequency_penalty", s.frequency_penalty),
             ("range_order", s.range_order)]
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
               "temperature", "top_k", "top_p", "min_p", "seed", "chain", "repetition_penalty", "presence_penalty",
               "frequency_penalty", "range_order", "model", "prompt")
PICKED_BY = {"seed": "seeded r", "given": "typed r"}  # by the step's r_source, unless chosen by hand


def run_to_csv(model: LanguageModel, prompt: str, ids, settings: Settings, *, given_rs: Sequence[float | None],
               forced: Sequence[bool], seconds: float | None = None, go_on: Callable[[], bool] | None = None) -> str:
    """The whole run as CSV, one line per generated token: its step, the token, its rank and probability
    there, the r of that step, how the token was picked (seeded r, typed r, chosen by hand), the settings.
    given_rs and forced say how each token came about, and `seconds` and `go_on` bound the work, as in
    trace_to_dict: past the budget it stops early, and its last line says so."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RUN_COLUMNS)
    s = settings
    n_done = 0
    for i, token, result in replay(model, prompt, ids[: affordable_steps(model, prompt, ids, seconds)], settings,
                                   given_rs, n_rows=0, go_on=go_on):
        n_done = i + 1
        row = result.row_of(token)
        how = "chosen by hand" if forced[i] else PICKED_BY[result.r_source]
        writer.writerow(_cells([i, row.token, row.id, row.rank, row.prob, row.prob_kept, result.r, how,
                                s.temperature, s.top_k, s.top_p, s.min_p, s.seed, ",".join(s.chain),
                                s.repetition_penalty, s.presence_penalty, s.frequency_penalty, s.range_order,
                                model.name, prompt]))
    if n_done < len(ids):
        writer.writerow(_cells([f"steps {n_done} to {len(ids) - 1} left out: more than one request may compute"]))
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
