"""Stage 1, encode: the prompt's tokens as chips, then the tokens generated so far.

The tokenizer cut the prompt into tokens and looked each up in the vocabulary; a chip shows a token's
text and id (a word the vocabulary lacks as <unk>, with the word it stood for) and links to it in the
vocabulary. The generated tokens follow, the newest marked; a chip the model no longer reads (before
its context window) is dimmed. The worked example says how this tokenizer cuts text and names the ids
the model sees. Every sentence is written here, in the page's language; the template only places them.

The article model reads no text: its stage 1 has no prompt box (PromptBox), its chips are the tokens it
wrote, none dimmed, and its worked example names its vocabulary instead of cutting a prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from flask import url_for
from markupsafe import Markup

from ...inference.tokenizer import Token
from ..i18n.filters import thousands
from ..i18n.labels import token_label
from ..i18n.translations import SLOT, filler
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext
from .folds import FoldView, fold_view
from .screen import Screen

SHOWN_IDS = 12  # the worked example lists the prompt's first ids, then '…'


@dataclass(frozen=True)
class PromptBox:
    """Stage 1's heading and the prompt box above the chips; the article model, which reads no text, has none."""

    reads_prompt: bool  # False: a sentence saying the model reads no text stands in the box's place
    prompt: str  # the box's text, as typed


@dataclass(frozen=True)
class PromptChip:
    """One token of the prompt: its text, its id, and a link to it in the vocabulary."""

    css_class: str  # 'chip', with 'chip-unk' (not in the vocabulary) and 'chip-outside' (before the window)
    title: Markup  # 'token id 42', or 'not in the vocabulary: zorblax'
    href: str  # the vocabulary page, searched for the token and scrolled to it
    label: str  # the token as it reads: '␣Paris', '<unk>'
    source: str | None  # the word an <unk> stands for; None for a token of the vocabulary
    id: int


@dataclass(frozen=True)
class GeneratedChip:
    """One generated token: its text and id, or '?' while predict-then-reveal hides the pick."""

    css_class: str  # 'chip chip-generated', with 'chip-new' (the last) and 'chip-outside' (before the window)
    title: Markup  # 'generated, token id 42'; 'Hidden until Reveal.' for the hidden pick
    hidden: bool  # the pick on screen, not revealed yet: the chip shows '?' and no id
    label: Markup
    id: int


@dataclass(frozen=True)
class Example:
    """The worked example: how the tokenizer cuts text, one token looked up, the ids the model sees."""

    cutting: Markup  # 'The prompt is cut into tokens: words, numbers and punctuation marks.'
    n_vocab_text: str
    lookup: Markup | None  # "'Mr' is id 42 in the vocabulary; 'xylophone' is not in it, ..."; None: no prompt
    ids: str | None  # '42, 3, 271, …': the prompt's first ids; None for an empty prompt
    vocab_url: str | None  # the vocabulary page; None for the article model, whose vocabulary `cutting` names


@dataclass(frozen=True)
class TokensPanel:
    """Stage 1's chips: how many tokens, each token, what the model no longer reads, the worked example."""

    counts: Markup  # '7 prompt tokens + 2 generated, from a vocabulary of 5,000.'
    n_unk: int  # the prompt's words not in the vocabulary, each now <unk>
    encodes_any_text: bool  # no <unk>: every byte is a token (a byte-level BPE vocabulary)
    reads_no_text: bool  # the article's model: its scores are typed, whatever came before; no prompt to cut
    prompt_chips: tuple[PromptChip, ...]
    generated_chips: tuple[GeneratedChip, ...]
    empty: bool  # no prompt and nothing generated yet
    window_note: Markup | None  # what the dimmed chips mean; None while every token is read
    worked: FoldView
    example: Example


