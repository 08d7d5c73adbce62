"""Stage 4, sampling: the kept tokens' ranges laid end to end on [0, 1), and the random r that picks one.

The panel draws the range bar (range_bar.py) with a marker at r, says which range r fell in and where r
came from, notes when the same r would pick another token with the ranges in the other order, when the
teacher chose a token by hand, and when the text's token is not the pick (the settings changed since),
and folds a worked example. Under it: the sampler chain (chain_view.py), how uncertain the step was
(uncertainty_view.py) and the step sampled many times (many_view.py), each with a view of its own.
While the pick is hidden (predict, then reveal), the panel only says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...inference import Row
from ...inference.derived import explain
from ...inference.derived.table import Rest
from ..i18n.filters import fixed, general, pct, pick_digits, span, thousands
from ..i18n.labels import token_label
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext
from . import chain_view, many_view, range_bar, uncertainty_view
from .folds import FoldView, fold_view
from .range_bar import BarRange
from .screen import Screen

BAR_LABEL_LENGTH = 10  # characters of a token's label on the bar


@dataclass(frozen=True, kw_only=True)
class RangesPanel:
    """Stage 4's panel: the range bar, the pick, its notes, the worked example, and the sections under them.

    While the pick is hidden, only `hidden` and `by_vocabulary` say anything.
    """

    hidden: bool  # predict, then reveal: the pick stays hidden until Reveal
    by_vocabulary: bool  # the ranges are laid in vocabulary order, not largest first
    taken: bool = False  # the screen shows a step taken: r was drawn
    drawn_step: str = ""  # the step r was drawn for ('1'), '' before any: the bar's data-step
    r: float | None = None  # the random number, as the bar's data-r writes it
    rest_behind: bool = False  # grey behind the ranges: the rest's lie between the rows' (vocabulary order)
    ranges: tuple[BarRange, ...] = ()  # the kept rows', in the rows' order
    rest_ranges: tuple[BarRange, ...] = ()  # the pieces of the rest of the vocabulary
    ticks: tuple[tuple[str, str], ...] = ()  # (x, label): ('25.0', '0.25')
    marker_x: str = ""  # where r is drawn
    r_typed: bool = False  # the teacher typed r
    r_text: str = ""  # r with the pick's digits: '0.770'
    pick_range: str = ""  # the range r fell in: '[0.769, 0.773)'
    pick_lo: str = ""
    pick_hi: str = ""
    picked: Markup = Markup()  # the picked token's label
    picked_quoted: Markup = Markup()  # "'might'", as the pick sentence writes it
    picked_unk: bool = False  # the text's token at this step is <unk>: the page says what that means as an answer
    seed: int = 0
    step: int = 0  # the generation step r was (or will be) drawn for
    other_order_token: Markup | None = None  # the token the same r picks with the ranges in the other order
    forced: bool = False  # the teacher chose the text's token by hand
    pick_moved: bool = False  # the text has another token than this r picks (see pick_moved)
    text_token: Markup = Markup()  # the label of the token the text has
    text_prob: str = ""  # its probability
    worked: FoldView | None = None
    first_ranges: tuple[Markup, ...] = ()  # the worked example's: "0.000 to 0.211 → 'to'"
    ranges_end: Markup | None = None  # '… up to 1.000' when more ranges follow
    chain: chain_view.ChainView | None = None  # None where the screen leaves it out (presenter mode)
    uncertainty: uncertainty_view.UncertaintyView | None = None
    shows_uncertainty: bool = False  # the screen sends it (not in presenter mode); its fold is there either way
    many: many_view.ManyView | None = None


def present(screen: Screen) -> RangesPanel:
    """The sampling panel of the screen's step."""
    step = screen.result
    by_vocabulary = step.settings.range_order == "vocabulary"
    if screen.hidden:
        return RangesPanel(hidden=True, by_vocabulary=by_vocabulary)
    digits, taken, chosen = pick_digits_of(screen), screen.taken, step.chosen
    labels, text_row = screen.labels, screen.text_row
    other = other_order_pick(screen)
    first = explain.first_ranges(step)
    return RangesPanel(
        hidden=False,
        by_vocabulary=by_vocabulary,
        taken=taken,
        drawn_step=str(step.step) if taken else "",
        r=step.r if taken else None,
        rest_behind=bool(step.rest.kept_count and step.rest.lo is None),
        ranges=range_bar.kept_ranges(step.rows, screen.short_labels(BAR_LABEL_LENGTH), chosen.id if taken else None),
        rest_ranges=_rest_ranges(step.rest),
        ticks=tuple(zip(range_bar.tick_places(), map(general, range_bar.TICKS), strict=True)),
        marker_x=range_bar.marker_x(step.r) if taken else "",
        r_typed=step.r_source == "given",
        r_text=fixed(step.r, digits),
        pick_range=span(chosen.lo, chosen.hi, digits, chosen.prob_kept),
        pick_lo=fixed(chosen.lo, digits),
        pick_hi=fixed(chosen.hi, digits),
        picked=labels[chosen.id],
        picked_quoted=quoted(labels[chosen.id]),
        picked_unk=taken and screen.in_text == screen.model.tokenizer.unk_id,
        seed=step.settings.seed,
        step=step.step,
        # for the order's setting (under More in the student's view): said to the teacher, or once it is changed
        other_order_token=labels[other.id] if other and (screen.state.teacher or by_vocabulary) else None,
        forced=screen.forced,
        pick_moved=screen.pick_moved,
        text_token=labels[text_row.id] if text_row else Markup(),
        text_prob=_pct(text_row),
        worked=fold_view(screen, "worked-sampling", "worked", _("Worked example")),
        first_ranges=tuple(_worked_range(row, screen.digits) for row in first),
        ranges_end=_("… up to %(end)s", end=fixed(1, 3)) if step.n_kept > len(first) else None,
        chain=chain_view.present(screen) if screen.sends("chain") else None,
        uncertainty=uncertainty_view.present(screen),
        shows_uncertainty=screen.sends("uncertainty"),
        many=many_view.present(screen) if screen.sends("many") else None,
    )


