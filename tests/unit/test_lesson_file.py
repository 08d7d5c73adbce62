"""The lesson file: read, written back the same, and refused whole when it is not a lesson."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.lessons.bundled import BUNDLED, FOLDER, bundled
from webapp.lessons.lesson import (
    FORMAT,
    MAX_BYTES,
    MAX_SCREENS,
    VERSION,
    Lesson,
    LessonRefused,
    Screen,
    clean,
    depth,
    dumps,
    lesson_id,
    parse,
)
from webapp.web.i18n.languages import LANGUAGES


def lesson_text(**changes) -> str:
    raw = {"format": FORMAT, "version": VERSION, "title": "T",
           "screens": [{"title": "one", "state": {"model": "austen-bigram"}, "question": "Q?", "vote": True,
                        "notes": "N"}]}
    raw.update(changes)
    return json.dumps(raw)


texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40).map(str.strip)
screens = st.builds(
    Screen,
    title=texts,
    state=st.lists(st.tuples(st.text("abcdefgh_", min_size=1, max_size=8), texts), max_size=6,
                   unique_by=lambda kv: kv[0]).map(tuple),
    question=texts,
    vote=st.booleans(),
    notes=texts,
)


@given(st.builds(Lesson, title=texts.filter(bool), screens=st.lists(screens, min_size=1, max_size=5).map(tuple),
                 lang=st.sampled_from(["", "en", "de"]), about=texts))
def test_a_lesson_written_and_read_again_is_the_same_lesson(lesson):
    text = dumps(lesson)
    assert parse(text) == lesson
    assert dumps(parse(text.encode("utf-8"))) == text  # byte for byte: a file saved twice does not change
    assert lesson_id(text) == lesson.id


def test_the_file_is_readable_one_key_per_line():
    text = dumps(parse(lesson_text()))
    assert '\n  "title": "T",\n' in text and '"model": "austen-bigram"' in text


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"x" * (MAX_BYTES + 1), "at most 60 KB"),
        ("[" * 25_000 + "]" * 25_000, "nested deeper"),
        ('{"format": "token-by-token lesson", "screens": [[[[[]]]]]}', "nested deeper"),
        (b"\xff\xfe not text", "not text"),
        ("{ not json", "not JSON (line 1)"),
        ('{"title": "a slide deck"}', "not a lesson file"),
        ("[1, 2]", "not a lesson file"),
        (lesson_text(version="2"), "whole number"),
        (lesson_text(version=True), "whole number"),
        (lesson_text(screens=[]), "1 to 40 screens"),
        (lesson_text(screens=[{}] * (MAX_SCREENS + 1)), "1 to 40 screens"),
        (lesson_text(screens=["a screen"]), "screen 1 is not a screen"),
        (lesson_text(screens=[{"state": {"model": None}}]), "must be text or a number"),
        (lesson_text(screens=[{"state": "model=article"}]), "state must be an object"),
        (lesson_text(screens=[{"vote": "yes"}]), '"vote" must be true or false'),
        (lesson_text(title=7), "must be text"),
        (lesson_text(title="x" * 121), "at most 120 characters"),
        (lesson_text(screens=[{"notes": "x" * 3001}]), "at most 3,000 characters"),
    ],
)
def test_what_is_not_a_lesson_is_refused_with_a_reason(data, says):
    with pytest.raises(LessonRefused) as refused:
        parse(data)
    assert says in str(refused.value)


def test_a_newer_file_is_read_as_far_as_it_is_understood():
    lesson = parse(lesson_text(version=VERSION + 1, theme="dark",
                               screens=[{"title": "one", "timer": 30, "state": {"model": "article"}}]))
    assert lesson.newer == VERSION + 1
    assert lesson.ignored == ("theme", "screens[1].timer")
    assert lesson.screens[0].state == (("model", "article"),)


def test_markup_and_control_characters_stay_text():
    lesson = parse(lesson_text(title="<script>alert(1)</script>\x00\x1b[31m"))
    assert lesson.title == "<script>alert(1)</script>[31m"  # escaped where it is shown, like any text


@given(st.text())
def test_depth_counts_brackets_outside_strings(text):
    assert depth(json.dumps([[text]])) == 2
    assert depth(json.dumps({"a": text})) == 1


def test_clean_keeps_line_breaks_and_tabs():
    assert clean(" a\x00b\nc\td\x7f ") == "ab\nc\td"


def test_half_a_character_is_dropped_so_that_the_lesson_can_be_written():
    """JSON can hold a lone surrogate ("\\ud800"); UTF-8 cannot, so the file could not be written back."""
    lesson = parse(lesson_text(title="a\ud800b", screens=[{"state": {"prompt\udc00": "x\udfff"}}]))
    assert lesson.title == "ab" and lesson.screens[0].state == (("prompt", "x"),)
    dumps(lesson).encode("utf-8")


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_lesson_reads_and_writes_back_the_same(name):
    lesson = bundled(name)
    assert lesson is not None and lesson.newer is None and not lesson.ignored
    assert parse(dumps(lesson)) == lesson


SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "static" / "lesson.schema.json").read_text())


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_published_schema_accepts_every_bundled_lesson_as_written_and_as_saved(name, lang):
    path = FOLDER / lang / f"{name}.json"
    written = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    for raw in filter(None, (written, json.loads(dumps(bundled(name, lang))))):
        jsonschema.validate(raw, SCHEMA)


@given(st.builds(Lesson, title=texts.filter(bool), screens=st.lists(screens, min_size=1, max_size=3).map(tuple)))
def test_every_file_the_app_writes_meets_the_published_schema(lesson):
    jsonschema.validate(json.loads(dumps(lesson)), SCHEMA)


@pytest.mark.parametrize(
    "raw",
    [
        {"title": "slides"},
        {"format": FORMAT, "version": 0, "screens": [{}]},
        {"format": FORMAT, "version": 1, "screens": []},
        {"format": FORMAT, "version": 1, "screens": [{"vote": "yes"}]},
        {"format": FORMAT, "version": 1, "screens": [{"state": {"model": None}}]},
        {"format": FORMAT, "version": 1, "title": "x" * 121, "screens": [{}]},
        {"format": FORMAT, "version": 1, "screens": [{"notes": "x" * 3001}]},
    ],
)
def test_what_the_schema_refuses_the_app_refuses(raw):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(raw, SCHEMA)
    with pytest.raises(LessonRefused):
        parse(json.dumps(raw))


def test_a_states_value_keeps_its_spaces_while_texts_are_trimmed():
    lesson = parse(lesson_text(screens=[{"title": " one ", "state": {"prompt": "It is a "}}]))
    assert lesson.screens[0].state == (("prompt", "It is a "),) and lesson.screens[0].title == "one"
    assert parse(dumps(lesson)) == lesson
