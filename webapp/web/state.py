"""The screen's state, read from the query string and checked, and written back into URLs.

The server keeps no per-user state: everything that decides a screen travels in the
URL, so a link, a reload or the browser's Back button reproduces it exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from urllib.parse import quote_plus

from ..inference import InferenceError, LanguageModel, Settings, get_model
from ..inference.article import ARTICLE, ArticleModel, ArticleScores
from ..inference.chain import DEFAULT_CHAIN, STAGES
from ..inference.errors import N_
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
# `guide` is not carried: the guided run (guide=1), or its absence on a shared link (guide=0), belongs
# to the link that asked for it.
HIDDEN_FIELDS = (
    "ids",
    "src",
    "at",
    "reveal",
    "present",
    "inside",
    "layer",
    "head",
    "near",
    "chain",
    "many",
    "surprise",
    "lang",
)
LANGUAGES = ("en", "es", "de", "fr", "zh")  # the page's languages (translations.py names them)
SAMPLE_MANY = (100, 1000, 10000)  # "Sample N times" from the step's final distribution
PENALTIES = ("repetition_penalty", "presence_penalty", "frequency_penalty")


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
    guide: bool | None = None  # True: worked examples open, the first-run hints shown; False: a shared link, no hints
    inside: bool = False  # the panel "Inside the forward pass" open
    layer: int | None = None  # its enlarged head: layer (from 1) and head (from 0); None: the panel's choice
    head: int | None = None
    near: int | None = None  # the position in the window whose embedding's neighbours it lists
    many: int | None = None  # "Sample N times": one of SAMPLE_MANY, or None
    surprise: bool = False  # the text coloured by how surprising each token was
    article: ArticleScores | None = None  # the article model's tokens and scores (model "article" only)
    lang: str | None = None  # the page's language, one of LANGUAGES; None: the browser's choice

    def __post_init__(self):
        if not self.sources:
            object.__setattr__(self, "sources", (SEEDED,) * len(self.ids))

    def query(self) -> dict[str, str]:
        """The state as query parameters, empty settings left out."""
        s = self.settings
        q = {"prompt": self.prompt, "model": self.model, "temperature": repr(s.temperature), "seed": str(s.seed)}
        for name in ("top_k", "top_p", "min_p", *PENALTIES):
            if getattr(s, name) is not None:
                q[name] = repr(getattr(s, name))  # exact: a float's repr reads back as the same float
        if s.chain != DEFAULT_CHAIN:  # old links have none, and keep their meaning
            q["chain"] = ",".join(s.chain) or "none"
        if s.range_order != "probability":
            q["range_order"] = s.range_order
        if self.article is not None:
            q.update(article_query(self.article))
        if self.ids:
            q["ids"] = ",".join(map(str, self.ids))
        if any(source != SEEDED for source in self.sources):
            q["src"] = ",".join(source if isinstance(source, str) else repr(source) for source in self.sources)
        optional = {
            "at": self.at,
            "r": None if self.next_r is None else repr(self.next_r),
            "predict": self.predict or None,
            "reveal": self.revealed or None,
            "present": self.present or None,
            "guide": self.guide,
            "inside": self.inside or None,
            "layer": self.layer,
            "head": self.head,
            "near": self.near,
            "many": self.many,
            "surprise": self.surprise or None,
            "lang": self.lang,
        }
        q.update({k: "1" if v is True else "0" if v is False else str(v) for k, v in optional.items() if v is not None})
        return q

    @cached_property
    def _encoded(self) -> dict[str, str]:
        # Encoded once per state: a screen links every generated token to its step, and each
        # link repeats the whole state (ids and all).
        return self._encode_all(QUERY_SAFE)

    @cached_property
    def _joined(self) -> str:
        return "&".join(self._encoded.values())

    def _encode_all(self, safe: str) -> dict[str, str]:
        return {key: _encode(key, value, safe) for key, value in self.query().items()}

    def query_string(self, safe: str = QUERY_SAFE, **changes) -> str:
        """The state as url_for writes it into a query string; a change sets a key, None drops it.

        State(prompt="a b", model="m", ids=(4, 2), ...).query_string(at=1)
        -> 'prompt=a+b&model=m&temperature=1.0&seed=1&ids=4,2&at=1'
        `safe` is what stays unescaped: SHARE_SAFE for a link to paste elsewhere.
        """
        if not changes and safe == QUERY_SAFE:
            return self._joined
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

    def fields(self, *leave_out: str) -> list[tuple[str, str]]:
        """(name, value) of every query parameter but those left out: a form that holds the whole state once."""
        return [(name, value) for name, value in self.query().items() if name not in leave_out]

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
        return replace(
            self,
            ids=(*self.ids[:i], token_id),
            sources=(*self.sources[:i], source),
            at=None,
            next_r=None,
            revealed=False,
        )

    @property
    def history_entry(self) -> str:
        """What gives the screen its own entry in the browser's history: the text and the step on screen.

        Step, Back, Reset, choose and viewing another step change it, and add an entry; a setting
        (temperature, truncation, seed, a mode, the prompt being typed) leaves it and replaces the
        entry. ids=(12, 5, 9) at 1 -> '12,5,9@1'; ids=(12, 5, 9) -> '12,5,9@2'; none -> '@'.
        """
        return ",".join(map(str, self.ids)) + "@" + ("" if self.shown is None else str(self.shown))

    @property
    def pick_hidden(self) -> bool:
        """Predict, then reveal: whether the screen hides a pick the seeded or the typed r made at its last step.

        Such a pick need not be named anywhere the class can read: Step from the state before it
        (see unpicked) takes it again. A token chosen by hand is the teacher's own, and is named.
        """
        return self.predict and not self.revealed and bool(self.ids) and self.at is None and self.sources[-1] != FORCED

    def unpicked(self) -> State:
        """The state before the last pick, with the r that made it: Step from here picks the same token.

        ids=(4, 2, 9), src seeded -> ids=(4, 2); src 's,s,0.25' -> ids=(4, 2), next_r=0.25.
        """
        i = len(self.ids) - 1
        return replace(self.truncated(i), next_r=self.given_r(i))

    def truncated(self, n: int) -> State:
        """Keep the first n generated tokens: truncated(len - 1) is Back, truncated(0) is Reset."""
        return replace(self, ids=self.ids[:n], sources=self.sources[:n], at=None, revealed=False)


def article_query(scores: ArticleScores) -> dict[str, str]:
    """The article model's tokens and scores as query parameters, left out where they are the defaults."""
    default = ArticleScores()
    q = {}
    if scores.tokens != default.tokens:
        q["vocab"] = ",".join(scores.tokens)
    if scores.scores != default.scores:
        q["scores"] = ",".join(map(repr, scores.scores))
    if scores.kind != default.kind:
        q["scores_as"] = scores.kind
    return q


