"""The screen's state, read from the query string and checked, and written back into URLs.

The server keeps no per-user state: everything that decides a screen travels in the
URL, so a link, a reload or the browser's Back button reproduces it exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..inference import InferenceError, Settings, get_model
from ..inference.step import MAX_PROMPT_CHARS, MAX_SEED, MAX_TOKENS

DEFAULT_PROMPT = "It is a truth universally acknowledged, that a single man"
DEFAULT_SEED = 1
MAX_TEMPERATURE = 5.0


class InvalidInput(InferenceError):
    """A query parameter that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class State:
    """What the screen shows: the prompt, the model, the ids generated so far, the settings."""

    prompt: str
    model: str
    ids: tuple[int, ...]
    settings: Settings

    def query(self) -> dict[str, str]:
        """The state as query parameters, empty settings left out."""
        s = self.settings
        q = {"prompt": self.prompt, "model": self.model, "temperature": repr(s.temperature), "seed": str(s.seed)}
        for name in ("top_k", "top_p", "min_p"):
            if getattr(s, name) is not None:
                q[name] = repr(getattr(s, name))  # exact: a float's repr reads back as the same float
        if self.ids:
            q["ids"] = ",".join(map(str, self.ids))
        return q

    def with_ids(self, ids) -> State:
        return replace(self, ids=tuple(ids))


def _number(args: Mapping[str, str], name: str, kind, default):
    text = args.get(name, "")
    text = text.strip() if isinstance(text, str) else text
    if text == "":
        return default
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise InvalidInput(f"{name.replace('_', '-')} must be a number, not {text[:40]!r}") from None
    if kind is float and not math.isfinite(value):
        raise InvalidInput(f"{name.replace('_', '-')} must be a finite number, not {text[:40]!r}")
    return value


def parse_ids(text: str) -> tuple[int, ...]:
    """'12, 5,7' -> (12, 5, 7); '' -> ()."""
    text = text.strip()
    if not text:
        return ()
    parts = text.split(",")
    if len(parts) >= MAX_TOKENS:
        raise InvalidInput(f"ids has {len(parts):,} entries; the limit is {MAX_TOKENS - 1:,}")
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise InvalidInput("ids must be whole numbers separated by commas, e.g. 12,5,7") from None


def parse_state(args: Mapping[str, str], models: Mapping, default_model: str) -> State:
    """Read and check the state from query parameters; raise InvalidInput or InferenceError."""
    prompt = args.get("prompt", DEFAULT_PROMPT)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise InvalidInput(f"the prompt has {len(prompt):,} characters; the limit is {MAX_PROMPT_CHARS:,}")
    model = args.get("model", "").strip() or default_model
    vocabulary = get_model(models, model).tokenizer
    temperature = _number(args, "temperature", float, 1.0)
    if not 0 <= temperature <= MAX_TEMPERATURE:
        raise InvalidInput(f"temperature must be from 0 to {MAX_TEMPERATURE:g}, not {temperature:g}")
    seed = _number(args, "seed", int, DEFAULT_SEED)
    if not 0 <= seed <= MAX_SEED:
        raise InvalidInput(f"seed must be a whole number from 0 to {MAX_SEED}")
    settings = Settings(temperature, _number(args, "top_k", int, None), _number(args, "top_p", float, None),
                        _number(args, "min_p", float, None), seed)
    ids = parse_ids(args.get("ids", ""))
    vocabulary.check_ids(ids)
    return State(prompt, model, ids, settings)
