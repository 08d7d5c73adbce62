"""The vocabulary page: reached from a token chip, searched as you type, and left for the very screen it came from."""

from __future__ import annotations

import re
from collections.abc import Callable

from lesson_page import MODEL, api_step, as_returning_visitor, desktop, state_url
from playwright.sync_api import BrowserContext, Page, expect


@desktop
def test_a_token_chip_leads_to_the_vocabulary_which_searches_as_you_type(
    page: Page, context: BrowserContext, save_screenshot: Callable
) -> None:
    as_returning_visitor(context)
    page.goto(state_url())
    step = api_step(page, [])
    girl = next(t for t in step["prompt_tokens"] if t["text"] == "girl")
    chip = page.get_by_role("list", name="Tokens").get_by_role("listitem").filter(has_text="girl")

    chip.get_by_role("link").click()

    expect(page).to_have_url(re.compile(rf"/vocab\?model={MODEL}&q=girl#t-{girl['id']}$"))
    expect(
        page.get_by_role("heading", name=re.compile(r"The vocabulary of austen-bigram: 5,000 tokens"))
    ).to_be_visible()
    row = page.locator(f"#t-{girl['id']}")
    expect(row).to_be_visible()
    expect(row.locator("td").nth(0)).to_have_text(str(girl["id"]))
    expect(row.locator("td").nth(1)).to_have_text("girl")
    search = page.get_by_label("Search the vocabulary")
    expect(search).to_have_value("girl")

    url_before = page.url
    search.fill("")
    search.press_sequentially("darc", delay=30)  # no Enter: htmx asks as you type
    results = page.locator("#vocab-results")
    expect(results).to_contain_text("2 tokens match 'darc'.")
    darcy = results.locator("tbody tr").first
    expect(darcy.locator("td").nth(1)).to_have_text("Darcy")
    darcy_id = darcy.locator("td").nth(0).inner_text()
    assert page.url == url_before  # a fragment swap, not a page load

    search.fill(darcy_id)  # by its id
    expect(results).to_contain_text(f"match '{darcy_id}'")
    expect(results.locator("tbody tr").first).to_have_id(f"t-{darcy_id}")
    expect(results.locator("tbody tr").first.locator("td").nth(1)).to_have_text("Darcy")

    search.fill("<unk>")
    expect(results.locator("tbody tr").first).to_contain_text("<unk>")
    expect(results.locator("tbody tr").first.locator(".badge-special")).to_have_text("special")
    search.fill("darc")
    expect(results).to_contain_text("2 tokens match 'darc'.")
    save_screenshot(page, "vocabulary")


@desktop
def test_back_from_the_vocabulary_returns_to_the_screen_it_came_from(page: Page, context: BrowserContext) -> None:
    as_returning_visitor(context)
    page.goto(state_url())
    step_button = page.get_by_role("button", name="Step", exact=True)
    for n in (1, 2):
        step_button.click()
        expect(page.locator("#tokens .chip-generated")).to_have_count(n)
    screen = page.url
    assert "ids=" in screen
    page.get_by_role("list", name="Tokens").get_by_role("listitem").first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(r"/vocab\?"))
    search = page.get_by_label("Search the vocabulary")
    search.fill("darcy")
    search.press("Enter")  # the form's own submit: a new vocabulary page
    expect(page).to_have_url(re.compile(r"/vocab\?.*q=darcy"))

    page.get_by_role("link", name="Back to the stepper").click()

    expect(page).to_have_url(screen)
    expect(page.locator("#tokens .chip-generated")).to_have_count(2)
