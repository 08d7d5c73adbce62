"""Snapshots of the app's screens: each one's HTML, as it is now, kept in tests/web/snapshots/NAME.html.

The screens are every_screen.py's (the stepper in each model, mode and panel, the vocabulary page, the
error page, the class room's teacher and students) and more: every fold's page (/fold/<name>), every
panel open at once, the htmx answers of Step, Back, Reset and Choose, presenter mode as a page and as
fragments, the room's panel and the students' poll, and five languages. Each is rendered by two apps of
its own, and must come out the same in both, then the same as its snapshot.

What differs from run to run (the room codes) is replaced by a placeholder (VOLATILE) before anything
is compared or written. The comparison reads white space as the browser mostly does: a run of it is
one space, and none is left between two tags; a snapshot file has one tag per line so that git's
diffs read well. A mismatch shows the unified diff of the two, tag by tag.

After a change to the screens that is meant, write the snapshots again and review git's diff:

    UPDATE_SNAPSHOTS=1 pytest tests/web/test_snapshots.py
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from webapp.inference.machinery.registry import load_bundled
from webapp.web import create_app
from webapp.web.stages.folds import FOLDS

from .every_screen import MODELS, ORIGIN, PROMPT, get, other_screens, room_screens, stepped, stepper_screens, url
from .markup import HTMX

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
HOW_TO_UPDATE = "UPDATE_SNAPSHOTS=1 pytest tests/web/test_snapshots.py"
LANGUAGES = ("en", "de", "fr", "es", "zh")
BASE = {"prompt": PROMPT, "seed": "7"}
MAX_DIFF_LINES = 60

# Where a room's code shows in a link: /room/K7QM3XPA/teach, /join?code=K7QM3XPA.
ROOM_CODE_IN_LINK = re.compile(r"(?:/room/|[?&;]code=)([2-9A-HJ-NP-Z]{8})(?![A-Za-z0-9])")

# Every name, in the order the screens are rendered (a test checks that these are the screens rendered).
SCREENS = (
    # every_screen.stepper_screens
    "default",
    "empty prompt",
    *(f"{model}, two steps" for model in MODELS),
    "two steps, fragments",
    "guided",
    "presenter",
    "the earlier step",
    "surprise",
    "many samples",
    *(f"{model}, inside" for model in MODELS[:2]),
    "inside, before a step",
    "predict",
    "revealed",
    "teacher's r",
    "chosen by hand",
    "T = 0",
    "T = 0.5",
    "T = 1.5",
    "truncation and penalties",
    "llama.cpp chain",
    "chain without temperature",
    "vocabulary order",
    "unknown words",
    "past the window",
    "article, scores not adding up",
    # every_screen.other_screens
    *(f"vocabulary of {model}" for model in MODELS[:2]),
    "vocabulary search",
    "vocabulary, nothing found",
    "error page",
    "error fragment",
    "not found",
    # every_screen.room_screens
    "join form",
    "join, no such room",
    "teacher",
    "student, before a step",
    "teacher, vote open",
    "student, vote open",
    "student, voted",
    "teacher, results",
    "teacher, presenter",
    "student, after the reveal",
    "student, record",
    # panel_screens
    "every panel open",
    *(f"{model}, inside, guided" for model in MODELS[:2]),
    "article, guided",
    # fold_screens
    *(f"fold {name}" for name in FOLDS),
    "fold chart-numbers, fragment",
    "fold worked-sampling, fragment",
    # fragment_screens
    "presenter, fragments",
    "back, fragments",
    "reset, fragments",
    "choose, fragments",
    # language_screens
    *(f"{screen}, {lang}" for screen in ("two steps", "presenter", "error page") for lang in LANGUAGES),
    # room_language_screens
    "room panel",
    "student, screen poll",
    *(f"student, {lang}" for lang in LANGUAGES),
)


# --- the screens beyond every_screen.py's ----------------------------------------------------------


def panel_screens(client) -> Iterator[tuple[str, str]]:
    """Every panel open at once, and guided mode (every fold open) with the forward pass's panel."""
    two = stepped(client, **BASE)
    yield "every panel open", get(client, two + "&inside=1&surprise=1&many=100&guide=1")
    for model in MODELS[:2]:
        yield f"{model}, inside, guided", get(client, stepped(client, model=model, inside="1", guide="1", **BASE))
    yield "article, guided", get(client, stepped(client, model="article", guide="1", **BASE))