def state_model(models: Mapping[str, LanguageModel], state: State) -> LanguageModel:
    """The model the state names: the article model is built from the state's own tokens and scores."""
    if state.model == ARTICLE:
        return ArticleModel(state.article or ArticleScores())
    return get_model(models, state.model)


def _encode(key: str, value, safe: str) -> str:
    """('prompt', 'a b', ',') -> 'prompt=a+b': what urlencode writes for one pair, without its checks."""
    return f"{quote_plus(key, safe)}={quote_plus(str(value), safe)}"


def _number(args: Mapping[str, str], name: str, kind, default):
    text = args.get(name, "")
    text = text.strip() if isinstance(text, str) else text
    if text == "":
        return default
    try:
        value = kind(text)
    except (TypeError, ValueError):
        message = (
            N_("%(name)s must be a whole number, not %(value)s")
            if kind is int
            else N_("%(name)s must be a number, not %(value)s")
        )
        raise InvalidInput(message, name=name.replace("_", "-"), value=repr(text[:40])) from None
    if kind is float and not math.isfinite(value):
        raise InvalidInput(
            N_("%(name)s must be a finite number, not %(value)s"), name=name.replace("_", "-"), value=repr(text[:40])
        )
    return value


def parse_ids(text: str) -> tuple[int, ...]:
    """'12, 5,7' -> (12, 5, 7); '' -> ()."""
    text = text.strip()
    if not text:
        return ()
    parts = text.split(",")
    if len(parts) >= MAX_TOKENS:
        raise InvalidInput(N_("ids has %(n)s entries; the limit is %(limit)s"), n=len(parts), limit=MAX_TOKENS - 1)
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise InvalidInput(N_("ids must be whole numbers separated by commas, e.g. 12,5,7")) from None


def check_prompt(prompt: str) -> str:
    """Return the prompt if it is within MAX_PROMPT_CHARS; else say how long it is."""
    if len(prompt) > MAX_PROMPT_CHARS:
        raise InvalidInput(
            N_("the prompt has %(n)s characters; the limit is %(limit)s"), n=len(prompt), limit=MAX_PROMPT_CHARS
        )
    return prompt


