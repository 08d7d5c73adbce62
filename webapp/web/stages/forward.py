"""Stage 2, the forward pass: the logits table as its panel shows it.

The model read the context and gave every token of its vocabulary a logit z; the table shows the
top rows by rank, then the pick and the text's token where they rank further down, and a last row
that sums up the rest of the vocabulary, so that no probability is hidden. Every figure is written
here, in the page's language; the template only places them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup

from ...inference import Row
from ...inference.class_bigram import BOUNDARY, MixedBigram
from ...inference.derived import explain
from ...inference.derived.table import Rest
from ..i18n.filters import fixed, general, num, pct, readable, span, thousands
from ..i18n.glossary import term
from ..i18n.labels import token_label
from ..i18n.translations import SLOT, filler
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext
from .folds import FoldView, fold_view
from .screen import Screen
from .table_view import TableRow


@dataclass(frozen=True)
class LogitRow:
    """One row of the table, every figure written out."""

    marks: str  # the row's classes: 'cut', 'picked', 'forced', 'beyond', space-separated; or ''
    rank: int
    id: int
    label: Markup  # the token as the screen writes it, escaped
    picked_badge: Markup | None  # 'picked' ('r picked' when the teacher then chose another, 'r lands here' when
    # the settings changed since the text's token was picked)
    text_badge: Markup | None  # 'in the text': the text's token, when r now lands on another
    chosen: bool  # chosen by hand instead of the pick
    cut: bool  # cut by top-k, top-p or min-p
    zero: bool  # probability 0 at this temperature
    logit: str
    scaled: str  # z / T, '—' at T = 0
    prob: str
    prob_kept: str | None  # after truncation, where that changed it
    range: str
    choose_label: Markup | None  # the "choose" button's label; None for the token the text has
    class_share: str | None  # a class's mix: the share of the row's probability from the class's sentences


@dataclass(frozen=True)
class Cut:
    """One truncation rule's sentence: 'Top-k = 5 cut 4,995 tokens with 38.0 % of the probability'."""

    rule: str
    setting: str
    n_cut: int
    n_text: str
    mass: str


@dataclass(frozen=True)
class Example:
    """The worked example's figures: the model's two highest logits, and a bigram's counts."""

    n_vocab: int
    n_vocab_text: str
    top: tuple[tuple[Markup, str], ...]  # (token, logit) of the highest one or two
    bigram: BigramCounts | None
    counted: ClassCounts | None  # a class model's: the same, in the class's words


@dataclass(frozen=True)
class ClassMixView:
    """p = w × p_class + (1 − w) × p_Austen for the top token, and the class's share of it."""

    w: str  # '0.7'
    other_w: str  # '0.3'
    p_other: str
    prob: str
    share: str  # '97.4 %'
    share_note: Markup  # '97.4 % of this probability came from our sentences.'


@dataclass(frozen=True)
class ClassCounts:
    """A class model's top token counted from the class's sentences: p = (pair + k) / (prev + k × V), z = log(p)."""

    counted: Markup  # "'lunch' followed 'school' 4 times in our 23 sentences; 'school' appeared 9 times."
    smoothing: Markup  # 'k = 0.01 is added to every count, for each of the V = 40 words: ...'
    pair_text: str
    prev_text: str
    k: str
    n_vocab: str
    p_class: str
    p_decimal: str  # the token's probability as the log reads it: '0.338'
    logit: str
    mix: ClassMixView | None


@dataclass(frozen=True)
class BigramCounts:
    """p = (pair + k) / (prev + k × n_vocab) and z = log(p), written out."""

    prev: Markup
    token: Markup
    pair_count: int
    pair_text: str
    prev_count: int
    prev_text: str
    k: str
    n_vocab: str
    made_up: str  # k × n_vocab: '50'
    prob: str  # at T = 1
    logit: str


@dataclass(frozen=True)
class LogitsPanel:
    """Stage 2's panel: what the model read, the table, what truncation cut, the worked example."""

    hidden: bool  # predict, then reveal: the scores stay hidden until Reveal
    reads_text: bool  # False for the article's model, whose scores are typed: it reads nothing
    read: Markup  # 'It read 7 tokens (words or pieces of words). Its vocabulary ... has 5,000 tokens; ...'
    rows_note: Markup  # 'Here are the top 20, then the picked token from further down.'
    moved_note: Markup | None  # why "r lands here" is not the text's token: the settings changed since the pick
    share_note: Markup | None  # a class's mix: what each row's "ours" says
    choose_note: Markup | None  # what "choose" does: add the token, or put it in the text instead of the pick
    penalised: bool  # the penalties moved a logit: the second column is z′ / T
    temperature: str  # T as the caption writes it
    scaled_heading_t: str  # the T under z in the heading: 'T' when greedy, else its value
    rows: tuple[LogitRow, ...]
    rest_count: int
    rest_count_text: str
    rest_parts: tuple[tuple[str, str], ...]  # ('12', 'cut'), ('4,968', 'at p = 0')
    rest_prob: str
    rest_ranges: tuple[str, ...]  # the rest's pieces of [0, 1), the first with its width when alone
    rest_between: bool  # no piece of its own: the rest's ranges sit between the rows' (vocabulary order)
    truncating: bool  # a truncation rule is on: the panel says what each cut
    cuts: tuple[Cut, ...]
    n_kept: int
    n_kept_text: str
    kept_mass: str
    worked: FoldView
    example: Example


