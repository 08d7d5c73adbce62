"""The state the browser tests step through, and how to ask the JSON twin what Step must pick."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlencode

PROMPT = "The girl saw a"
SEED = "44"
START = "/?" + urlencode({"prompt": PROMPT, "seed": SEED})


def state_url(ids: list[int], **params) -> str:
    """The page's own URL for PROMPT and SEED with these generated ids (and any other parameters)."""
    query = {"prompt": PROMPT, "seed": SEED, **params}
    if ids:
        query["ids"] = ",".join(map(str, ids))
    return "/?" + urlencode(query)


def api_step(app_url: str, ids: list[int], **params) -> dict:
    """Ask the JSON twin for the step after `ids` (no proxy: the server is on 127.0.0.1)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{app_url}/api/step{state_url(ids, **params)[1:]}", timeout=10) as response:
        return json.load(response)


def first_picks(app_url: str, n: int = 3) -> list[int]:
    """The first n ids the JSON twin picks for PROMPT and SEED: what Step must append."""
    ids: list[int] = []
    for _ in range(n):
        ids.append(api_step(app_url, ids)["chosen"]["id"])
    return ids


def tab_to(page, target, presses: int = 60) -> None:
    """Press Tab until target (a Playwright locator) has the focus, as a keyboard user reaches it."""
    focused = target.and_(page.locator(":focus"))
    for _ in range(presses):
        page.keyboard.press("Tab")
        if focused.count():
            return