def model_name(args: Mapping[str, str], default_model: str) -> str:
    """The model the query names, or the default when it names none."""
    return args.get("model", "").strip() or default_model


def parse_settings(args: Mapping[str, str]) -> Settings:
    """Read temperature, truncation and seed; Settings checks their ranges."""
    temperature = _number(args, "temperature", float, 1.0)
    if not 0 <= temperature <= MAX_TEMPERATURE:
        raise InvalidInput(
            N_("temperature must be from 0 to %(max)s, not %(value)s"), max=MAX_TEMPERATURE, value=temperature
        )
    penalties = {name: _number(args, name, float, None) for name in PENALTIES}
    range_order = args.get("range_order", "").strip() or "probability"
    top_k = _number(args, "top_k", int, None)
    if top_k is not None and top_k > MAX_TOP_K:
        raise InvalidInput(N_("top-k must be at most %(max)s, not %(value)s…"), max=MAX_TOP_K, value=str(top_k)[:20])
    return Settings(
        temperature=temperature,
        top_k=top_k,
        top_p=_number(args, "top_p", float, None),
        min_p=_number(args, "min_p", float, None),
        seed=_number(args, "seed", int, DEFAULT_SEED),
        chain=parse_chain(args),
        range_order=range_order,
        **penalties,
    )


def parse_chain(args: Mapping[str, str]) -> tuple[str, ...]:
    """The chain's stages in order: 'top_k,temperature' -> ('top_k', 'temperature'); none given: the default.

    `set_chain` (a button of the chain's cards: move a stage, leave it out, a preset) wins over `chain`;
    'none' is the empty chain (plain softmax at T = 1). Settings checks the names.
    """
    text = (args.get("set_chain", "").strip() or args.get("chain", "").strip())[:200]
    if not text:
        return DEFAULT_CHAIN
    if text == "none":
        return ()
    names = tuple(name.strip() for name in text.split(","))
    if len(names) > len(STAGES):
        raise InvalidInput(N_("the chain has at most %(max)s stages, not %(n)s"), max=len(STAGES), n=len(names))
    return names


def parse_article(args: Mapping[str, str], model: str) -> ArticleScores | None:
    """The article model's tokens ('vocab=A,B,C'), scores ('scores=0.1,0.2,0.7') and their kind.

    None for every other model.
    """
    if model != ARTICLE:
        return None
    default = ArticleScores()
    tokens = tuple(t.strip() for t in args["vocab"].split(",")) if args.get("vocab", "").strip() else default.tokens
    scores = default.scores
    if args.get("scores", "").strip():
        parts = args["scores"].split(",")[:20]
        scores = tuple(_number({"scores": part}, "scores", float, math.nan) for part in parts)
    return ArticleScores(tokens=tokens, scores=scores, kind=args.get("scores_as", "").strip() or default.kind)


def parse_many(args: Mapping[str, str]) -> int | None:
    """'1000' -> 1000: how many times to sample the step's distribution, one of SAMPLE_MANY.

    `set_many` (the panel's buttons) wins over `many`; set_many=0 hides the histogram.
    """
    many = _number(args, "set_many", int, None)
    if many == 0:
        return None
    many = _number(args, "many", int, None) if many is None else many
    if many is not None and many not in SAMPLE_MANY:
        raise InvalidInput(
            N_("many must be one of %(choices)s, not %(value)s"),
            choices=", ".join(map(str, SAMPLE_MANY)),
            value=str(many),
        )
    return many


