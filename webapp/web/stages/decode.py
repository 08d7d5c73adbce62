"""Stage 5, decode: the text so far, the prompt and then each generated token as a button.

The id the step picked becomes text again and is appended; the next step reads it too. Each generated
token is a button that shows its step again; a token with no word of its own (a line break, spaces,
bytes of an unfinished character) shows a mark, explained under the text. Coloured by surprise, each
token is shaded by how unlikely it was when it was picked, and a table gives the text's log-probability
and perplexity. Every figure and sentence is written here, in the page's language; the template only
places them.

The article's model reads no text: its text is its own tokens only, and no sentence says a step reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...inference.derived.uncertainty import TextSurprise, text_surprise
from ...inference.errors import N_
from ...inference.step import generated_pieces
from ..i18n.filters import fixed, num
from ..i18n.labels import token_label
from ..i18n.translations import SLOT, filler, gettext
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext
from ..url.paths import path_for
from ..url.state import FORCED
from .folds import FoldView, fold_view
from .screen import Screen

SURPRISE_BINS = (1, 2, 4, 6, 8)  # bits: the upper ends of the text's shades; above 8 bits, the darkest

# What the text shows for a generated token that has no word of its own, and what that mark means.
MARKS = {
    "paragraph": ("¶", N_("a paragraph break")),
    "line": ("↵", N_("a line break")),
    "space": ("␣", N_("a token of spaces only")),
    "partial": ("◌", N_("bytes that do not make a whole character yet: the token after them completes it")),
}


@dataclass(frozen=True)
class Piece:
    """A generated token as the text shows it: the space before it, its word, and how it was picked."""

    space: str  # the spaces and line breaks before the word
    word: str  # '' for a paragraph break, a line break, spaces, or bytes of an unfinished character
    forced: bool  # chosen by hand from the table
    typed_r: float | None  # the r the teacher typed, if that picked it

    @classmethod
    def of(cls, text: str, source: str | float) -> Piece:
        """Split a generated token's text into its space and its word; `source` says how it was picked.

        >>> Piece.of(" universally", "s")
        Piece(space=' ', word='universally', forced=False, typed_r=None)
        >>> Piece.of("\\n\\n", 0.25)
        Piece(space='\\n\\n', word='', forced=False, typed_r=0.25)
        """
        word = text.lstrip(" \n")
        typed_r = None if isinstance(source, str) else source
        return cls(space=text[: len(text) - len(word)], word=word, forced=source == FORCED, typed_r=typed_r)

    @property
    def kind(self) -> str | None:
        """Which mark stands for a piece with no word (see MARKS): '\n\n' -> 'paragraph', '\n' -> 'line',
        ' ' -> 'space', '' (bytes of a character the next token completes) -> 'partial'; a word -> None."""
        if self.word:
            return None
        if not self.space:
            return "partial"
        return "paragraph" if "\n\n" in self.space else "line" if "\n" in self.space else "space"

    @property
    def mark(self) -> str:
        """The sign the text shows in place of a missing word: '¶', '↵', '␣' or '◌'."""
        return MARKS[self.kind][0] if self.kind else ""


@dataclass(frozen=True)
class TokenButton:
    """One generated token in the text: a button that shows its step again (at=index)."""

    index: int
    button: bool  # False for a token the screen's links leave out (a student's hidden pick): shown, not a button
    space_before: str  # a word's spaces and line breaks, before the button
    space_after: str  # the line break or spaces of a piece with no word, after its mark
    css_class: str  # 'gen', with 'surprise-3', 'gen-shown', 'gen-new', 'gen-forced' or 'gen-typed'
    title: Markup  # 'step 3, surprise 2.10 bits, chosen by hand'
    current: bool  # the step on screen
    text: str  # its word, its mark ('¶', '↵', '␣', '◌'), or '?' while the pick is hidden


@dataclass(frozen=True)
class SurpriseTable:
    """The legend of the text coloured by surprise, and the text's log-probability and perplexity both ways."""

    bins: tuple[str, ...]  # the legend's labels, shade 0 to 5: '0–1 bits', …, '8+ bits'
    n_tokens: int  # the generated tokens the figures are over; 0: no table
    log2_prob: str  # under the sampling distribution: '−12.34', or '−∞ (a token was cut)'
    perplexity: str  # '∞' once a token was cut
    log2_prob_model: str  # under the model at T = 1
    perplexity_model: str


@dataclass(frozen=True)
class Example:
    """The worked example: the shown step's id decoded and appended, and what the next step reads."""

    appended: Markup | None  # "id 42 → 'the', appended to the text."; None before the first step
    spaces_words: bool  # a word-level vocabulary: decoding puts the spaces between words back
    feeds_back: Markup | None  # 'The next step feeds all 8 ids back into the model.'


