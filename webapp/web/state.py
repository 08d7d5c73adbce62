"""The screen's state, read from the query string and checked, and written back into URLs.

The server keeps no per-user state: everything that decides a screen travels in the
URL, so a link, a reload or the browser's Back button reproduces it exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from urllib.parse import urlencode

from ..inference import InferenceError, Settings, get_model
from ..inference.model import Tokenizer
from ..inference.step import FORCED, MAX_PROMPT_CHARS, MAX_TOKENS, SEEDED

DEFAULT_PROMPT = "It is a truth universally acknowledged, that a single man"
DEFAULT_SEED = 1
MAX_TEMPERATURE = 5.0
MAX_TOP_K = 2**63 - 1  # far beyond any vocabulary (a larger top-k cuts nothing more), and fits a float
MAX_QUERY_CHARS = 100  # a vocabulary search

QUERY_SAFE = "!$'()*,/:;?@"  # what url_for leaves unescaped in a query string
SHARE_SAFE = ","  # a link pasted into a chat or an e-mail: many end a link at a quote or a bracket
# The state the controls form holds in hidden inputs: the rest have a visible control of their own.
# `guide` is not carried: the guided run belongs to the link that asked for it.
HIDDEN_FIELDS = ("ids", "src", "at", "reveal", "present")


class InvalidInput(InferenceError):
    """A query parameter that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class State:
    """What the screen shows: the prompt, the model, the ids generated so far, the settings.

    `sources` says for each generated id how it was picked: SEEDED (by the seeded r),
    FORCED (chosen by hand from the table), or a float (by an r the teacher typed).
    `at` shows an earlier step again; `next_r` is the teacher's r for the next Step.
    """

    prompt: str
    model: str
    ids: tuple[int, ...]
    settings: Settings
    sources: tuple[str | float, ...] = ()
    at: int | None = None
    next_r: float | None = None
    predict: bool = False
    revealed: bool = False
    present: bool = False
    guide: bool = False  # guided mode: worked examples open, the first-run hints shown

    def __post_init__(self):
        if not self.sources:
            object.__setattr__(self, "sources", (SEEDED,) * len(self.ids))

    def query(self) -> dict[str, str]:
        """The state as query parameters, empty settings left out."""
        s = self.settings
        q = {"prompt": self.prompt, "model": self.model, "temperature": repr(s.temperature), "seed": str(s.seed)}
        for name in ("top_k", "top_p", "min_p"):
            if getattr(s, name) is not None:
                q[name] = repr(getattr(s, name))  # exact: a float's repr reads back as the same float
        if self.ids:
            q["ids"] = ",".join(map(str, self.ids))
        if any(source != SEEDED for source in self.sources):
            q["src"] = ",".join(source if isinstance(source, str) else repr(source) for source in self.sources)
        optional = {"at": self.at, "r": None if self.next_r is None else repr(self.next_r),
                    "predict": self.predict or None, "reveal": self.revealed or None, "present": self.present or None,
                    "guide": self.guide or None}
        q.update({k: "1" if v is True else str(v) for k, v in optional.items() if v is not None})
        return q

    @cached_property
    def _encoded(self) -> dict[str, str]:
        # Encoded once per state: a screen links every generated token to its step, and each
        # link repeats the whole state (ids and all).
        return self._encode_all(QUERY_SAFE)

    def _encode_all(self, safe: str) -> dict[str, str]:
        return {key: _encode(key, value, safe) for key, value in self.query().items()}

    def query_string(self, safe: str = QUERY_SAFE, **changes) -> str:
        """The state as url_for writes it into a query string; a change sets a key, None drops it.

        State(prompt="a b", model="m", ids=(4, 2), ...).query_string(at=1)
        -> 'prompt=a+b&model=m&temperature=1.0&seed=1&ids=4,2&at=1'
        `safe` is what stays unescaped: SHARE_SAFE for a link to paste elsewhere.
        """
        parts = dict(self._encoded if safe == QUERY_SAFE else self._encode_all(safe))
        for key, value in changes.items():
            if value is None:
                parts.pop(key, None)
            else:
                parts[key] = _encode(key, value, safe)
        return "&".join(parts.values())

    def url(self, path: str, safe: str = QUERY_SAFE, **changes) -> str:
        """The address of path with this state (and changes) in its query string: '/step?prompt=...'."""
        query = self.query_string(safe, **changes)
        return f"{path}?{query}" if query else path

    def hidden_fields(self) -> list[tuple[str, str]]:
        """(name, value) of each hidden input of the controls form: the state no visible control holds.

        `ids` is always there (empty before any Step); the others only when set, as in the URL.
        """
        q = self.query()
        return [(name, q.get(name, "")) for name in HIDDEN_FIELDS if name in q or name == "ids"]

    @property
    def shown(self) -> int | None:
        """The generation index of the step on screen: `at`, else the last one, else None."""
        return self.at if self.at is not None else (len(self.ids) - 1 if self.ids else None)

    def given_r(self, i: int) -> float | None:
        """The r the teacher typed for step i, if any."""
        source = self.sources[i]
        return None if isinstance(source, str) else source

    def branched(self, i: int, token_id: int, source: str | float) -> State:
        """Put token_id at generation index i and drop what came after: i = len(ids) appends."""
        return replace(self, ids=(*self.ids[:i], token_id), sources=(*self.sources[:i], source),
                       at=None, next_r=None, revealed=False)

    def truncated(self, n: int) -> State:
        """Keep the first n generated tokens: truncated(len - 1) is Back, truncated(0) is Reset."""
        return replace(self, ids=self.ids[:n], sources=self.sources[:n], at=None, revealed=False)