def fold_screens(client) -> Iterator[tuple[str, str]]:
    """Each fold's own page, on a screen that shows it; two of them as htmx gets their bodies."""
    screens = {
        "worked-inside-bigram": stepped(client, model="austen-bigram", inside="1", **BASE),
        "worked-inside-attention": stepped(client, inside="1", **BASE),
        "worked-inside-lens": stepped(client, inside="1", **BASE),
    }
    two = stepped(client, **BASE)
    for name in FOLDS:
        yield f"fold {name}", get(client, screens.get(name, two).replace("/?", f"/fold/{name}?", 1))
    for name in ("chart-numbers", "worked-sampling"):
        yield f"fold {name}, fragment", get(client, two.replace("/?", f"/fold/{name}?", 1), headers=HTMX)


def fragment_screens(client) -> Iterator[tuple[str, str]]:
    """What htmx gets for Step in presenter mode, and for Back, Reset and Choose."""
    two = stepped(client, **BASE)
    yield "presenter, fragments", get(client, two.replace("/?", "/step?", 1) + "&present=1", headers=HTMX)
    yield "back, fragments", get(client, two.replace("/?", "/back?", 1), headers=HTMX)
    yield "reset, fragments", get(client, two.replace("/?", "/reset?", 1), headers=HTMX)
    yield "choose, fragments", get(client, two.replace("/?", "/choose?", 1) + "&token=3", headers=HTMX)


def language_screens(client) -> Iterator[tuple[str, str]]:
    """The two-step screen, presenter mode and the error page in each language."""
    screens = {
        "two steps": lambda lang: stepped(client, lang=lang, **BASE),
        "presenter": lambda lang: stepped(client, lang=lang, **BASE) + "&present=1",
        "error page": lambda lang: url(temperature="hot", lang=lang),
    }
    for screen, address in screens.items():
        for lang in LANGUAGES:
            yield f"{screen}, {lang}", get(client, address(lang))


def room_language_screens(app) -> Iterator[tuple[str, str]]:
    """A room with its vote open: the teacher's panel, the students' poll, a student's screen in each language."""
    teacher, student = app.test_client(), app.test_client()
    start = teacher.post("/room", data={"from": url(**BASE)}, headers=ORIGIN)
    code = start.headers["Location"].split("/")[2]
    teacher.post(f"/room/{code}/settings", data={"votes_on": "1"}, headers=ORIGIN)
    student.post("/join", data={"code": code, "nickname": "Bea"}, headers=ORIGIN)
    first = teacher.get(url("/step", predict="1", **BASE), headers=HTMX).headers["HX-Push-Url"]
    teacher.post(f"/room/{code}/state", data={"url": first, "action": "step"}, headers=ORIGIN)
    yield "room panel", get(teacher, f"/room/{code}/panel")
    yield "student, screen poll", get(student, f"/room/{code}/screen")
    for lang in LANGUAGES:
        yield f"student, {lang}", get(student, url(f"/room/{code}", lang=lang))


def render_all(app) -> dict[str, str]:
    """Every screen's HTML, by name, rendered by app in the order of SCREENS."""
    client = app.test_client()
    screens = [
        *stepper_screens(client),
        *other_screens(client),
        *room_screens(app),
        *panel_screens(client),
        *fold_screens(client),
        *fragment_screens(client),
        *language_screens(client),
        *room_language_screens(app),
    ]
    return {name: without_volatile(html) for name, html in screens}


# --- normalising ----------------------------------------------------------------------------------


def room_codes(html: str) -> str:
    """A room's code, read where a link names it, wherever it shows: 'K7QM3XPA' and 'K7QM-3XPA' (its
    display form) -> 'ROOMCODE' and 'ROOM-CODE'. A new room gets a new code at random.

    Not every word of the code's shape: the join form's placeholder 'ABCD-EFGH' is one, and so can be
    eight digits of r.
    """
    for code in set(ROOM_CODE_IN_LINK.findall(html)):
        html = html.replace(code, "ROOMCODE").replace(f"{code[:4]}-{code[4:]}", "ROOM-CODE")
    return html