def parse_state(args: Mapping[str, str], models: Mapping, default_model: str) -> State:
    """Read and check the state from query parameters; raise InvalidInput or InferenceError."""
    prompt = check_prompt(args.get("prompt", DEFAULT_PROMPT))
    model = model_name(args, default_model)
    article = parse_article(args, model)
    vocabulary = (ArticleModel(article) if article else get_model(models, model)).tokenizer
    settings = parse_settings(args)
    ids = parse_ids(args.get("ids", ""))
    vocabulary.check_ids(ids)
    sources = parse_sources(args.get("src", ""), len(ids))
    at = _number(args, "at", int, None)
    if at is not None and not 0 <= at < len(ids):
        if ids:
            raise InvalidInput(
                N_("at must be the index of a generated token, from 0 to %(last)s; not %(value)s"),
                last=str(len(ids) - 1),
                value=str(at),
            )
        raise InvalidInput(
            N_("at must be the index of a generated token, and there are none yet; not %(value)s"), value=str(at)
        )
    next_r = _number(args, "r", float, None)
    if next_r is not None and not 0 <= next_r < 1:
        raise InvalidInput(N_("r must be a number in [0, 1), not %(value)s"), value=next_r)
    flags = {name: _flag(args, name) for name in ("predict", "reveal", "present", "inside", "surprise")}
    guide = _flag(args, "guide") if args.get("guide", "").strip() else None
    inside = {name: _number(args, name, int, None) for name in ("layer", "head", "near")}
    # The panel's buttons change one setting of a form that holds the others: set_head "layer,head", set_near.
    if args.get("set_head", "").strip():
        inside["layer"], inside["head"] = parse_layer_head(args["set_head"])
    if (near := _number(args, "set_near", int, None)) is not None:
        inside["near"] = near
    for name, value in inside.items():  # their upper bounds depend on the model and the window: the panel checks
        if value is not None and not 0 <= value <= MAX_TOKENS:
            raise InvalidInput(
                N_("%(name)s must be a whole number from 0 to %(max)s, not %(value)s"),
                name=name,
                max=str(MAX_TOKENS),
                value=str(value),
            )
    return State(
        prompt=prompt,
        model=model,
        ids=ids,
        settings=settings,
        sources=sources,
        at=at,
        next_r=next_r,
        predict=flags["predict"],
        revealed=flags["reveal"],
        present=flags["present"],
        guide=guide,
        inside=flags["inside"],
        many=parse_many(args),
        surprise=flags["surprise"],
        article=article,
        lang=parse_lang(args),
        **inside,
    )


def parse_lang(args: Mapping[str, str]) -> str | None:
    """'de' -> 'de' (the page's language); none given -> None (the browser's Accept-Language chooses)."""
    lang = args.get("lang", "").strip().lower()
    if lang and lang not in LANGUAGES:
        raise InvalidInput(
            N_("lang must be one of %(languages)s, not %(value)s"),
            languages=", ".join(LANGUAGES),
            value=repr(lang[:20]),
        )
    return lang or None


def parse_layer_head(text: str) -> tuple[int, int]:
    """'2,3' -> (2, 3): a layer and a head of the panel "Inside the forward pass", from one button."""
    parts = text.strip().split(",")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) < 6 for p in parts):
        raise InvalidInput(N_("set-head must be a layer and a head, e.g. 2,3; not %(value)s"), value=repr(text[:20]))
    return int(parts[0]), int(parts[1])


def parse_token(args: Mapping[str, str], vocabulary: Tokenizer) -> int:
    """The token id that `choose` puts in the text: '17' -> 17, checked against the vocabulary."""
    token = args.get("token", "").strip()
    if not (token.isascii() and token.isdigit()):
        raise InvalidInput(N_("token must be a token id, not %(value)s"), value=repr(token[:20]))
    vocabulary.check_ids([int(token)])
    return int(token)


def parse_search(args: Mapping[str, str], default_model: str) -> tuple[str, str]:
    """(model name, search text) of a vocabulary search: a search longer than MAX_QUERY_CHARS is refused."""
    query = args.get("q", "")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            N_("the search has %(n)s characters; the limit is %(limit)s"), n=len(query), limit=MAX_QUERY_CHARS
        )
    return model_name(args, default_model), query


def _flag(args: Mapping[str, str], name: str) -> bool:
    value = args.get(name, "").strip().lower()
    if value not in ("", "0", "1", "on", "true", "false"):
        raise InvalidInput(N_("%(name)s must be 1 or 0, not %(value)s"), name=name, value=repr(value[:20]))
    return value in ("1", "on", "true")


def parse_sources(text: str, n: int) -> tuple[str | float, ...]:
    """'s,f,0.25' -> ('s', 'f', 0.25): seeded, forced, typed r. '' -> all seeded."""
    if not text.strip():
        return (SEEDED,) * n
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != n:
        raise InvalidInput(
            N_("src must have one entry per generated id (%(n)s), not %(given)s"), n=str(n), given=str(len(parts))
        )
    return tuple(_source(p) for p in parts)


def _source(text: str) -> str | float:
    if text in (SEEDED, FORCED):
        return text
    try:
        r = float(text)
    except ValueError:
        r = math.nan
    if not (math.isfinite(r) and 0 <= r < 1):
        raise InvalidInput(
            N_("each src entry must be s (seeded), f (forced) or an r in [0, 1), not %(value)s"), value=repr(text[:20])
        )
    return r
