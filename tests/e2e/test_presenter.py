"""Presenter mode on a 1280x720 projector: everything fits, a longer text stays on one screen, no guide outline."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from on_screen import (
    assert_fits_width,
    click_step,
    expect_no_url_param,
    expect_url_param,
    generated,
    step_button,
    url_ids,
)
from playwright.sync_api import Page, expect
from stepping import state_url


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_fits_a_1280x720_projector(page: Page, expected_ids, save_screenshot: Callable) -> None:
    page.goto(state_url(expected_ids, view="teacher"))  # the presenter-mode link: open in the teacher's view
    main = page.locator("main")
    expect(main).not_to_have_class(re.compile(r"\bpresent\b"))

    page.get_by_role("link", name="Presenter mode", exact=True).click()

    expect_url_param(page, "present", "1")
    expect(main).to_have_class(re.compile(r"\bpresent\b"))
    assert url_ids(page) == expected_ids
    expect(generated(page)).to_have_count(3)
    # secondary detail folded away, the loop itself on show
    expect(page.locator("#compare")).to_be_hidden()
    expect(page.locator("#pick-sentence .r-source")).to_be_hidden()
    expect(page.locator("#pick-sentence")).to_be_visible()
    expect(step_button(page)).to_be_visible()
    assert_fits_width(page, 1280)
    expect(page.locator("html")).to_have_js_property("scrollWidth", 1280)  # no sideways scrolling
    save_screenshot(page, "presenter-1280x720")

    click_step(page, 3)  # stepping keeps presenter mode
    expect_url_param(page, "present", "1")
    assert_fits_width(page, 1280)

    page.get_by_role("link", name="Leave presenter mode").click()
    expect_no_url_param(page, "present")
    expect(main).not_to_have_class(re.compile(r"\bpresent\b"))
    expect(page.get_by_role("link", name="Presenter mode", exact=True)).to_be_visible()

    page.goto(state_url(expected_ids[:1], present="1", top_k="5", temperature="0.7"))  # by the URL alone
    expect(main).to_have_class(re.compile(r"\bpresent\b"))
    expect(page.get_by_role("link", name="Leave presenter mode")).to_be_visible()
    assert_fits_width(page, 1280)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_keeps_a_longer_text_on_one_1280x720_screen(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids * 5, present="1"))
    expect(generated(page)).to_have_count(15)
    expect(page.locator("html")).to_have_js_property("scrollHeight", 720, timeout=1000)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_shows_no_guide_outline(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids, present="1"))
    expect(page.locator("#guide")).to_be_hidden()
    expect(page.locator(".guide-target")).to_have_count(0, timeout=1000)


@pytest.mark.browser_context_args(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
def test_presenter_mode_opens_the_screen_as_it_is_after_steps_taken_on_the_page(page: Page) -> None:
    """The link is drawn with the page; each Step's answer brings it up to date, so no Step is lost on the way in
    or out."""
    page.goto("/?prompt=It+is+a+truth&seed=7&guide=0&view=teacher")
    step = page.locator("button[data-control=step]:visible")
    for n in (1, 2):
        step.click()
        expect(page.locator(".text-so-far .gen")).to_have_count(n)
    page.get_by_role("link", name="Presenter mode").click()
    expect(page.locator("main.present")).to_be_visible()
    expect(page.locator(".text-so-far .gen")).to_have_count(2)
    page.locator("button[data-control=step]:visible").click()
    expect(page.locator(".text-so-far .gen")).to_have_count(3)
    page.get_by_role("link", name="Leave presenter mode").click()
    expect(page.locator("main.present")).to_have_count(0)
    expect(page.locator(".text-so-far .gen")).to_have_count(3)
