"""One step of the loop as a pure function, and the loop built from it.

A step does what one turn of llama2.c's generate() does: encode the prompt, run the forward pass,
run the sampler chain (penalties, temperature, truncation), lay the kept tokens' ranges end to end
on [0, 1), and pick the token whose range holds r. The same inputs give the same step: the r of
generation step i is `numpy.random.default_rng([seed, i]).random()`, so stepping back and forth,
or following a link, gives the same tokens. The table a screen shows is derived/table.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import chain, exact, sampling
from .errors import N_, InvalidSetting, InvalidTokenIds, PromptTooLong
from .model import LanguageModel
from .settings import Settings
from .tokenizer import Token

MAX_PROMPT_CHARS = 2000
MAX_TOKENS = 1024  # prompt + generated: a bound on the work one request can ask for


@dataclass(frozen=True, eq=False)
class Step:
    """Every number of one generation step, from the prompt's tokens to the pick."""

    prompt: str
    prompt_tokens: tuple[Token, ...]
    generated: tuple[int, ...]  # ids generated before this step: the step's index is len(generated)
    settings: Settings
    context_ids: tuple[int, ...]  # what the forward pass was given: context_ids below
    window_start: int  # first position of the text (prompt and generated) the model read (sliding window)
    logits: np.ndarray = field(repr=False)  # [n_vocab] the model's
    penalised: np.ndarray = field(repr=False)  # [n_vocab] the logits after the chain's penalties, if any
    probs: np.ndarray = field(repr=False)  # [n_vocab] softmax(penalised / T), before any cut
    probs_kept: np.ndarray = field(repr=False)  # [n_vocab] after the whole chain: 0 where cut
    stages: tuple[chain.Stage, ...] = field(repr=False)  # what each stage of the chain did
    ranked: np.ndarray = field(repr=False)  # [n_vocab] ids, most probable first
    laid: np.ndarray = field(repr=False)  # [n_kept] the kept ids in the order their ranges are laid
    lo: np.ndarray = field(repr=False)  # [n_kept] where each range starts on [0, 1)
    hi: np.ndarray = field(repr=False)  # [n_kept] where it ends
    pick_probs: np.ndarray = field(repr=False)  # [n_vocab] what r is read against: probs_kept, or its fractions
    r: float
    r_source: str  # "seed": default_rng([seed, step]); "given": supplied by the caller
    chosen_id: int


def encode_prompt(model: LanguageModel, prompt: str) -> tuple[Token, ...]:
    if len(prompt) > MAX_PROMPT_CHARS:
        raise PromptTooLong(N_("the prompt has %(n)s characters; the limit is %(limit)s"), n=len(prompt),
                            limit=MAX_PROMPT_CHARS)
    tokens = tuple(model.tokenizer.encode(prompt))
    if len(tokens) >= MAX_TOKENS:  # 2,000 characters of punctuation are 2,000 tokens
        raise PromptTooLong(N_("the prompt has %(n)s tokens; the limit is %(limit)s"), n=len(tokens),
                            limit=MAX_TOKENS - 1)
    return tokens


def context_ids(model: LanguageModel, prompt_tokens: Sequence[Token], generated: Sequence[int] = ()) -> list[int]:
    """The ids the forward pass is given at a step: the prompt's, then the generated ones.

    An empty prompt is the start of a text, which the model reads as its start token (model.start_id:
    SmolLM2's <|endoftext|>, the GPT's <p>): it stays first at every step, as it was when the first
    token was picked. The forward pass reads the last n_ctx of these ids: SmolLM2's 2,048 hold every
    step the app allows; past the GPT's 128 the start token slides out of the window as the text's
    first tokens do.

    >>> from webapp.inference.machinery.registry import MODELS_DIR, load_model
    >>> gpt = load_model(MODELS_DIR / "austen-transformer")
    >>> [gpt.tokenizer.token_text(i) for i in context_ids(gpt, (), gpt.tokenizer.encode_ids("It is"))]
    ['<p>', 'It', 'is']
    >>> [gpt.tokenizer.token_text(i) for i in context_ids(gpt, gpt.tokenizer.encode("It"), [29])]  # a prompt: none
    ['It', 'is']
    """
    ids = [t.id for t in prompt_tokens]
    start = [model.start_id] if not ids and model.start_id is not None else []
    return [*start, *ids, *generated]


def check_generated(model: LanguageModel, n_prompt: int, generated: Sequence[int]) -> tuple[int, ...]:
    ids = tuple(int(i) for i in generated)
    model.tokenizer.check_ids(ids)
    if n_prompt + len(ids) >= MAX_TOKENS:
        raise InvalidTokenIds(N_("prompt and generated tokens come to %(n)s; the limit is %(limit)s"),
                              n=n_prompt + len(ids), limit=MAX_TOKENS - 1)
    return ids


