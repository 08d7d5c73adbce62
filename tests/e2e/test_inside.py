"""Inside the forward pass, in Chromium: open the panel after two Steps, enlarge a head, read the lens."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Page, expect
from stepping import START, first_picks, state_url

no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")


def api_inside(app_url: str, ids: list[int], **params) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{app_url}/api/inside{state_url(ids, **params)[1:]}", timeout=20) as response:
        return json.load(response)


@no_animation
def test_open_the_panel_enlarge_a_head_and_read_the_lens(page: Page, app_url: str):
    picks = first_picks(app_url, 2)
    page.goto(START)
    for n in (1, 2):
        page.get_by_role("button", name="Step", exact=True).click()
        expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
        expect(page).to_have_url(re.compile(f"ids={','.join(map(str, picks[:n]))}(&|$)"))
    panel = page.locator("#inside")
    panel.get_by_role("link", name="Open the forward pass").click()
    expect(panel.get_by_role("heading", name="The logit lens: each layer's guess")).to_be_visible()
    expect(page).to_have_url(re.compile(r"inside=1"))

    panel.get_by_role("button", name=re.compile(r"^Layer 2, head 3:")).click()
    expect(panel.get_by_role("heading", name="Layer 2, head 3")).to_be_visible()
    expect(page).to_have_url(re.compile(r"layer=2&head=3"))

    twin = api_inside(app_url, picks[:1], layer="2", head="3")
    lens_rows = panel.locator("table.lens tbody tr")
    expect(lens_rows).to_have_count(twin["layers"] + 1)
    last = lens_rows.last
    top = twin["lens"][-1]
    expect(last).to_contain_text(f"{100 * top['probs'][0]:.1f} %")
    expect(last).to_contain_text(f"#{top['picked_rank']}")
    weight = max(twin["head"]["weights"][-1])
    expect(panel.locator(".head-row")).to_contain_text(f"{100 * weight:.1f} %")

    page.get_by_role("button", name="Step", exact=True).click()  # a Step keeps the panel open, for the new step
    expect(page).to_have_url(re.compile(r"layer=2&head=3"))
    expect(panel.get_by_role("heading", name="Layer 2, head 3")).to_be_visible()
    expect(panel.locator("table.lens tbody tr").last).to_contain_text(
        f"{100 * api_inside(app_url, picks[:2], layer='2', head='3')['lens'][-1]['probs'][0]:.1f} %")


@pytest.mark.browser_context_args(java_script_enabled=False)
def test_the_panel_opens_and_enlarges_without_javascript(page: Page, app_url: str):
    picks = first_picks(app_url, 1)
    page.goto(state_url(picks))
    page.locator("#inside").get_by_role("link", name="Open the forward pass").click()
    expect(page).to_have_url(re.compile(r"inside=1"))
    page.locator("#inside").get_by_role("button", name=re.compile(r"^Layer 4, head 1:")).click()
    expect(page.locator("#inside").get_by_role("heading", name="Layer 4, head 1")).to_be_visible()
    page.locator("#inside").get_by_role("link", name="Close").click()
    expect(page.locator("#inside").get_by_role("link", name="Open the forward pass")).to_be_visible()
