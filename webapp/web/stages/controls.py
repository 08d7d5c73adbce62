"""The controls: the form every button and setting sends, and the small panels an htmx answer swaps in it.

The form holds the whole state. Its visible fields are the prompt (the text box above the chips, tied
to the form: encode.PromptBox), the temperature, truncation, seed, model, the teacher's r and
predict-then-reveal; its hidden fields hold the rest (the ids, the modes, the view, and the prompt of the
article's model, which has no prompt box), so that Step, Back, Reset and each setting send the whole screen.
An htmx answer swaps the hidden fields and the link to the other view on every action, and the temperature's
value, the model's description (with the article's fields), its held-out perplexity and the teacher's r when
they changed (panels.py). Every value is written here; the template only places it. Left out: the penalties
and the range order, the sampler chain's settings (templates/panels/_chain_settings.html).

Two views of one form: the student's (the default) folds what a first-time student does not need under
More, a <details> closed: the seed, the penalties, the ranges' order, the model's perplexity and the
classroom controls (the teacher's r, predict-then-reveal, presenter mode). The teacher's (view=teacher)
sends it open. Presenter mode shows what it always has: nothing is folded there.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, url_for

from ...fetch import fetchable
from ...inference.article import ARTICLE
from ...inference.article import MAX_TOKENS as MAX_ARTICLE_TOKENS
from ...inference.class_bigram import MAX_K, MixedBigram
from ...inference.class_text import MODEL_PREFIX, is_class_model
from ...inference.step import MAX_TOKENS
from ..class_model.class_access import found_text
from ..i18n.filters import fixed, general, pct, thousands
from ..i18n.translations import description_parts
from ..i18n.translations import template_gettext as _
from ..i18n.translations import template_ngettext as ngettext
from ..serving.fetched import fetch_command
from ..url.links import public_url
from ..url.state import MAX_TEMPERATURE
from .panels import shown_key
from .screen import Screen

TEMPERATURE_STEP = 0.05  # the slider's step, and what − and + move it by
MIX_STEP = 0.05  # the class model's "mix with Austen" slider's step


@dataclass(frozen=True)
class TemperatureMark:
    """A whole temperature on the slider's scale: 0 is greedy."""

    value: str  # '0', '1', ...: the number under the slider
    label: str  # the datalist's label: 'greedy', '1', ...
    note: str | None  # written after the number under the slider: 'greedy' at 0, else None


@dataclass(frozen=True)
class ModelOption:
    """A model of the menu, and whether it is the screen's."""

    name: str
    label: str  # what the menu writes: the name, or 'Our sentences' for a class model
    selected: bool


@dataclass(frozen=True)
class ArticleFields:
    """The article model's tokens and scores as the teacher typed them; a change starts the text again."""

    tokens: str  # 'A,B,C'
    max_tokens: int  # how many the model can have
    scores: str  # '0.1,0.2,0.7'
    kind: str  # 'probabilities' or 'logits'
    normalised: bool  # the probabilities add up to 1 as typed (always, for logits)
    total: str  # their sum, which each is divided by when they do not


@dataclass(frozen=True)
class ClassFields:
    """A class model's smoothing k and the class's weight w in its mix with Austen's bigram, as the fields hold them."""

    k: str  # '0.01'
    max_k: str
    w: str  # the slider's value, '0.7'
    w_step: str
    shares: str  # 'From our sentences: 70 % · from Jane Austen's novels: 30 %'
    page: str  # the model's own page: its sentences, its perplexities, its files ('' on the projector)


@dataclass(frozen=True)
class StateFields:
    """The form's hidden fields: the state no visible control holds. Every action's answer swaps them."""

    history_entry: str  # what gives the screen its own entry in the browser's history (State.history_entry)
    hidden_fields: tuple[tuple[str, str], ...]  # (name, value) of each
    shown: str  # what the screen shows of the panels htmx may leave out (panels.shown_key)
    at_limit: bool  # one more Step would pass MAX_TOKENS: auto-play stops