def present(screen: Screen) -> LogitsPanel:
    """The logits panel of the screen's step."""
    step, digits = screen.result, screen.digits
    rest = step.rest
    rows = _rows(screen, digits)
    return LogitsPanel(
        hidden=screen.hidden,
        reads_text=screen.state.reads_prompt,
        read=_read(screen),
        rows_note=_rows_note(screen),
        moved_note=_(
            "“r lands here” marks where the same r falls with the settings now; the text keeps '%(token)s', "
            "picked before they changed.",
            token=screen.labels[screen.in_text],
        )
        if screen.pick_moved
        else None,
        share_note=_("“ours”: how much of a token's probability came from our sentences; the rest came from Jane "
                     "Austen's novels.") if isinstance(screen.model, MixedBigram) and not screen.hidden else None,
        choose_note=_choose_note(screen) if not screen.hidden and any(row.choose_label for row in rows) else None,
        penalised=step.penalties_moved,
        temperature=general(step.settings.temperature),
        scaled_heading_t="T" if step.settings.applied_temperature == 0 else general(step.settings.applied_temperature),
        rows=rows,
        rest_count=rest.count,
        rest_count_text=thousands(rest.count),
        rest_parts=rest_parts(rest),
        rest_prob=pct(rest.prob),
        rest_ranges=tuple(
            span(lo, hi, digits, rest.prob_kept if len(rest.ranges) == 1 else None) for lo, hi in rest.ranges
        ),
        rest_between=bool(rest.kept_count),
        truncating=step.settings.truncating,
        cuts=tuple(map(_cut, step.cuts)),
        n_kept=step.n_kept,
        n_kept_text=thousands(step.n_kept),
        kept_mass=pct(step.kept_mass),
        worked=fold_view(screen, "worked-logits", "worked", _("Worked example")),
        example=_example(screen),
    )


def _read(screen: Screen) -> Markup:
    """What the model read and what it gave, after the panel's plain first sentence."""
    step = screen.result
    if not screen.state.reads_prompt:
        return _(
            "Its vocabulary has %(vocab)s tokens, the ones named for it; a token's score is called its %(logit)s z.",
            vocab=thousands(screen.model.n_vocab),
            logit=term("logit"),
        )
    return ngettext(
        "It read %(num)s token (a word or a piece of one). Its vocabulary, every token it knows, has %(vocab)s "
        "tokens; a token's score is called its %(logit)s z.",
        "It read %(num)s tokens (words or pieces of words). Its vocabulary, every token it knows, has %(vocab)s "
        "tokens; a token's score is called its %(logit)s z.",
        step.n_read,
        vocab=thousands(screen.model.n_vocab),
        logit=term("logit"),
    )


def _choose_note(screen: Screen) -> Markup:
    """What a row's "choose" button does: at a step on screen it replaces the pick, before the first it adds."""
    if screen.taken:
        return _("“choose” puts that token in the text instead of the pick; the tokens after it go.")
    return _("“choose” adds that token to the text instead of drawing r.")


def _rows_note(screen: Screen) -> Markup:
    """Which rows the table shows: the top ones, and the pick and the text's token from further down."""
    n_top, below = screen.result.n_top, screen.rows_below
    if len(below) > 1:
        return ngettext(
            "Here are the top %(num)s, then the picked token and the token the text has from further down.",
            "Here are the top %(num)s, then the picked token and the token the text has from further down.",
            n_top,
        )
    if below and screen.picked_beyond:
        return ngettext(
            "Here are the top %(num)s, then the picked token from further down.",
            "Here are the top %(num)s, then the picked token from further down.",
            n_top,
        )
    if below:
        return ngettext(
            "Here are the top %(num)s, then the token the text has from further down.",
            "Here are the top %(num)s, then the token the text has from further down.",
            n_top,
        )
    if screen.taken:
        return ngettext("Here are the top %(num)s.", "Here are the top %(num)s.", n_top)
    return ngettext(
        "Here are the top %(num)s for the next token.", "Here are the top %(num)s for the next token.", n_top
    )


def _rows(screen: Screen, digits: int) -> tuple[LogitRow, ...]:
    """The table's rows; the words every row may use translated once (a Step draws about 20 rows)."""
    moved = screen.pick_moved
    picked = _("r picked") if screen.forced else _("r lands here") if moved else _("picked")
    in_text = _("in the text") if moved else None
    choose = filler(_("Choose '%(token)s' instead", token=SLOT))  # each row's label is put in below
    shares = ClassShares(screen) if isinstance(screen.model, MixedBigram) else None
    return tuple(_row(t, digits, picked, in_text if t.row.id == screen.in_text else None, choose, shares)
                 for t in screen.table)


