"""The glossary's popups in a real browser: a word's definition shows on hover, on focus and on a tap, stays
inside the window, and goes with Escape. The definitions' words and languages are tested in
tests/web/test_glossary.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

SCREEN = "/?prompt=It+is+a+truth+universally+zzyzx&ids=21&seed=7&guide=0"


def inside_window(page: Page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and \
        box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"]


def no_sideways_scroll(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.browser_context_args(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
def test_hover_and_focus_show_a_definition_and_escape_hides_it(page: Page, save_screenshot):
    page.goto(SCREEN)
    softmax = page.locator("#chart .plain .term").first
    definition = softmax.locator(".term-def")
    expect(definition).to_contain_text("probabilities")
    assert definition.bounding_box()["width"] <= 1  # hidden, yet in the page for a screen reader
    softmax.hover()
    assert definition.bounding_box()["width"] > 150
    assert inside_window(page, definition)
    save_screenshot(page, "glossary-hover")
    page.mouse.move(5, 5)
    assert definition.bounding_box()["width"] <= 1
    softmax.focus()
    assert definition.bounding_box()["width"] > 150
    page.keyboard.press("Escape")
    assert definition.bounding_box()["width"] <= 1


@pytest.mark.browser_context_args(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
def test_a_definition_near_the_right_edge_opens_towards_the_left(page: Page):
    page.goto(SCREEN)
    terms = page.locator(".plain .term")
    rightmost = max(range(terms.count()), key=lambda i: terms.nth(i).bounding_box()["x"])
    term = terms.nth(rightmost)
    term.scroll_into_view_if_needed()
    term.hover()
    definition = term.locator(".term-def")
    box = definition.bounding_box()
    assert box["width"] > 150
    assert box["x"] + box["width"] <= page.viewport_size["width"]
    assert no_sideways_scroll(page)


@pytest.mark.browser_context_args(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  reduced_motion="reduce")
def test_a_tap_on_a_phone_shows_the_definition_as_a_card_on_screen(page: Page, save_screenshot):
    page.goto(SCREEN)
    for term in (page.locator("#prompt-panel .term").first, page.locator("#chart .plain .term").nth(2)):
        term.scroll_into_view_if_needed()
        term.tap()
        definition = term.locator(".term-def")
        expect(definition).to_be_visible()
        assert definition.bounding_box()["width"] > 300  # a card across the screen
        assert inside_window(page, definition)
        assert no_sideways_scroll(page)
    save_screenshot(page, "glossary-phone")
    page.locator("#prompt-panel h2").tap()  # a tap elsewhere closes it
    assert page.locator("#chart .plain .term").nth(2).locator(".term-def").bounding_box()["width"] <= 1
