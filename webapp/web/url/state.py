"""The screen's state, and how it is written back into URLs (parse.py reads it from a query string).

The server keeps no per-user state: everything that decides a screen travels in the
URL, so a link, a reload or the browser's Back button reproduces it exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from urllib.parse import quote_plus

from ...inference import InferenceError, LanguageModel, Settings, get_model
from ...inference.article import ARTICLE, ArticleModel, ArticleScores
from ...inference.chain import DEFAULT_CHAIN
from ...inference.class_bigram import DEFAULT_K, MixedBigram
from ...inference.class_text import MIXED_WITH, is_class_model

# How a generated token came about, as the URL records it in `src`; a float in their place is an r
# the teacher typed in.
SEEDED = "s"  # picked by the seeded r: default_rng([seed, i]).random()
FORCED = "f"  # chosen by hand from the table

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
    "view",
    "lang",
)
# What a lesson's player decides, whatever a screen's state says: a lesson keeps none of them (lessons/).
PLAYER_KEYS = ("lang", "view", "guide")
TEACHER_VIEW = "teacher"  # view=teacher: every control open; the student's view (no `view`) folds some under More
SAMPLE_MANY = (100, 1000, 10000)  # "Sample N times" from the step's final distribution
PENALTIES = ("repetition_penalty", "presence_penalty", "frequency_penalty")


@dataclass(frozen=True)
class ClassMix:
    """A class model's smoothing k (`k=` in the URL) and the class's weight w when mixed with Austen's bigram
    (`mix=`; 1, the default, is the class's counts alone)."""

    k: float = DEFAULT_K
    w: float = 1.0


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
    mix: ClassMix | None = None  # a class model's k and weight (class models only)
    lang: str | None = None  # the page's language, one of LANGUAGES; None: the browser's choice
    teacher: bool = False  # the teacher's view (view=teacher): the controls a first-time student does not need, open

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
        if self.mix is not None:
            q.update({"k": repr(self.mix.k)} if self.mix.k != DEFAULT_K else {})
            q.update({"mix": repr(self.mix.w)} if self.mix.w != 1 else {})
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
            "view": TEACHER_VIEW if self.teacher else None,
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

        `ids` is always there (empty before any Step); the others only when set, as in the URL. The article
        model's screen shows no prompt box: the prompt is kept here, for a switch back to another model.
        """
        q = self.query()
        hidden = HIDDEN_FIELDS if self.reads_prompt else ("prompt", *HIDDEN_FIELDS)  # the article's has no prompt box
        return [(name, q.get(name, "")) for name in hidden if name in q or name == "ids"]

    @property
    def reads_prompt(self) -> bool:
        """Whether the model reads the prompt: the article model reads no text, whatever came before."""
        return self.model != ARTICLE

    @property
    def text_prompt(self) -> str:
        """The prompt the text starts with, and the model is given: none for the article model, whose text is its
        own tokens only. The prompt typed stays in the URL, for a switch back to another model.

        State(prompt="It is", model="article", ...) -> ''; State(prompt="It is", model="austen-bigram", ...) -> 'It is'.
        """
        return self.prompt if self.reads_prompt else ""

    @property
    def on_screen(self) -> int | None:
        """The generation index of the step on screen: `at`, else the last one, else None."""
        return self.at if self.at is not None else (len(self.ids) - 1 if self.ids else None)

    def given_r(self, i: int) -> float | None:
        """The r the teacher typed for step i, if any."""
        source = self.sources[i]
        return None if isinstance(source, str) else source

    @property
    def given_rs(self) -> tuple[float | None, ...]:
        """The r the teacher typed for each generated token, else None: src 's,f,0.25' -> (None, None, 0.25)."""
        return tuple(self.given_r(i) for i in range(len(self.ids)))

    @property
    def forced(self) -> tuple[bool, ...]:
        """Whether each generated token was chosen by hand from the table: src 's,f,0.25' -> (False, True, False)."""
        return tuple(source == FORCED for source in self.sources)

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
        return ",".join(map(str, self.ids)) + "@" + ("" if self.on_screen is None else str(self.on_screen))

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
        """Keep the first n generated tokens: truncated(len - 1) is Back, truncated(0) is Reset.

        A position chosen in the inside panel (near) is forgotten when tokens go: it may be past the shorter window.
        """
        near = self.near if n >= len(self.ids) else None
        return replace(self, ids=self.ids[:n], sources=self.sources[:n], at=None, revealed=False, near=near)


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
    """The model the state names: the article model is built from the state's own tokens and scores; a class model
    is smoothed with the state's k, and mixed with Austen's bigram at the state's weight."""
    if state.model == ARTICLE:
        return ArticleModel(state.article or ArticleScores())
    model = get_model(models, state.model)
    if is_class_model(state.model):
        mix = state.mix or ClassMix()
        model = model.with_k(mix.k)
        if mix.w < 1:
            model = MixedBigram(model, get_model(models, MIXED_WITH), mix.w)
    return model


def _encode(key: str, value, safe: str) -> str:
    """('prompt', 'a b', ',') -> 'prompt=a+b': what urlencode writes for one pair, without its checks."""
    return f"{quote_plus(key, safe)}={quote_plus(str(value), safe)}"