@dataclass(frozen=True)
class TextPanel:
    """Stage 5's panel: what became of the shown step's id, the text so far, its surprise, the worked example."""

    hidden: bool  # predict, then reveal: the pick is '?' and the worked example waits for Reveal
    appended: Markup | None  # "Id 42 → 'the', appended to the text. ..."; None before a step or while hidden
    revisitable: bool  # more than one generated token: the note says each can be clicked
    before_first: bool  # no step yet: the text is the prompt
    reads_prompt: bool  # False for the article's model: no prompt, and no step reads the text
    surprise_on: bool  # the text is coloured by surprise
    surprise_toggle: str  # this screen with the colouring turned the other way
    fields: tuple[tuple[str, str], ...]  # the state as the form's hidden inputs, `at` left out
    prompt: str  # '' for the article's model, whose text is its own tokens only
    buttons: tuple[TokenButton, ...]
    surprise: SurpriseTable | None  # when coloured by surprise
    marks: tuple[tuple[str, str], ...]  # the marks the text uses, each with its meaning: ('¶', 'a paragraph break')
    worked: FoldView
    example: Example


def present(screen: Screen) -> TextPanel:
    """The text panel of the screen."""
    state, links = screen.state, screen.links
    surprise = _text_surprise(screen)
    shown_pieces = pieces(screen)
    return TextPanel(
        hidden=screen.hidden,
        appended=_appended(screen),
        revisitable=len(state.ids) > 1,
        before_first=not screen.taken,
        reads_prompt=state.reads_prompt,
        surprise_on=state.surprise,
        surprise_toggle=links.url(path_for("stepper.show"), surprise=None if links.surprise else "1"),
        fields=tuple(links.fields("at")),
        prompt=state.text_prompt,
        buttons=_buttons(screen, shown_pieces, surprise),
        surprise=_surprise_table(surprise) if surprise else None,
        marks=marks(shown_pieces),
        worked=fold_view(screen, "worked-decode", "worked", _("Worked example")),
        example=_example(screen),
    )


def pieces(screen: Screen) -> tuple[Piece, ...]:
    """The generated tokens as the text shows them, each with how it was picked."""
    state = screen.state
    return tuple(map(Piece.of, generated_pieces(screen.model, state.text_prompt, state.ids), state.sources))


def _text_surprise(screen: Screen) -> TextSurprise | None:
    """Each generated token's surprise, when the text is coloured by it (never while a pick is hidden)."""
    state = screen.state
    if not state.surprise or screen.hidden:
        return None
    return text_surprise(screen.model, state.text_prompt, state.ids, state.settings)


def _appended(screen: Screen) -> Markup | None:
    """What became of the shown step's id: appended to the text just now, or read by every step after it."""
    if not screen.taken or screen.hidden:
        return None
    figures = {
        "id": screen.in_text,
        "token": screen.labels[screen.in_text],
        "n": screen.on_screen + 1,
        "total": len(screen.state.ids),
    }
    if not screen.state.reads_prompt:
        return _article_appended(screen, figures)
    if screen.latest and screen.forced:
        return _(
            "Id %(id)s → '%(token)s' (chosen by hand), appended to the text. The next step reads it too.", **figures
        )
    if screen.latest:
        return _("Id %(id)s → '%(token)s', appended to the text. The next step reads it too.", **figures)
    if screen.forced:
        return _(
            "Id %(id)s → '%(token)s' (chosen by hand), generated token %(n)s of %(total)s: every step after it read "
            "it too.",
            **figures,
        )
    return _("Id %(id)s → '%(token)s', generated token %(n)s of %(total)s: every step after it read it too.", **figures)


def _article_appended(screen: Screen, figures: dict) -> Markup:
    """What became of the shown step's id, for the article's model: appended, and read by no step."""
    if screen.latest and screen.forced:
        return _(
            "Id %(id)s → '%(token)s' (chosen by hand), appended to the text. This model does not read it: the next "
            "step gives the same scores.",
            **figures,
        )
    if screen.latest:
        return _(
            "Id %(id)s → '%(token)s', appended to the text. This model does not read it: the next step gives the same "
            "scores.",
            **figures,
        )
    if screen.forced:
        return _(
            "Id %(id)s → '%(token)s' (chosen by hand), generated token %(n)s of %(total)s: this model reads none of "
            "them.",
            **figures,
        )
    return _("Id %(id)s → '%(token)s', generated token %(n)s of %(total)s: this model reads none of them.", **figures)


def _buttons(screen: Screen, shown: tuple[Piece, ...], surprise: TextSurprise | None) -> tuple[TokenButton, ...]:
    """The text's buttons, one per generated token; the one on screen is '?' while its pick is hidden."""
    levels = [surprise_level(t.surprise) for t in surprise.tokens] if surprise else [None] * len(shown)
    hidden_at = screen.on_screen if screen.hidden else None
    last, reachable = len(shown) - 1, len(screen.links.ids)
    return tuple(
        TokenButton(
            index=i,
            button=i < reachable,
            space_before=piece.space if piece.word else "",
            space_after="" if piece.word else piece.space,
            css_class=button_class(piece, level, on_screen=i == screen.on_screen, new=i == last),
            title=title,
            current=i == screen.on_screen,
            text="?" if i == hidden_at else piece.word or piece.mark,
        )
        for i, (piece, level, title) in enumerate(zip(shown, levels, _titles(shown, surprise), strict=True))
    )