def _encode(key: str, value, safe: str) -> str:
    return urlencode({key: value}, safe=safe)


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


def check_prompt(prompt: str) -> str:
    """Return the prompt if it is within MAX_PROMPT_CHARS; else say how long it is."""
    if len(prompt) > MAX_PROMPT_CHARS:
        raise InvalidInput(f"the prompt has {len(prompt):,} characters; the limit is {MAX_PROMPT_CHARS:,}")
    return prompt


def model_name(args: Mapping[str, str], default_model: str) -> str:
    """The model the query names, or the default when it names none."""
    return args.get("model", "").strip() or default_model


def parse_settings(args: Mapping[str, str]) -> Settings:
    """Read temperature, truncation and seed; Settings checks their ranges."""
    temperature = _number(args, "temperature", float, 1.0)
    if not 0 <= temperature <= MAX_TEMPERATURE:
        raise InvalidInput(f"temperature must be from 0 to {MAX_TEMPERATURE:g}, not {temperature:g}")
    top_k = _number(args, "top_k", int, None)
    if top_k is not None and top_k > MAX_TOP_K:
        raise InvalidInput(f"top-k must be at most {MAX_TOP_K:,}, not {str(top_k)[:20]}…")
    return Settings(temperature=temperature, top_k=top_k,
                    top_p=_number(args, "top_p", float, None), min_p=_number(args, "min_p", float, None),
                    seed=_number(args, "seed", int, DEFAULT_SEED))


def parse_state(args: Mapping[str, str], models: Mapping, default_model: str) -> State:
    """Read and check the state from query parameters; raise InvalidInput or InferenceError."""
    prompt = check_prompt(args.get("prompt", DEFAULT_PROMPT))
    model = model_name(args, default_model)
    vocabulary = get_model(models, model).tokenizer
    settings = parse_settings(args)
    ids = parse_ids(args.get("ids", ""))
    vocabulary.check_ids(ids)
    sources = parse_sources(args.get("src", ""), len(ids))
    at = _number(args, "at", int, None)
    if at is not None and not 0 <= at < len(ids):
        which = f"from 0 to {len(ids) - 1}" if ids else "and there are none yet"
        raise InvalidInput(f"at must be the index of a generated token, {which}; not {at}")
    next_r = _number(args, "r", float, None)
    if next_r is not None and not 0 <= next_r < 1:
        raise InvalidInput(f"r must be a number in [0, 1), not {next_r:g}")
    flags = {name: _flag(args, name) for name in ("predict", "reveal", "present", "guide")}
    return State(prompt=prompt, model=model, ids=ids, settings=settings, sources=sources, at=at, next_r=next_r,
                 predict=flags["predict"], revealed=flags["reveal"], present=flags["present"], guide=flags["guide"])


def parse_token(args: Mapping[str, str], vocabulary: Tokenizer) -> int:
    """The token id that `choose` puts in the text: '17' -> 17, checked against the vocabulary."""
    token = args.get("token", "").strip()
    if not (token.isascii() and token.isdigit()):
        raise InvalidInput(f"token must be a token id, not {token[:20]!r}")
    vocabulary.check_ids([int(token)])
    return int(token)


def parse_search(args: Mapping[str, str], default_model: str) -> tuple[str, str]:
    """(model name, search text) of a vocabulary search: a search longer than MAX_QUERY_CHARS is refused."""
    query = args.get("q", "")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"the search has {len(query):,} characters; the limit is {MAX_QUERY_CHARS}")
    return model_name(args, default_model), query


def _flag(args: Mapping[str, str], name: str) -> bool:
    value = args.get(name, "").strip().lower()
    if value not in ("", "0", "1", "on", "true", "false"):
        raise InvalidInput(f"{name} must be 1 or 0, not {value[:20]!r}")
    return value in ("1", "on", "true")


def parse_sources(text: str, n: int) -> tuple[str | float, ...]:
    """'s,f,0.25' -> ('s', 'f', 0.25): seeded, forced, typed r. '' -> all seeded."""
    if not text.strip():
        return (SEEDED,) * n
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != n:
        raise InvalidInput(f"src must have one entry per generated id ({n}), not {len(parts)}")
    return tuple(_source(p) for p in parts)


def _source(text: str) -> str | float:
    if text in (SEEDED, FORCED):
        return text
    try:
        r = float(text)
    except ValueError:
        r = math.nan
    if not (math.isfinite(r) and 0 <= r < 1):
        raise InvalidInput(f"each src entry must be s (seeded), f (forced) or an r in [0, 1), not {text[:20]!r}")
    return r