def student_handles(html: str) -> str:
    """What the roster names a student by, made from their random id: 'a1b2c3d4e5f60718' -> 'HANDLE'."""
    for handle in set(re.findall(r'data-handle="([0-9a-f]{16})"', html)):
        html = html.replace(handle, "HANDLE")
    return html


# What differs from run to run, each replaced by a placeholder in what is compared and written.
VOLATILE: dict[str, Callable[[str], str]] = {"room codes": room_codes, "student handles": student_handles}


def without_volatile(html: str) -> str:
    for substitute in VOLATILE.values():
        html = substitute(html)
    return html


def normalised(html: str) -> str:
    """White space as the comparison reads it: each run is one space, and none is left between tags."""
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


def tag_lines(html: str) -> list[str]:
    """Normalised HTML with one tag a line: what a snapshot file holds, and what a diff compares."""
    return normalised(html).replace("><", ">\n<").split("\n")


def diff(expected: str, actual: str, names: tuple[str, str]) -> str:
    """The unified diff of two screens' HTML, tag by tag, cut at MAX_DIFF_LINES lines."""
    lines = list(difflib.unified_diff(tag_lines(expected), tag_lines(actual), *names, n=2, lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... and {len(lines) - MAX_DIFF_LINES} more lines of diff"]
    return "\n".join(lines)


def slug(name: str) -> str:
    """A screen's name as a file name: 'austen-bigram, two steps' -> 'austen-bigram-two-steps'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def snapshot_path(name: str) -> Path:
    return SNAPSHOTS / f"{slug(name)}.html"


# --- the tests ------------------------------------------------------------------------------------


def fresh_app(folder: Path):
    """An app of its own: the bundled models (not one fetched into the user's folder), its own rooms."""
    (folder / "no-user-models").mkdir()
    return create_app(
        {
            "TESTING": True,
            "MODELS": load_bundled(),
            "USER_MODELS_DIR": str(folder / "no-user-models"),
            "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}",
        }
    )


@pytest.fixture(scope="module")
def renders(tmp_path_factory) -> tuple[dict[str, str], dict[str, str]]:
    """Every screen rendered by two apps, each built afresh."""
    first, second = (fresh_app(tmp_path_factory.mktemp("snapshots")) for _ in range(2))
    return render_all(first), render_all(second)


def test_the_screens_are_the_ones_named(renders):
    first, _second = renders
    assert list(first) == list(SCREENS), "render_all's screens and SCREENS differ: name each screen in SCREENS"
    assert len({slug(name) for name in SCREENS}) == len(SCREENS), "two screens have the same file name"


def test_every_snapshot_is_of_a_screen():
    kept = {slug(name) for name in SCREENS}
    stale = sorted(path.name for path in SNAPSHOTS.glob("*.html") if path.stem not in kept)
    if UPDATE:
        for name in stale:
            (SNAPSHOTS / name).unlink()
    assert UPDATE or not stale, f"snapshots of no screen in SCREENS: {', '.join(stale)}; {HOW_TO_UPDATE} removes them"


@pytest.mark.parametrize("name", SCREENS, ids=slug)
def test_the_screen_is_as_its_snapshot(renders, name):
    first, second = renders
    if first[name] != second[name]:
        pytest.fail(
            f"two apps rendered {name!r} differently:\n{diff(first[name], second[name], ('one', 'two'))}", pytrace=False
        )
    path = snapshot_path(name)
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text("\n".join(tag_lines(first[name])) + "\n", encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"no snapshot of {name!r} ({path.name}): write it with {HOW_TO_UPDATE}", pytrace=False)
    kept = path.read_text(encoding="utf-8")
    if normalised(kept) != normalised(first[name]):
        pytest.fail(
            f"{name!r} differs from its snapshot {path.name}; if the change is meant, {HOW_TO_UPDATE}\n"
            + diff(kept, first[name], (f"snapshots/{path.name}", "rendered")),
            pytrace=False,
        )
