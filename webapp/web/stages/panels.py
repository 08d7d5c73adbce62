"""Which panels an htmx answer swaps: only those whose content can differ from the screen on display.

Most panels show the step, and every action (Step, Back, a setting) changes it, so they are always
sent. A few show one part of the state only:

- the temperature's value, the model's description and its perplexity show the screen's temperature
  and model. The controls form's visible fields may hold newer ones, typed but not sent yet, so the
  screen writes what it shows into the form: `shown`, a short digest per panel of its part (shown_key);
- the prompt box shows the prompt being typed: it is sent again only when the model changes between one that
  reads text and the article's, which has a sentence in its place;
- the teacher's r is the field itself: it holds what the request sent (a typed r that Step uses up
  must be cleared; an unused one left as it is).

A request without `shown`, or with one that does not read, gets every panel.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from ..url.state import State

# Panels that show one part of the screen's state, and that part.
SHOWN: dict[str, Callable[[State], object]] = {
    "temperature_value": lambda state: state.settings.temperature,
    # a class model's k and mix are in it too (its fields, and the mix's shares); others' digests stay as they were
    "model_description": lambda state: (state.model, state.article, *([state.mix] if state.mix else [])),
    "model_measure": lambda state: state.model,
    "prompt_box": lambda state: state.reads_prompt,
}
# Every panel an answer can swap, in the order templates/fragments.html sends them: its template, and
# the view of the screen (an attribute of stages.page.Stages) that the template is handed as `panel`.
TEMPLATES: dict[str, tuple[str, str]] = {
    "tokens": ("stages/_encode.html", "tokens"),
    "state_fields": ("panels/_state_fields.html", "state_fields"),
    "view_link": ("panels/_view_link.html", "view_link"),
    "mode_link": ("panels/_mode_link.html", "mode_link"),
    "next_r": ("panels/_next_r.html", "controls"),
    "logits": ("stages/_forward.html", "logits"),
    "chart": ("stages/_softmax.html", "chart"),
    "inside": ("stages/_inside.html", "inside"),
    "ranges": ("stages/_sampling.html", "ranges"),
    "text": ("stages/_decode.html", "text"),
    "step_bar": ("stages/_step_bar.html", "step_bar"),
    "share": ("panels/_share.html", "share"),
    "languages": ("panels/_languages.html", "languages"),
    "temperature_value": ("panels/_temperature_value.html", "controls"),
    "model_description": ("panels/_model_description.html", "controls"),
    "model_measure": ("panels/_model_measure.html", "controls"),
    "prompt_box": ("panels/_prompt_box.html", "prompt_box"),
}
PANELS = tuple(TEMPLATES)


def _digest(value: object) -> str:
    return hashlib.blake2b(repr(value).encode(), digest_size=4).hexdigest()


def shown_key(state: State) -> str:
    """What the screen shows of each panel in SHOWN, for the controls form: 'a1b2c3d4.e5f6a7b8'."""
    return ".".join(_digest(part(state)) for part in SHOWN.values())


def templates_of(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(template, view) of each panel: ('logits',) -> (('stages/_forward.html', 'logits'),)."""
    return tuple(TEMPLATES[name] for name in names)


def panels_to_send(shown: str | None, asked: State, state: State) -> tuple[str, ...]:
    """The panels of an answer that shows `state`, asked for by `asked` from a screen whose shown_key is `shown`.

    A Step at the same temperature and model, no r typed: every panel but temperature_value,
    model_description, model_measure, prompt_box and next_r. Without `shown` (a link, an older page): every panel.
    """
    before = (shown or "").split(".")
    if len(before) != len(SHOWN):
        return PANELS
    same = {name for (name, part), digest in zip(SHOWN.items(), before, strict=True) if _digest(part(state)) == digest}
    if asked.next_r == state.next_r:
        same.add("next_r")
    return tuple(name for name in PANELS if name not in same)