@dataclass(frozen=True)
class ControlsPanel:
    """The controls form, and the panels htmx swaps in it when they change: the temperature's value, the
    model's description, the teacher's r."""

    temperature: str  # the slider's value: '0.7'
    temperature_down: str  # what − sets it to without JavaScript: '0.65' (nudged)
    temperature_up: str  # and +: '0.75'
    max_temperature: str
    temperature_step: str  # the slider's step: '0.05'
    temperature_marks: tuple[TemperatureMark, ...]
    temperature_value: str  # the value beside the slider: '0.70'
    temperature_effect: str | None  # 'greedy', 'sharper' or 'flatter' (temperature_effect); None at T = 1
    top_k: str  # each truncation setting as its field holds it: '' when off
    top_p: str
    min_p: str
    seed: str
    models: tuple[ModelOption, ...]
    fetch_commands: tuple[str, ...]  # the commands that would fetch the models this server has not
    description: str  # the model's, in the page's language where the catalogs have it
    measure: str  # its held-out perplexity, under More ('' if its description gives none)
    article: ArticleFields | None  # the article model's fields; None for another model
    class_fields: ClassFields | None  # a class model's k and mix; None for another model
    next_r: str  # the teacher's r for the next Step, '' for the seeded one
    predict: bool
    present: bool  # presenter mode: the link under the form leaves it, and nothing is folded
    teacher: bool  # the teacher's view: More sent open


@dataclass(frozen=True)
class ViewLink:
    """The link under the controls to this screen in the other view; none in presenter mode."""

    shown: bool  # not in presenter mode, which shows what it always has
    teacher: bool  # the screen is in the teacher's view: the link goes to the student's
    href: str


@dataclass(frozen=True)
class ModeLink:
    """The link to this screen in the other mode: into presenter mode, or out of it. Every answer swaps it, so
    that it opens the screen as it is now, not as it was when the page was loaded."""

    present: bool  # the screen is in presenter mode: the link leaves it
    href: str


def present(screen: Screen) -> ControlsPanel:
    """The controls form of the screen, every value written out."""
    state, settings = screen.state, screen.state.settings
    if is_class_model(state.model):
        description, measure = class_description(screen), ""
    elif state.reads_prompt:
        description, measure = description_parts(screen.model.description)
    else:
        description, measure = article_description(screen)
    return ControlsPanel(
        temperature=str(settings.temperature),
        temperature_down=nudged(settings.temperature, -1),
        temperature_up=nudged(settings.temperature, 1),
        max_temperature=str(MAX_TEMPERATURE),
        temperature_step=str(TEMPERATURE_STEP),
        temperature_marks=temperature_marks(),
        temperature_value=fixed(settings.temperature, 2),
        temperature_effect=temperature_effect(settings.temperature),
        top_k=_field_value(settings.top_k),
        top_p=_field_value(settings.top_p),
        min_p=_field_value(settings.min_p),
        seed=str(settings.seed),
        models=model_options(state.model),
        fetch_commands=tuple(map(fetch_command, fetchable(current_app.extensions["models"]))),
        description=description,
        measure=measure,
        article=article_fields(screen),
        class_fields=class_fields(screen),
        next_r=_field_value(state.next_r),
        predict=state.predict,
        present=state.present,
        teacher=state.teacher,
    )


def present_mode_link(screen: Screen) -> ModeLink:
    """The link to the screen in the other mode, as the address bar has it (a hidden pick stays hidden)."""
    state = screen.state
    return ModeLink(present=state.present, href=public_url(state, present=None if state.present else "1"))


def present_view_link(screen: Screen) -> ViewLink:
    """The link to the screen in the other view, as the address bar has it (a hidden pick stays hidden)."""
    state = screen.state
    return ViewLink(
        shown=not state.present,
        teacher=state.teacher,
        href=public_url(state, view=None if state.teacher else "teacher"),
    )


def present_state_fields(screen: Screen) -> StateFields:
    """The form's hidden fields for the screen's state."""
    state = screen.state
    return StateFields(
        history_entry=state.history_entry,
        hidden_fields=tuple(state.hidden_fields()),
        shown=shown_key(state),
        at_limit=at_limit(screen),
    )


def at_limit(screen: Screen) -> bool:
    """Whether one more Step would make the prompt and the text MAX_TOKENS tokens long (auto-play stops there)."""
    return len(screen.result.prompt_tokens) + len(screen.state.ids) + 1 >= MAX_TOKENS


def temperature_effect(temperature: float) -> str | None:
    """What the temperature does to the model's distribution: nothing at 1.

    >>> [temperature_effect(t) for t in (0, 0.5, 1, 1.5)]
    ['greedy', 'sharper', None, 'flatter']
    """
    if temperature == 0:
        return "greedy"
    if temperature < 1:
        return "sharper"
    return "flatter" if temperature > 1 else None


def temperature_marks() -> tuple[TemperatureMark, ...]:
    """The slider's whole temperatures, 0 to MAX_TEMPERATURE: 0 reads 'greedy'."""
    greedy = _("greedy")
    return tuple(
        TemperatureMark(value=str(t), label=greedy if t == 0 else str(t), note=greedy if t == 0 else None)
        for t in range(int(MAX_TEMPERATURE) + 1)
    )