def present(screen: Screen) -> TokensPanel:
    """The tokens panel of the screen: the prompt's tokens and the generated ones as chips."""
    step, ids = screen.result, screen.state.ids
    vocab_url = url_for("stepper.vocabulary", model=screen.model.name)
    n_vocab = screen.model.n_vocab
    reads = screen.state.reads_prompt  # the article's model reads no text: no <unk>, no bytes, no empty prompt
    window_start = step.window_start if reads else 0  # nor a window: it reads none of its tokens either
    return TokensPanel(
        counts=_counts(len(step.prompt_tokens), len(ids), n_vocab) if reads else _article_counts(len(ids), n_vocab),
        n_unk=sum(t.unk for t in step.prompt_tokens),
        encodes_any_text=screen.model.tokenizer.unk_id is None and reads,
        reads_no_text=not reads,
        prompt_chips=_prompt_chips(step.prompt_tokens, window_start, vocab_url),
        generated_chips=_generated_chips(screen, window_start),
        empty=not step.prompt_tokens and not ids and reads,
        window_note=_window_note(window_start, screen.model.n_ctx),
        worked=fold_view(screen, "worked-encode", "worked", _("Worked example")),
        example=_example(screen, vocab_url) if reads else _article_example(screen),
    )


def present_prompt_box(screen: Screen) -> PromptBox:
    """Stage 1's heading and prompt box: the article model's says it reads no text instead."""
    return PromptBox(reads_prompt=screen.state.reads_prompt, prompt=screen.state.prompt)


def _counts(n_prompt: int, n_generated: int, n_vocab: int) -> Markup:
    prompt_tokens = ngettext("%(num)s prompt token", "%(num)s prompt tokens", n_prompt)
    vocab = thousands(n_vocab)
    if n_generated:
        generated = ngettext("%(num)s generated", "%(num)s generated", n_generated)
        # Translators: "3 prompt tokens + 2 generated, from a vocabulary of 5,000."
        return _(
            "%(prompt_tokens)s + %(generated)s, from a vocabulary of %(vocab)s.",
            prompt_tokens=prompt_tokens,
            generated=generated,
            vocab=vocab,
        )
    return _("%(prompt_tokens)s, from a vocabulary of %(vocab)s.", prompt_tokens=prompt_tokens, vocab=vocab)


def _article_counts(n_generated: int, n_vocab: int) -> Markup:
    """The article model's count: no prompt, only the tokens it wrote."""
    # Translators: the article model reads no prompt: its text is only the tokens it wrote, from the few named for it.
    return ngettext(
        "%(num)s token written so far, from a vocabulary of %(vocab)s.",
        "%(num)s tokens written so far, from a vocabulary of %(vocab)s.",
        n_generated,
        vocab=thousands(n_vocab),
    )


def _prompt_chips(tokens: tuple[Token, ...], window_start: int, vocab_url: str) -> tuple[PromptChip, ...]:
    """The prompt's chips; each title's words translated once (a prompt can be dozens of tokens)."""
    known = filler(_("token id %(id)s", id=SLOT))
    unknown = filler(_("not in the vocabulary: %(word)s", word=SLOT))
    return tuple(
        PromptChip(
            css_class=chip_class("chip", unk=t.unk, outside=i < window_start),
            title=unknown(t.source) if t.unk else known(t.id),
            href=f"{vocab_url}&q={quote(t.text)}#t-{t.id}",  # quote as Jinja's urlencode does: '/' kept
            label=token_label(t.text),
            source=t.source if t.unk else None,
            id=t.id,
        )
        for i, t in enumerate(tokens)
    )


def _generated_chips(screen: Screen, window_start: int) -> tuple[GeneratedChip, ...]:
    """The generated tokens' chips, the last one new, those before window_start dimmed; the pick on screen is '?'
    while it is hidden."""
    ids, labels = screen.state.ids, screen.labels
    n_prompt = len(screen.result.prompt_tokens)
    title = filler(_("generated, token id %(id)s", id=SLOT))
    hidden_at = screen.on_screen if screen.hidden else None
    hidden_title = _("Hidden until Reveal.")  # its id would name the pick
    return tuple(
        GeneratedChip(
            css_class=chip_class("chip chip-generated", new=j == len(ids) - 1, outside=n_prompt + j < window_start),
            title=hidden_title if j == hidden_at else title(i),
            hidden=j == hidden_at,
            label=labels[i],
            id=i,
        )
        for j, i in enumerate(ids)
    )


