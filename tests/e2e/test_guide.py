"""The guided first run: hint by hint, dismissed for good, brought back by ?guide=1 or the help dialog.

The guide remembers its dismissal in localStorage; a test that needs a returning visitor presets the
key with an init script, which the browser injects regardless of the page's CSP (checked below).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from lesson_page import (
    WORKED,
    as_returning_visitor,
    desktop,
    expect_scripts_ran,
    guide,
    state_url,
    worked,
)
from playwright.sync_api import BrowserContext, Page, expect

N_HINTS = 9  # the student's guide (the default view); the teacher's has N_TEACHER_HINTS
N_TEACHER_HINTS = 5


@desktop
def test_the_guided_run_can_be_completed_and_is_not_shown_again(page: Page, save_screenshot: Callable) -> None:
    page.goto(state_url())  # a fresh browser context: a first visit
    panel = guide(page)
    expect(panel).to_be_visible()
    count = panel.locator(".guide-count")
    hints = panel.locator(".guide-hints li")
    expect(hints).to_have_count(N_HINTS)
    expect(count).to_have_text(f"Hint 1 of {N_HINTS}")
    expect(hints.nth(0)).to_be_visible()
    expect(hints.nth(1)).to_be_hidden()
    expect(page.locator("#prompt-panel")).to_have_class(re.compile(r"\bguide-target\b"))
    save_screenshot(page, "guided-run")

    for i in range(1, N_HINTS):
        panel.get_by_role("button", name="Next", exact=True).click()
        expect(count).to_have_text(f"Hint {i + 1} of {N_HINTS}")
        expect(hints.nth(i)).to_be_visible()
        expect(hints.nth(i - 1)).to_be_hidden()
        target = hints.nth(i).get_attribute("data-target")
        expect(page.locator(f"#{target}")).to_have_class(re.compile(r"\bguide-target\b"))
    expect(page.locator(".guide-target")).to_have_count(1)
    panel.get_by_role("button", name="Done", exact=True).click()

    expect(panel).to_be_hidden()
    expect(page.locator(".guide-target")).to_have_count(0)
    page.goto(state_url())  # the next visit
    expect_scripts_ran(page)
    expect(page.locator("#guide")).to_be_hidden()


def test_dont_show_again_dismisses_the_guide_and_guide_1_brings_it_back(page: Page) -> None:
    page.goto(state_url())
    panel = guide(page)
    expect(panel).to_be_visible()
    panel.get_by_role("button", name="Next", exact=True).click()
    expect(panel.locator(".guide-count")).to_have_text(f"Hint 2 of {N_HINTS}")

    panel.get_by_role("button", name="Don't show again", exact=True).click()
    expect(panel).to_be_hidden()
    page.reload()
    expect_scripts_ran(page)
    expect(page.locator("#guide")).to_be_hidden()

    page.goto(state_url(guide="1"))  # guided mode shows it even after the dismissal, from the start
    expect(guide(page)).to_be_visible()
    expect(guide(page).locator(".guide-count")).to_have_text(f"Hint 1 of {N_HINTS}")
    for name in WORKED:  # and every worked example open
        expect(worked(page, name)).to_have_attribute("open", "")
        expect(worked(page, name).locator("p").first).to_be_visible()


def test_the_help_dialog_shows_the_guided_run_again(page: Page, context: BrowserContext) -> None:
    as_returning_visitor(context)
    page.goto(state_url())
    expect_scripts_ran(page)
    expect(page.locator("#guide")).to_be_hidden()

    page.get_by_role("button", name="Keyboard help (?)").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Show the guided first run again").click()

    expect(dialog).to_be_hidden()
    expect(guide(page)).to_be_visible()
    expect(guide(page).locator(".guide-count")).to_have_text(f"Hint 1 of {N_HINTS}")
    guide(page).get_by_role("button", name="Don't show again", exact=True).click()
    expect(guide(page)).to_be_hidden()


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_each_hint_scrolls_its_panel_into_view_and_a_done_action_moves_on(page: Page) -> None:
    page.goto(state_url())
    panel = guide(page)
    count = panel.locator(".guide-count")
    expect(count).to_have_text(f"Hint 1 of {N_HINTS}")
    page.get_by_label("Prompt", exact=True).fill("The girl saw a fine")  # the hint asked for it
    expect(count).to_have_text(f"Hint 2 of {N_HINTS}")
    panel.get_by_role("button", name="Next", exact=True).click()
    expect(count).to_have_text(f"Hint 3 of {N_HINTS}")
    page.get_by_role("button", name="Step", exact=True).click()  # asked for: Step
    expect(count).to_have_text(f"Hint 4 of {N_HINTS}")
    for i in range(4, N_HINTS + 1):
        target = page.locator(f"#{panel.locator('.guide-hints li').nth(i - 1).get_attribute('data-target')}")
        expect(target).to_have_class(re.compile(r"\bguide-target\b"))
        expect(target).to_be_in_viewport()
        guide_box, target_box = panel.bounding_box(), target.bounding_box()
        assert target_box["y"] >= guide_box["y"] + guide_box["height"] - 1 or target_box["y"] + target_box[
            "height"] > guide_box["y"] + guide_box["height"] + 40, "the panel shows below the guide"
        if i < N_HINTS:
            if i == 5:
                page.get_by_label("Temperature", exact=True).fill("1.5")  # asked for: move the slider
            else:
                panel.get_by_role("button", name="Next", exact=True).click()
            expect(count).to_have_text(f"Hint {i + 1} of {N_HINTS}")
    texts = panel.locator(".guide-hints li").all_text_contents()
    assert any("Top-k" in t for t in texts) and any("Seed" in t for t in texts)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_the_teachers_view_has_the_teachers_guide(page: Page) -> None:
    page.goto(state_url(view="teacher"))  # a first visit, in the teacher's view
    panel = page.get_by_role("complementary", name="The teacher's tools, one at a time")
    count = panel.locator(".guide-count")
    expect(count).to_have_text(f"Hint 1 of {N_TEACHER_HINTS}")
    for i in range(1, N_TEACHER_HINTS + 1):
        target = page.locator(f"#{panel.locator('.guide-hints li').nth(i - 1).get_attribute('data-target')}")
        expect(target).to_have_class(re.compile(r"\bguide-target\b"))
        expect(target).to_be_in_viewport()
        panel.get_by_role("button", name="Done" if i == N_TEACHER_HINTS else "Next", exact=True).click()
    expect(page.locator("#guide")).to_be_hidden()
    texts = page.locator("#guide .guide-hints li").all_text_contents()
    assert any("Presenter mode" in t for t in texts) and any("QR code" in t for t in texts)


def test_students_by_a_shared_link_are_not_shown_the_guide(page: Page) -> None:
    page.goto(state_url())
    expect(guide(page)).to_be_visible()  # the teacher's first visit
    link = page.get_by_label("Link to this screen").input_value()
    student = page.context.browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = student.new_page()
        phone.goto(link)  # a first visit, by the link or the QR code
        expect_scripts_ran(phone)
        expect(phone.locator("#guide")).to_be_hidden()
        phone.reload()
        expect_scripts_ran(phone)
        expect(phone.locator("#guide")).to_be_hidden()
    finally:
        student.close()


@pytest.mark.browser_context_args(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  reduced_motion="reduce")
def test_on_a_phone_the_step_bars_step_moves_the_guide_on_and_the_hint_leaves_the_screen_to_the_page(page: Page):
    """The phone's Step is the step bar's, which each answer replaces: pressing it still counts as the hint's Step."""
    page.goto("/?prompt=It+is+a+truth&seed=7&guide=1")
    guide = page.locator("#guide")
    count = guide.locator(".guide-count")
    while "Press" not in guide.locator(".guide-hints li:not([hidden])").inner_text():
        page.locator("#guide-next").tap()
    assert guide.bounding_box()["height"] < 844 / 5  # a fifth of the screen at most
    hint = count.inner_text()
    page.locator("#step-bar button[data-control=step]").tap()
    expect(page.locator(".text-so-far .gen")).to_have_count(1)
    expect(count).not_to_have_text(hint)
