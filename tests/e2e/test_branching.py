"""History and branching: a generated token shows its step again; choose another token there and go on from it."""

from __future__ import annotations

import re

import pytest
from on_screen import (
    click_step,
    expect_step_done,
    expect_url_param,
    generated,
    no_animation,
    not_picked_row_token,
    picked_token,
    table_rows,
    url_ids,
)
from playwright.sync_api import Page, expect
from stepping import api_step, state_url


@no_animation
def test_clicking_a_generated_token_shows_its_step_again(page: Page, expected_ids, app_url: str) -> None:
    page.goto(state_url(expected_ids))
    expect_step_done(page, 2)
    first = generated(page).first
    step0 = api_step(app_url, [])

    first.click()

    expect_url_param(page, "at", "0")
    expect_step_done(page, 0)
    expect(first).to_have_attribute("aria-current", "step")
    expect(first).to_have_class(re.compile(r"\bgen-shown\b"))
    expect(generated(page).nth(2)).not_to_have_attribute("aria-current", "step")
    expect(generated(page)).to_have_count(3)  # looking back drops nothing
    expect(page.locator("#logits tr.picked .tok")).to_have_text(step0["chosen"]["token"])
    assert table_rows(page)[0] == ("1", step0["rows"][0]["token"], str(step0["rows"][0]["id"]))
    assert picked_token(page) == step0["chosen"]["token"]

    generated(page).nth(1).click()
    expect_step_done(page, 1)
    expect(generated(page).nth(1)).to_have_attribute("aria-current", "step")
    expect(first).not_to_have_attribute("aria-current", "step")


@no_animation
def test_choose_instead_forces_a_token_and_generation_goes_on_from_it(page: Page, expected_ids, app_url) -> None:
    page.goto(state_url(expected_ids))
    generated(page).nth(1).click()  # back to step 1
    expect_step_done(page, 1)
    token = not_picked_row_token(page)

    page.get_by_role("button", name=f"Choose '{token}' instead", exact=True).click()

    expect(generated(page)).to_have_count(2)  # step 2 is dropped
    last = generated(page).last
    expect(last).to_have_text(token)
    expect(last).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(last).to_have_attribute("title", re.compile("chosen by hand"))
    expect_url_param(page, "src", "s,f")
    forced_row = page.locator("#logits tbody tr.forced")
    expect(forced_row.locator(".tok")).to_have_text(token)
    expect(forced_row.locator(".badge-forced")).to_have_text("chosen")
    expect(page.locator("#logits tr.picked .badge-picked")).to_have_text("r picked")
    expect(page.locator("#ranges .forced-note")).to_contain_text(f"The teacher chose '{token}' instead of the pick")
    expect(page.locator("#announce")).to_contain_text(f"the teacher chose '{token}' instead")
    forced_id = url_ids(page)[1]
    assert url_ids(page)[0] == expected_ids[0]

    click_step(page, 2)

    expect_url_param(page, "src", "s,f,s")
    next_id = api_step(app_url, [expected_ids[0], forced_id])["chosen"]["id"]
    assert url_ids(page) == [expected_ids[0], forced_id, next_id]
    expect(generated(page).nth(1)).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(generated(page).last).not_to_have_class(re.compile(r"\bgen-forced\b"))

    page.reload()
    expect(generated(page)).to_have_count(3)
    expect(generated(page).nth(1)).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(generated(page).nth(1)).to_have_text(token)


@no_animation
def test_choose_instead_swaps_the_panels_in_place(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1]))
    expect_step_done(page, 0)
    page.evaluate("window.sameDocument = true")  # gone if the browser loads a new page
    token = not_picked_row_token(page)

    with page.expect_request(re.compile(r"/choose\?")) as asked:
        page.get_by_role("button", name=f"Choose '{token}' instead", exact=True).click()

    expect(generated(page).last).to_have_text(token)
    expect(generated(page).last).to_have_class(re.compile(r"\bgen-forced\b"))
    expect_url_param(page, "src", "f")
    assert asked.value.headers.get("hx-request") == "true"
    assert page.evaluate("window.sameDocument") is True


@pytest.mark.browser_context_args(java_script_enabled=False)
def test_without_javascript_choose_instead_still_works(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:2]))
    token = not_picked_row_token(page)

    page.get_by_role("button", name=f"Choose '{token}' instead", exact=True).click()

    expect_url_param(page, "src", "s,f")
    expect(generated(page)).to_have_count(2)
    expect(generated(page).last).to_have_text(token)
    expect(page.locator("#logits tbody tr.forced .tok")).to_have_text(token)
    assert url_ids(page)[0] == expected_ids[0]
