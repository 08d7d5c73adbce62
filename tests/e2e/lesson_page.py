"""The bigram state the worked-example, guide and vocabulary browser tests open, and what they read off the page."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

MODEL = "austen-bigram"  # pinned: the counts, ids and Darcy's place are this model's
PROMPT = "The girl saw a"
SEED = "44"
TEMPERATURE = "0.8"  # below 1, so the softmax example says how much sharper
WORKED = ("encode", "logits", "softmax", "sampling", "uncertainty", "decode")
GUIDE_KEY = "token-by-token:guide-dismissed"
desktop = pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")


def state_url(ids: Sequence[int] = (), **extra: str) -> str:
    query = {"model": MODEL, "prompt": PROMPT, "seed": SEED, "temperature": TEMPERATURE, **extra}
    if ids:
        query["ids"] = ",".join(map(str, ids))
    return "/?" + urlencode(query)


def api_step(page: Page, ids: list[int], **extra: str) -> dict:
    """The JSON twin's step after `ids`, through the context's request API (same server, no CSP)."""
    query = {
        "model": MODEL,
        "prompt": PROMPT,
        "seed": SEED,
        "temperature": TEMPERATURE,
        "ids": ",".join(map(str, ids)),
        **extra,
    }
    response = page.request.get("/api/step?" + urlencode(query))
    assert response.ok, response.text()
    return response.json()


def worked(page: Page, name: str) -> Locator:
    return page.locator(f"details.worked#worked-{name}")


def guide(page: Page) -> Locator:
    return page.get_by_role("complementary", name="A first run, step by step")


def expect_scripts_ran(page: Page) -> None:
    """The page's scripts have run (they unhide the help button), so a hidden guide was hidden by guide.js."""
    expect(page.get_by_role("button", name="Keyboard help (?)")).to_be_visible()


def as_returning_visitor(context: BrowserContext) -> None:
    """A returning visitor who dismissed the guide: the key is set before any page script runs."""
    context.add_init_script(script=f"window.localStorage.setItem({GUIDE_KEY!r}, '1');")