def nudged(temperature: float, direction: int) -> str:
    """The temperature a slider step (TEMPERATURE_STEP) down or up, kept in 0 to MAX_TEMPERATURE, as its field has it.

    >>> [nudged(t, d) for t, d in ((1.0, -1), (1.0, 1), (0.0, -1), (0.1, -1), (5.0, 1))]
    ['0.95', '1.05', '0', '0.05', '5']
    """
    value = min(max(temperature + direction * TEMPERATURE_STEP, 0.0), MAX_TEMPERATURE)
    return f"{round(value, 4):g}"


def model_options(current: str) -> tuple[ModelOption, ...]:
    """The model menu: every model this server has, the screen's selected; a class model (not among them, and
    not listed for anyone else) first, as the current choice."""
    models = current_app.extensions["models"].values()
    bundled = tuple(ModelOption(name=model.name, label=model.name, selected=model.name == current) for model in models)
    if not is_class_model(current):
        return bundled
    return (ModelOption(name=current, label=_("Our sentences"), selected=True), *bundled)


def class_description(screen: Screen) -> str:
    """What a class model is: "Counted from our 23 sentences (topic: school lunch).", and its mix when mixed."""
    text = found_text(screen.state.model[len(MODEL_PREFIX):])
    n = len(text.sentences)
    if text.pasted:
        what = ngettext("Counted from the %(num)s sentence of a pasted text.",
                        "Counted from the %(num)s sentences of a pasted text.", n, num=thousands(n))
    elif text.topic:
        what = ngettext("Counted from our %(num)s sentence (topic: %(topic)s).",
                        "Counted from our %(num)s sentences (topic: %(topic)s).", n, num=thousands(n), topic=text.topic)
    else:
        what = ngettext("Counted from our %(num)s sentence.", "Counted from our %(num)s sentences.", n,
                        num=thousands(n))
    if isinstance(screen.model, MixedBigram):
        return what + " " + _("Mixed with a bigram counted from Jane Austen's novels.")
    return what


def class_fields(screen: Screen) -> ClassFields | None:
    """A class model's k and weight as their fields show them; None for any other model."""
    mix = screen.state.mix
    if mix is None:
        return None
    return ClassFields(
        k=f"{mix.k:g}",
        max_k=f"{MAX_K:g}",
        w=f"{mix.w:g}",
        w_step=str(MIX_STEP),
        shares=_("From our sentences: %(ours)s · from Jane Austen's novels: %(hers)s",
                 ours=pct(mix.w, 0), hers=pct(1 - mix.w, 0)),
        page="" if screen.state.present else url_for("class_models.page", lang=screen.state.lang,
                                                     text_id=screen.state.model[len(MODEL_PREFIX):]),
    )


def article_description(screen: Screen) -> tuple[str, str]:
    """The article model's description, in the page's language (the core's names its figures, which no catalog
    holds), and no held-out perplexity: 3 tokens typed as probabilities -> "The article's example: 3 tokens whose
    probabilities you type; the same scores at every step, whatever came before."."""
    scores = screen.model.scores
    if scores.kind == "logits":
        description = ngettext(
            "The article's example: %(num)s token whose logit you type; the same scores at every step, whatever came "
            "before.",
            "The article's example: %(num)s tokens whose logits you type; the same scores at every step, whatever came "
            "before.",
            len(scores.tokens),
        )
    else:
        description = ngettext(
            "The article's example: %(num)s token whose probability you type; the same scores at every step, whatever "
            "came before.",
            "The article's example: %(num)s tokens whose probabilities you type; the same scores at every step, "
            "whatever came before.",
            len(scores.tokens),
        )
    return description, ""


def article_fields(screen: Screen) -> ArticleFields | None:
    """The article model's tokens and scores as their fields show them; None for any other model.

    Tokens ('A', 'B', 'C') with probabilities (0.2, 0.2, 0.2) -> tokens 'A,B,C', scores '0.2,0.2,0.2',
    not normalised, total '0.6'.
    """
    if screen.state.model != ARTICLE:
        return None
    a = screen.model.scores
    return ArticleFields(
        tokens=",".join(a.tokens),
        max_tokens=MAX_ARTICLE_TOKENS,
        scores=",".join(map(str, a.scores)),
        kind=a.kind,
        normalised=a.normalised,
        total=general(sum(a.scores)),
    )


def _field_value(value: float | None) -> str:
    """A setting as its field holds it, empty when off.

    >>> [_field_value(v) for v in (None, 0.9, 5)]
    ['', '0.9', '5']
    """
    return "" if value is None else str(value)