def chip_class(base: str, unk: bool = False, new: bool = False, outside: bool = False) -> str:
    """A chip's classes: whether it is <unk>, the newest, or before the context window (dimmed).

    >>> chip_class("chip", unk=True, outside=True)
    'chip chip-unk chip-outside'
    """
    return base + " chip-unk" * unk + " chip-new" * new + " chip-outside" * outside


def _window_note(window_start: int, n_ctx: int) -> Markup | None:
    """What the dimmed chips mean, once the text is longer than the model's context window."""
    if not window_start:
        return None
    if n_ctx == 1:
        return _("This model reads only the last token; the dimmed ones before it do not count.")
    return ngettext(
        "The model reads only the last %(num)s token (its context window); the dimmed ones before it no longer count.",
        "The model reads only the last %(num)s tokens (its context window); the dimmed ones before them no longer "
        "count.",
        n_ctx,
    )


def _example(screen: Screen, vocab_url: str) -> Example:
    tokens = screen.result.prompt_tokens
    if screen.model.tokenizer.unk_id is None:
        cutting = _("The prompt is cut into tokens: pieces of words, each with the space before it.")
    else:
        cutting = _("The prompt is cut into tokens: words, numbers and punctuation marks.")
    return Example(
        cutting=cutting,
        n_vocab_text=thousands(screen.model.n_vocab),
        lookup=_lookup(tokens),
        ids=shown_ids([t.id for t in tokens]) if tokens else None,
        vocab_url=vocab_url,
    )


def _article_example(screen: Screen) -> Example:
    """The article model's worked example: no prompt to cut, its vocabulary named token by token.

    Tokens ('cat', 'dog', 'bird') -> "This model has no prompt to cut: its vocabulary is the 3 tokens named for
    it, numbered in the order typed: 'cat' is id 0, 'dog' is id 1, 'bird' is id 2."
    """
    n_vocab, labels = screen.model.n_vocab, screen.labels
    # Translators: one token of the article model's vocabulary and its id, in a list: "'cat' is id 0".
    names = Markup(", ").join(_("'%(token)s' is id %(id)s", token=labels[i], id=i) for i in range(n_vocab))
    return Example(
        cutting=_(
            "This model has no prompt to cut: its vocabulary is the %(n)s tokens named for it, numbered in the order "
            "typed: %(names)s.",
            n=n_vocab,
            names=names,
        ),
        n_vocab_text=thousands(n_vocab),
        lookup=None,
        ids=None,
        vocab_url=None,
    )


def _lookup(tokens: tuple[Token, ...]) -> Markup | None:
    """The prompt's first known token and first <unk>, looked up: whichever of the two it has."""
    known = next((t for t in tokens if not t.unk), None)
    unknown = next((t for t in tokens if t.unk), None)
    if known and unknown:
        return _(
            "'%(word)s' is id %(id)s in the vocabulary; '%(unknown)s' is not in it, so it becomes "
            "<code>&lt;unk&gt;</code> (id %(unk_id)s).",
            word=known.source,
            id=known.id,
            unknown=unknown.source,
            unk_id=unknown.id,
        )
    if known:
        return _("'%(word)s' is id %(id)s in the vocabulary.", word=known.source, id=known.id)
    if unknown:
        return _(
            "'%(unknown)s' is not in the vocabulary, so it becomes <code>&lt;unk&gt;</code> (id %(unk_id)s).",
            unknown=unknown.source,
            unk_id=unknown.id,
        )
    return None


def shown_ids(ids: list[int], most: int = SHOWN_IDS) -> str:
    """The first `most` ids, then '…' if there are more.

    >>> shown_ids([42, 3, 271], most=2)
    '42, 3, …'
    """
    return ", ".join(map(str, ids[:most])) + (", …" if len(ids) > most else "")
