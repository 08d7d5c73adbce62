"""The production server serves the page, and the page needs nothing beyond 127.0.0.1."""

import re

from playwright.sync_api import Page, expect


def test_page_opens_with_its_title_and_no_outside_requests(page: Page, app_url: str, requests_seen) -> None:
    page.goto(app_url + "/")

    expect(page).to_have_title(re.compile("Token by token"))
    page.wait_for_load_state("networkidle")  # let late requests (htmx on load, fonts) happen too
    assert requests_seen, "the browser recorded no requests at all"
    assert requests_seen.external() == []
