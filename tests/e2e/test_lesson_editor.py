"""The lesson editor, as a teacher uses it: three screens added from the stepper, their texts written, one moved
and one deleted; the lesson saved as a file, opened again, saved again: the same file; published, and opened from
its link by a colleague's browser: the same file again. A hostile file dropped on the editor shows its markup as
text, and a huge or deeply nested one is refused with a message, the lesson being written left as it was. No page
breaks its Content Security Policy on the way, and axe finds no serious accessibility violation in the editor.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lesson_page import state_url
from playwright.sync_api import Browser, Locator, Page, expect
from test_accessibility import describe, run_axe

LAPTOP = {"width": 1280, "height": 800}
KEY = "token-by-token:lesson"
pytestmark = pytest.mark.browser_context_args(viewport=LAPTOP, reduced_motion="reduce", accept_downloads=True)


def watched(page: Page) -> list[str]:
    """What the page's Content Security Policy blocked, or the page's script threw: nothing, all along."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda error: seen.append(str(error)))
    return seen


def add_from_stepper(page: Page, address: str, n: int) -> None:
    page.goto(address)
    page.get_by_role("link", name="Add this screen to a lesson").click()
    expect(page).to_have_url(re.compile(r"/lessons/edit$"))  # the screen is in, out of the address: a reload adds none
    expect(page.get_by_role("status")).to_contain_text(f"Added as screen {n} of “My lesson”.")


def screens(page: Page) -> Locator:
    return page.locator("#screen-list > li")


def screen(page: Page, n: int) -> Locator:
    return page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=f"Screen {n}", exact=True))


def titles(page: Page) -> list[str]:
    return [field.input_value() for field in screens(page).get_by_label("Title of the screen").all()]


def save(page: Page, folder: Path, name: str) -> Path:
    with page.expect_download() as download:
        page.get_by_role("button", name="Save the file").click()
    path = folder / name
    download.value.save_as(path)
    expect(page.get_by_role("status")).to_contain_text(f"Saved as {download.value.suggested_filename}.")
    return path


def answer(page: Page, button: str) -> None:
    """Answer the editor's question (its dialog) with `button`."""
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name=button).click()
    expect(dialog).to_be_hidden()


def drop(page: Page, name: str, text: str) -> None:
    """Drop a file on the page, as a teacher drags it from the desktop."""
    transfer = page.evaluate_handle(
        "([name, text]) => { const t = new DataTransfer(); t.items.add(new File([text], name,"
        " {type: 'application/json'})); return t; }", [name, text])
    page.dispatch_event("#main", "drop", {"dataTransfer": transfer})


def stored(page: Page) -> str:
    return page.evaluate(f"window.localStorage.getItem({KEY!r})")


def write_the_lesson(page: Page) -> None:
    """Three screens from the stepper (the last with a hidden pick), their texts, one moved up, one deleted."""
    add_from_stepper(page, state_url(), 1)
    add_from_stepper(page, state_url(temperature="1.5"), 2)
    add_from_stepper(page, state_url(predict="1").replace("/?", "/step?"), 3)
    page.reload()
    expect(screens(page)).to_have_count(3)  # the reload added nothing
    expect(screen(page, 3).get_by_label("The class votes on this screen")).to_be_checked()  # its pick is hidden

    page.get_by_label("Title of the lesson").fill("Température: how sure is the model?")
    page.get_by_label("Who it is for").fill("A class of 14-year-olds; 15 minutes.")
    texts = [("One step", "Which word comes next?", "Let them guess first."),
             ("Hotter", "What changed in the chart?", "Point at the long tail.\nThen ask why."),
             ("Your guess", "Vote: which token will it pick?", "Reveal only when everyone voted.")]
    for n, (title, question, notes) in enumerate(texts, start=1):
        item = screen(page, n)
        item.get_by_label("Title of the screen").fill(title)
        item.get_by_label("Question for the class").fill(question)
        item.get_by_label("Notes for the teacher").fill(notes)
    screen(page, 2).get_by_label("The class votes on this screen").check()

    screen(page, 3).get_by_role("button", name="Move up").click()
    expect(page.locator(":focus")).to_have_accessible_name("↑ Move up")  # the focus moved with the screen
    assert titles(page) == ["One step", "Your guess", "Hotter"]
    screen(page, 1).get_by_role("button", name="Delete").click()
    answer(page, "Cancel")
    expect(screens(page)).to_have_count(3)
    screen(page, 1).get_by_role("button", name="Delete").click()
    answer(page, "Delete the screen")
    expect(screens(page)).to_have_count(2)
    assert titles(page) == ["Your guess", "Hotter"]