def quoted(label: Markup) -> Markup:
    """A token's label as the pick sentences write it: 'as'."""
    return _("'%(token)s'", token=label)


def pick_digits_of(screen: Screen) -> int:
    """Digits for the pick sentence: the table's, or more until r reads inside its range (filters.pick_digits)."""
    chosen = screen.result.chosen
    return pick_digits(screen.result.r, chosen.lo, chosen.hi, screen.digits) if screen.taken else screen.digits


def other_order_pick(screen: Screen) -> Row | None:
    """The row r would pick with the ranges in the other order, when that is another token."""
    if not screen.taken:
        return None
    step = screen.result
    other = "vocabulary" if step.settings.range_order == "probability" else "probability"
    row = explain.pick_in_order(step, other)
    return row if row.id != step.chosen.id else None


def _rest_ranges(rest: Rest) -> tuple[BarRange, ...]:
    """The rest's pieces on the bar, the widest labelled '4,979 others' where it has room."""
    if not rest.ranges:
        return ()
    label = ngettext("%(num)s other", "%(num)s others", rest.kept_count, num=thousands(rest.kept_count))
    return range_bar.rest_ranges(rest.ranges, label)


def _pct(row: Row | None) -> str:
    return pct(row.prob) if row else ""


def _worked_range(row: Row, digits: int) -> Markup:
    """One range as the worked example writes it: "0.000 to 0.211 → 'to'"."""
    lo, hi = fixed(row.lo, digits), fixed(row.hi, digits)
    return _("%(lo)s to %(hi)s → '%(token)s'", lo=lo, hi=hi, token=token_label(row.token))
