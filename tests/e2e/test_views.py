"""The student's view and the teacher's in the browser: "More" folds the seed, the penalties and the classroom
controls on a student's screen and opens with a click; the teacher's-view link switches, and a reload, a Step and
a new seed keep it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from on_screen import click_step, expect_url_param, generated, no_animation, url_query
from playwright.sync_api import Page, expect
from stepping import state_url

FOLDED = ("Seed", "Repetition θ", "Ranges", "Your r (next step only)", "Predict, then reveal")


@no_animation
def test_more_folds_for_a_student_and_the_teachers_view_link_opens_it_for_good(
    page: Page, expected_ids, save_screenshot: Callable
) -> None:
    page.goto(state_url(expected_ids[:1]))
    more = page.locator("details#more")
    for label in FOLDED:
        expect(page.get_by_label(label, exact=True)).to_be_hidden()
    expect(page.get_by_role("link", name="Presenter mode", exact=True)).to_be_hidden()
    expect(page.get_by_text("Held-out perplexity", exact=False)).to_be_hidden()
    for label in ("Temperature", "Top-k", "Top-p", "Min-p", "Model"):
        expect(page.get_by_label(label, exact=True)).to_be_visible()
    save_screenshot(page, "student-view")

    more.locator("summary").click()  # a student opens More
    for label in FOLDED:
        expect(page.get_by_label(label, exact=True)).to_be_visible()
    expect(page.locator("#seed-hint")).to_contain_text("The seed fixes the random numbers r")
    click_step(page, 1)
    expect(more).to_have_attribute("open", "")  # a Step leaves it as the student left it
    assert "view" not in url_query(page)

    page.get_by_role("link", name="Teacher's view").click()
    expect_url_param(page, "view", "teacher")
    assert url_query(page)["ids"] == ",".join(map(str, expected_ids[:2]))  # the same screen, after the Step
    expect(more).to_have_attribute("open", "")
    page.reload()
    expect(more).to_have_attribute("open", "")
    expect(page.get_by_label("Seed", exact=True)).to_be_visible()

    page.get_by_label("Seed", exact=True).fill("45")
    page.get_by_label("Seed", exact=True).press("Tab")  # a change event, as leaving the field gives
    expect_url_param(page, "seed", "45")
    expect_url_param(page, "view", "teacher")
    click_step(page, 2)
    expect_url_param(page, "view", "teacher")
    expect(generated(page)).to_have_count(3)
    page.reload()
    expect(more).to_have_attribute("open", "")
    save_screenshot(page, "teacher-view")

    page.get_by_role("link", name="Student's view").click()
    expect(page).not_to_have_url(re.compile(r"[?&]view="))
    expect(more).not_to_have_attribute("open", "")
    expect(generated(page)).to_have_count(3)


@pytest.mark.browser_context_args(java_script_enabled=False)
def test_more_opens_and_the_view_is_kept_without_javascript(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1]))
    expect(page.get_by_label("Seed", exact=True)).to_be_hidden()
    page.locator("details#more summary").click()
    expect(page.get_by_label("Seed", exact=True)).to_be_visible()
    page.get_by_role("link", name="Teacher's view").click()
    page.get_by_role("button", name="Step", exact=True).click()  # the form carries view=teacher on
    expect(page).to_have_url(re.compile(r"[?&]view=teacher(&|$)"))
    expect(page.locator("details#more")).to_have_attribute("open", "")
