"""Read a request's query string into a State: each value checked, a bad one a 400 that says which and why.

What the state is and how it is written back into URLs is state.py; this module is the way in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...inference import Settings, get_model
from ...inference.article import ARTICLE, ArticleModel, ArticleScores
from ...inference.chain import DEFAULT_CHAIN, STAGES
from ...inference.class_bigram import DEFAULT_K, MAX_K
from ...inference.class_text import is_class_model
from ...inference.errors import N_
from ...inference.model import Tokenizer
from ...inference.step import MAX_PROMPT_CHARS, MAX_TOKENS
from ..i18n.languages import LANGUAGES
from .state import (
    DEFAULT_PROMPT,
    DEFAULT_SEED,
    FORCED,
    MAX_QUERY_CHARS,
    MAX_TEMPERATURE,
    MAX_TOP_K,
    PENALTIES,
    SAMPLE_MANY,
    SEEDED,
    TEACHER_VIEW,
    ClassMix,
    InvalidInput,
    State,
)


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

    None for every other model. ArticleScores checks them; a name left out between commas is refused here, where
    the list is split.
    """
    if model != ARTICLE:
        return None
    default = ArticleScores()
    tokens = tuple(t.strip() for t in args["vocab"].split(",")) if args.get("vocab", "").strip() else default.tokens
    if "" in tokens:  # 'cat,,dog' or 'cat,dog,': ArticleScores would name the empty token, which reads as nothing
        raise InvalidInput(N_("a token's name is missing: write one name between each two commas, as in cat,dog,bird"))
    scores = default.scores
    if args.get("scores", "").strip():
        parts = args["scores"].split(",")[:20]
        scores = tuple(_number({"scores": part}, "scores", float, math.nan) for part in parts)
    return ArticleScores(tokens=tokens, scores=scores, kind=args.get("scores_as", "").strip() or default.kind)


def parse_mix(args: Mapping[str, str], model: str) -> ClassMix | None:
    """A class model's k ('k=0.5', more than 0 and at most 1) and weight ('mix=0.7', from 0 to 1); None for other
    models."""
    if not is_class_model(model):
        return None
    k = _number(args, "k", float, DEFAULT_K)
    if not 0 < k <= MAX_K:
        raise InvalidInput(N_("k must be more than 0 and at most %(max)s, not %(value)s"), max=MAX_K, value=str(k))
    w = _number(args, "mix", float, 1.0)
    if not 0 <= w <= 1:
        raise InvalidInput(N_("the class's weight must be from 0 to 1, not %(value)s"), value=str(w))
    return ClassMix(k=k, w=w)


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
        mix=parse_mix(args, model),
        lang=parse_lang(args),
        teacher=parse_view(args),
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


def parse_view(args: Mapping[str, str]) -> bool:
    """'teacher' -> True: the teacher's view, every control open; 'student' or none -> False, the student's view."""
    view = args.get("view", "").strip().lower()
    if view not in ("", "student", TEACHER_VIEW):
        raise InvalidInput(N_("view must be student or teacher, not %(value)s"), value=repr(view[:20]))
    return view == TEACHER_VIEW


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