def check_r(r: float) -> float:
    r = float(r)
    if not (math.isfinite(r) and 0 <= r < 1):
        raise InvalidSetting(N_("r must be a number in [0, 1), not %(value)s"), value=repr(r))
    return r


def run_step(model: LanguageModel, prompt: str, generated: Sequence[int] = (), settings: Settings = Settings(),
             r: float | None = None) -> Step:
    """Compute generation step len(generated): encode, forward, the sampler chain, the ranges, the pick.

    >>> from webapp.inference.article import ArticleModel  # the article's tokens A, B, C at 0.1, 0.2, 0.7
    >>> step = run_step(ArticleModel(), "", (), Settings(), r=0.2)  # laid largest first: r is in C's [0, 0.7)
    >>> step.probs.round(3).tolist(), step.laid.tolist(), step.hi.round(3).tolist(), step.chosen_id
    ([0.1, 0.2, 0.7], [2, 1, 0], [0.7, 0.9, 1.0], 2)
    """
    prompt_tokens = encode_prompt(model, prompt)
    generated = check_generated(model, len(prompt_tokens), generated)
    ids = [*(t.id for t in prompt_tokens), *generated]  # the text's
    window_start = max(0, len(ids) - model.n_ctx)  # the forward pass reads the last n_ctx ids
    context = context_ids(model, prompt_tokens, generated)  # ids, after the start token if the prompt is empty
    logits = np.asarray(model.logits(context), dtype=np.float64)  # [n_context] -> [n_vocab]
    # typed probabilities (the article's) go through the chain, ranges and pick as fractions (exact.py); the Step
    # keeps the nearest floats for the figures, and the fractions as pick_probs
    pick_probs, stages = chain.apply_chain(logits, settings, ids[window_start:], generated, model.exact_probs)
    penalised = stages[-1].logits_out if stages else logits  # [n_vocab]
    probs = chain.uncut(logits, penalised, settings.applied_temperature, model.exact_probs)  # [n_vocab], before cuts
    ranked = sampling.order(probs, penalised)  # [n_vocab] ids
    laid = sampling.layout(pick_probs, ranked, settings.range_order)  # [n_kept] ids
    lo, hi = sampling.ranges(pick_probs, laid)  # [n_kept] each
    r_source = "seed" if r is None else "given"
    r = sampling.random_r(settings.seed, len(generated)) if r is None else check_r(r)
    chosen_id = int(laid[sampling.pick(hi, exact.compared_r(r, r_source, hi))])
    return Step(prompt=prompt, prompt_tokens=prompt_tokens, generated=generated, settings=settings,
                context_ids=tuple(context), window_start=window_start, logits=logits, penalised=penalised, probs=probs,
                probs_kept=chain.floats(pick_probs), stages=tuple(stages), ranked=ranked, laid=laid,
                lo=chain.floats(lo), hi=chain.floats(hi), pick_probs=pick_probs, r=r, r_source=r_source,
                chosen_id=chosen_id)


def generate(model: LanguageModel, prompt: str, n_steps: int, settings: Settings = Settings(),
             generated: Sequence[int] = ()) -> list[Step]:
    """Run n_steps steps from the given ids, each appending its pick; return the steps."""
    ids, steps = list(generated), []
    for _ in range(n_steps):
        steps.append(run_step(model, prompt, ids, settings))
        ids.append(steps[-1].chosen_id)
    return steps


def undo(generated: Sequence[int]) -> tuple[int, ...]:
    """Drop the last generated id.

    >>> undo([5, 9, 2]), undo(())
    ((5, 9), ())
    """
    return tuple(generated[:-1])


def generated_pieces(model: LanguageModel, prompt: str, generated: Sequence[int]) -> list[str]:
    """Each generated token's text with the space before it, as it follows the prompt.

    >>> from webapp.inference.machinery.registry import MODELS_DIR, load_model
    >>> bigram = load_model(MODELS_DIR / "austen-bigram")
    >>> generated_pieces(bigram, "It is a truth", bigram.tokenizer.encode_ids("universally ,"))
    [' universally', ',']
    """
    if not generated:
        return []
    prompt_ids = [t.id for t in model.tokenizer.encode(prompt)]
    pieces = model.tokenizer.decode_pieces([*prompt_ids, *generated])[len(prompt_ids) :]
    if not prompt or prompt[-1].isspace():
        pieces[0] = pieces[0].lstrip(" ")
    return pieces


def text_of(model: LanguageModel, prompt: str, generated: Sequence[int]) -> str:
    """The prompt as typed, then the generated tokens, spaced as decode() spaces them.

    >>> from webapp.inference.article import ArticleModel  # tokens A, B, C, each with a space before it
    >>> text_of(ArticleModel(), "It is", [2, 1])
    'It is C B'
    """
    return prompt + "".join(generated_pieces(model, prompt, generated))