class ClassShares:
    """A class's mix: each row's share of its probability from the class's sentences, '97 % ours' (computed once)."""

    def __init__(self, screen: Screen):
        self.shares = screen.model.class_share(screen.result.context_ids)  # [n_vocab]
        self.ours = filler(_("%(share)s ours", share=SLOT))

    def __getitem__(self, i: int) -> str:
        return self.ours(pct(float(self.shares[i]), 0))


def _row(t: TableRow, digits: int, picked: Markup, text_badge: Markup | None,
         choose: Callable[[Markup], Markup], shares: ClassShares | None) -> LogitRow:
    row = t.row
    return LogitRow(
        marks=t.marks,
        rank=row.rank,
        id=row.id,
        label=t.label,
        picked_badge=picked if t.picked else None,
        text_badge=text_badge,
        chosen=t.chosen,
        cut=row.cut,
        zero=row.zero,
        logit=num(row.logit),
        scaled=num(row.scaled),
        prob=pct(row.prob),
        prob_kept=pct(row.prob_kept) if t.renormalised else None,
        range=span(row.lo, row.hi, digits, row.prob_kept),
        choose_label=choose(t.label) if t.choosable else None,
        class_share=shares[row.id] if shares is not None else None,
    )


def rest_parts(rest: Rest) -> tuple[tuple[str, str], ...]:
    """How the tokens under the table divide, kept left out: (('12', 'cut'), ('4,968', 'at p = 0')); none: ()."""
    parts = ((rest.cut_count, ngettext("cut", "cut", rest.cut_count)), (rest.zero_count, _("at p = 0")))
    return tuple((thousands(n), words) for n, words in parts if n)


def _cut(cut) -> Cut:
    return Cut(
        rule=cut.rule.capitalize(),
        setting=general(cut.setting),
        n_cut=cut.n_cut,
        n_text=thousands(cut.n_cut),
        mass=pct(cut.mass_cut),
    )


def _example(screen: Screen) -> Example:
    top: list[Row] = explain.highest_logits(screen.result)
    b = explain.bigram_example(screen.model, screen.result)
    counts = None
    if b:
        counts = BigramCounts(
            prev=token_label(b.prev),
            token=token_label(b.token),
            pair_count=b.pair_count,
            pair_text=thousands(b.pair_count),
            prev_count=b.prev_count,
            prev_text=thousands(b.prev_count),
            k=general(b.k),
            n_vocab=thousands(b.n_vocab),
            made_up=readable(b.made_up),
            prob=pct(b.prob),
            logit=num(b.logit),
        )
    return Example(
        n_vocab=screen.model.n_vocab,
        n_vocab_text=thousands(screen.model.n_vocab),
        top=tuple((token_label(row.token), num(row.logit)) for row in top[:2]),
        bigram=counts,
        counted=_class_counts(explain.class_example(screen.model, screen.result)),
    )


def _class_counts(c: explain.ClassExample | None) -> ClassCounts | None:
    """The class model's worked example in the class's words; None for another model."""
    if c is None:
        return None
    n, token, prev = c.counted, token_label(c.token), token_label(c.counted.prev)
    sentences = ngettext("our %(num)s sentence", "our %(num)s sentences", n.n_sentences, num=thousands(n.n_sentences))
    if n.prev == BOUNDARY:  # the start of a sentence: n_prev is the number of sentences
        counted = ngettext(
            "'%(token)s' began %(num)s of %(sentences)s (%(boundary)s marks where a sentence starts and ends).",
            "'%(token)s' began %(num)s of %(sentences)s (%(boundary)s marks where a sentence starts and ends).",
            c.pair_count, num=thousands(c.pair_count), token=token, sentences=sentences, boundary=BOUNDARY)
    else:
        counted = ngettext(
            "'%(token)s' followed '%(prev)s' %(num)s time in %(sentences)s; '%(prev)s' appeared %(seen)s.",
            "'%(token)s' followed '%(prev)s' %(num)s times in %(sentences)s; '%(prev)s' appeared %(seen)s.",
            c.pair_count, num=thousands(c.pair_count), token=token, prev=prev, sentences=sentences,
            seen=ngettext("%(num)s time", "%(num)s times", n.n_prev, num=thousands(n.n_prev)))
    return ClassCounts(
        counted=counted,
        smoothing=_("A word that never followed must still have a small chance, so k = %(k)s is added to the count "
                    "of each of the V = %(vocab)s words the model knows:", k=general(n.k), vocab=thousands(n.n_vocab)),
        pair_text=thousands(c.pair_count),
        prev_text=thousands(n.n_prev),
        k=general(n.k),
        n_vocab=thousands(n.n_vocab),
        p_class=pct(c.p_class),
        p_decimal=fixed(c.prob, 4),
        logit=num(c.logit),
        mix=None if c.w is None else ClassMixView(
            w=general(c.w, 6),
            other_w=general(1 - c.w, 6),
            p_other=pct(c.p_other),
            prob=pct(c.prob),
            share=pct(c.class_share),
            share_note=_("%(share)s of this probability came from our sentences.", share=pct(c.class_share)),
        ),
    )