def _titles(shown: tuple[Piece, ...], surprise: TextSurprise | None) -> list[Markup]:
    """Each button's tooltip, 'step 3, surprise 2.10 bits, chosen by hand'; its words translated once."""
    # Translators: the parts of a generated token's tooltip: "step 3, surprise 2.10 bits, chosen by hand".
    step = filler(_("step %(i)s", i=SLOT))
    bits = filler(_(", surprise %(bits)s bits", bits=SLOT))
    by_hand = _(", chosen by hand")
    typed = filler(_(", r typed: %(r)s", r=SLOT))
    titles = []
    for i, piece in enumerate(shown):
        title = step(i)
        if surprise:
            title += bits(fixed(surprise.tokens[i].surprise, 2))
        if piece.forced:
            title += by_hand
        elif piece.typed_r is not None:
            title += typed(piece.typed_r)
        titles.append(title)
    return titles


def button_class(piece: Piece, level: int | None, on_screen: bool, new: bool) -> str:
    """A token button's classes: its shade of surprise, the step on screen, the newest, how it was picked.

    >>> button_class(Piece.of(" the", 0.5), 2, on_screen=True, new=True)
    'gen surprise-2 gen-shown gen-new gen-typed'
    """
    how = " gen-forced" if piece.forced else " gen-typed" if piece.typed_r is not None else ""
    shade = "" if level is None else f" surprise-{level}"
    return f"gen{shade}{' gen-shown' * on_screen}{' gen-new' * new}{how}"


def surprise_level(bits: float) -> int:
    """The shade of a token of this surprise: 0 (under 1 bit) to 5 (8 bits or more, or cut: inf).

    >>> [surprise_level(b) for b in (0.5, 1.0, 3.9, 8.0, float("inf"))]
    [0, 1, 2, 5, 5]
    """
    return next((j for j, top in enumerate(SURPRISE_BINS) if bits < top), len(SURPRISE_BINS))


def surprise_bins() -> tuple[str, ...]:
    """The legend's labels, one per shade: '0–1 bits', '1–2 bits', … '8+ bits'."""
    edges = (0, *SURPRISE_BINS)
    return (
        *(gettext("%(low)s–%(high)s bits", low=a, high=b) for a, b in zip(edges, edges[1:], strict=False)),
        gettext("%(low)s+ bits", low=SURPRISE_BINS[-1]),
    )


def _surprise_table(surprise: TextSurprise) -> SurpriseTable:
    cut = surprise.log2_prob == float("-inf")  # a token the sampling distribution gave p = 0
    return SurpriseTable(
        bins=surprise_bins(),
        n_tokens=len(surprise.tokens),
        log2_prob=_("−∞ (a token was cut)") if cut else num(surprise.log2_prob, 2),
        perplexity="∞" if surprise.perplexity == float("inf") else fixed(surprise.perplexity, 2),
        log2_prob_model=num(surprise.log2_prob_model, 2),
        perplexity_model=fixed(surprise.perplexity_model, 2),
    )


def marks(shown: tuple[Piece, ...]) -> tuple[tuple[str, str], ...]:
    """The signs the text uses, in MARKS' order, each with what it stands for: (('¶', 'a paragraph break'),)."""
    kinds = {piece.kind for piece in shown}
    return tuple((sign, gettext(meaning)) for kind, (sign, meaning) in MARKS.items() if kind in kinds)


def _example(screen: Screen) -> Example:
    if not screen.taken:
        return Example(appended=None, spaces_words=False, feeds_back=None)
    return Example(
        appended=_(
            "id %(id)s → '%(token)s', appended to the text.",
            id=screen.in_text,
            token=token_label(screen.text_row.token),
        ),
        spaces_words=screen.model.tokenizer.unk_id is not None,
        feeds_back=feeds_back(len(screen.result.context_ids) + 1, screen.model.n_ctx)
        if screen.state.reads_prompt
        else _("This model reads none of the text: the next step gives the same scores."),
    )


def feeds_back(n_ids: int, n_ctx: int) -> Markup:
    """What the next step reads of the text's n_ids ids: all of them, or the last n_ctx (its context window)."""
    if n_ids <= n_ctx:
        return ngettext(
            "The next step feeds all %(num)s ids back into the model.",
            "The next step feeds all %(num)s ids back into the model.",
            n_ids,
        )
    return ngettext(
        "The next step feeds the last %(ctx)s of the %(num)s id (its context window) back into the model.",
        "The next step feeds the last %(ctx)s of the %(num)s ids (its context window) back into the model.",
        n_ids,
        ctx=n_ctx,
    )