def test_a_lesson_written_here_comes_back_the_same_from_its_file_and_its_link(page: Page, browser: Browser,
                                                                              base_url: str, tmp_path: Path) -> None:
    blocked = watched(page)
    write_the_lesson(page)
    page.reload()  # kept in the browser while it is written
    assert titles(page) == ["Your guess", "Hotter"]

    saved = save(page, tmp_path, "first.lesson.json")
    lesson = json.loads(saved.read_text(encoding="utf-8"))
    assert lesson["title"] == "Température: how sure is the model?" and lesson["lang"] == "en"
    assert [(s["title"], s["vote"]) for s in lesson["screens"]] == [("Your guess", True), ("Hotter", True)]
    assert lesson["screens"][1]["notes"] == "Point at the long tail.\nThen ask why."
    assert lesson["screens"][1]["state"]["temperature"] == "1.5"
    hidden = lesson["screens"][0]["state"]
    assert hidden["predict"] == "1" and len(hidden["ids"].split(",")) == 1, "the pick the class votes on is kept"

    page.get_by_role("button", name="New lesson").click()
    answer(page, "Start a new lesson")
    expect(screens(page)).to_have_count(0)
    expect(page.get_by_label("Title of the lesson")).to_have_value("My lesson")
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Open a file").click()
    chooser.value.set_files(saved)
    expect(page.get_by_role("status")).to_contain_text("Opened “Température: how sure is the model?”.")
    assert titles(page) == ["Your guess", "Hotter"]
    assert save(page, tmp_path, "again.lesson.json").read_bytes() == saved.read_bytes()

    page.get_by_role("button", name="Publish and play").click()
    expect(page).to_have_url(re.compile(r"/l/[a-z0-9]{10}(\?|$)"))
    link = page.locator(".lesson-link").inner_text()
    colleague = browser.new_context(base_url=base_url, accept_downloads=True).new_page()
    blocked += watched(colleague)
    colleague.goto(link)
    expect(colleague.get_by_role("heading", name="Température: how sure is the model?")).to_be_visible()
    with colleague.expect_download() as download:
        colleague.get_by_role("link", name="Save the lesson file").click()
    assert Path(download.value.path()).read_bytes() == saved.read_bytes()

    colleague.get_by_role("link", name="Edit a copy").click()  # the colleague's browser writes no lesson yet
    expect(colleague.get_by_role("status")).to_contain_text("Opened a copy of “Température: how sure is the model?”")
    assert save(colleague, tmp_path, "copy.lesson.json").read_bytes() == saved.read_bytes()
    colleague.context.close()
    assert blocked == []


HOSTILE = {
    "format": "token-by-token lesson", "version": 1,
    "title": "<img src=x onerror=\"document.title='owned'\"><b>bold</b>",
    "screens": [{"title": "<script>document.title='owned'</script>", "state": {"prompt": "<i>x</i>"},
                 "question": "</textarea><b>q</b>", "notes": "<a href='javascript:alert(1)'>n</a>"}],
}


def test_a_hostile_file_shows_its_markup_as_text_and_a_huge_or_deep_one_changes_nothing(page: Page) -> None:
    blocked = watched(page)
    add_from_stepper(page, state_url(), 1)
    drop(page, "hostile.lesson.json", json.dumps(HOSTILE))
    answer(page, "Replace it")
    expect(page.get_by_label("Title of the lesson")).to_have_value(HOSTILE["title"])
    expect(page.get_by_role("status")).to_contain_text("<b>bold</b>")
    item = screen(page, 1)
    expect(item.get_by_label("Title of the screen")).to_have_value(HOSTILE["screens"][0]["title"])
    expect(item.get_by_label("Question for the class")).to_have_value("</textarea><b>q</b>")
    expect(item.locator("[data-summary=prompt]")).to_have_text("“<i>x</i>”")
    expect(page.locator("#main b, #main i, #main img, #main script:not([src])")).to_have_count(0)
    assert page.title() != "owned"

    before = stored(page)
    huge = json.dumps({**HOSTILE, "about": "x" * 70_000})
    deep = '{"format": "token-by-token lesson", "version": 1, "screens": [{"state": {"a": ' + "[" * 5000 + "]" * 5000
    deep += "}}]}"
    for name, text, says in [("huge.lesson.json", huge, "this file is 70 KB; a lesson file is at most 60 KB"),
                             ("deep.lesson.json", deep, "this file is nested deeper than a lesson is"),
                             ("notes.txt", "Dear class,", "this file is not JSON (line 1)")]:
        drop(page, name, text)
        expect(page.get_by_role("alert")).to_contain_text(f"Not opened: {says}")
        expect(page.get_by_role("dialog")).to_be_hidden()
        assert stored(page) == before
        expect(page.get_by_label("Title of the lesson")).to_have_value(HOSTILE["title"])
    assert blocked == []


def test_the_editor_has_no_serious_accessibility_violation(page: Page) -> None:
    add_from_stepper(page, state_url(), 1)
    add_from_stepper(page, state_url(predict="1").replace("/?", "/step?"), 2)
    serious = run_axe(page)
    assert serious == [], describe(serious)
    screen(page, 2).get_by_role("button", name="Delete").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    serious = run_axe(page)
    assert serious == [], describe(serious)
