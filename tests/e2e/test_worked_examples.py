"""The worked examples as a person opens them in Chromium, each with the figures of the step on display.

The figures are compared with the JSON twin's numbers for that step, fetched with Playwright's
request API (the page's CSP forbids evaluating script in it).
"""

from __future__ import annotations

import json
import math
import re
import urllib.request
from collections.abc import Callable
from urllib.parse import urlencode

import pytest
from lesson_page import (
    MODEL,
    PROMPT,
    SEED,
    TEMPERATURE,
    WORKED,
    api_step,
    as_returning_visitor,
    desktop,
    expect_scripts_ran,
    guide,
    state_url,
    worked,
)
from playwright.sync_api import BrowserContext, Locator, Page, expect

no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")
no_script = pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900}, java_script_enabled=False)


def pct(p: float) -> str:
    """0.31049 -> '31.0 %', as the page rounds a probability."""
    return "<0.1 %" if 0 < p < 0.0005 else f"{100 * p:.1f} %"


def num(x: float) -> str:
    """-2.18521 -> '−2.185', as the page rounds a logit."""
    return f"{x:.3f}".replace("-", "\N{MINUS SIGN}")


def label(token: str) -> str:
    return "¶" if token == "<p>" else token


def open_worked(page: Page, name: str) -> Locator:
    """Click a worked example's summary and wait until its text, fetched on opening, shows."""
    details = worked(page, name)
    body = details.locator("p").first
    expect(details.locator("p")).to_have_count(0)  # folded, it came as its summary and a link
    details.get_by_text("Worked example", exact=True).click()
    expect(details).to_have_attribute("open", "")
    expect(body).to_be_visible()
    return details


def step_and_wait(page: Page, index: int) -> None:
    page.get_by_role("button", name="Step", exact=True).click()
    bar = page.locator("#range-bar")
    expect(bar).to_have_attribute("data-step", str(index))
    expect(bar).to_have_attribute("data-state", "done")


def expected_sentences(step: dict, ids: list[int]) -> dict[str, list[str]]:
    """What each worked example must say for this step, written from the twin's numbers."""
    assert step["chosen"]["id"] == ids[-1]  # the step on show picked the last id
    top, second, chosen = step["rows"][0], step["rows"][1], step["chosen"]
    known = next(t for t in step["prompt_tokens"] if not t["unk"])
    kept = [row for row in step["rows"] if row["kept"]][:3]
    ranges = "; ".join(f"{row['lo']:.3f} to {row['hi']:.3f} → '{label(row['token'])}'" for row in kept)
    t = step["temperature"]
    return {
        "encode": [
            f"'{known['source']}' is id {known['id']} in the vocabulary",
            "only the ids: [" + ", ".join(str(tok["id"]) for tok in step["prompt_tokens"]) + "]",
        ],
        "logits": [
            f"The highest score is '{label(top['token'])}' with {num(top['logit'])}, "
            f"then '{label(second['token'])}' with {num(second['logit'])}.",
            f"= {num(top['logit'])}",
        ],
        "softmax": [
            f"z / T = {num(top['logit'])} / {t:g} = {num(top['scaled'])};",
            f"= {pct(top['prob'])}.",
        ],
        "sampling": [
            f"largest first: {ranges}",
            f"r = {step['r']:.3f} (numpy.random.default_rng([{SEED}, {step['step']}]).random())",
            f"It is at least {chosen['lo']:.3f} and below {chosen['hi']:.3f}, so it lands in "
            f"the range of '{label(chosen['token'])}'",
        ],
        "decode": [f"id {ids[-1]} → '{label(chosen['token'])}', appended to the text."],
    }


def expect_sentences(page: Page, step: dict, ids: list[int]) -> None:
    for name, sentences in expected_sentences(step, ids).items():
        for sentence in sentences:
            expect(worked(page, name)).to_contain_text(sentence)


@pytest.fixture(scope="module")
def two_ids(app_url: str) -> list[int]:
    """The first two ids the twin picks for PROMPT and SEED (the request API needs a page, so urllib)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    ids: list[int] = []
    for _ in range(2):
        query = urlencode(
            {"model": MODEL, "prompt": PROMPT, "seed": SEED, "temperature": TEMPERATURE, "ids": ",".join(map(str, ids))}
        )
        with opener.open(f"{app_url}/api/step?{query}", timeout=10) as response:
            ids.append(json.load(response)["chosen"]["id"])
    return ids


@desktop
def test_each_worked_example_opens_on_a_click_and_shows_this_steps_numbers(
    page: Page, context: BrowserContext, two_ids, save_screenshot: Callable
) -> None:
    as_returning_visitor(context)
    page.goto(state_url(two_ids))
    expect_scripts_ran(page)
    expect(guide(page)).to_be_hidden()  # the init script ran before guide.js, despite the CSP
    step = api_step(page, two_ids[:1])  # the page shows the step that picked the last id

    for name in WORKED:
        open_worked(page, name)
    expect_sentences(page, step, two_ids)

    softmax = worked(page, "softmax")
    top = step["rows"][0]
    expect(softmax).to_contain_text(f"the top token has {pct(top['prob'])} instead of {pct(top['prob_t1'])} at T = 1")
    first_row_prob = page.locator("#logits tbody tr").first.locator("td").nth(5)
    expect(first_row_prob).to_contain_text(pct(top["prob"]))  # the example's p is the table's
    # e^(z/T) and the sum, as printed to 4 significant figures, divide to the row's probability
    figures = re.search(
        r"= ([\d.e+]+);\s*divided by the sum over all [\d,]+ tokens \(([\d.e+]+)\)", softmax.inner_text()
    )
    assert figures, softmax.inner_text()
    assert float(figures[1]) / float(figures[2]) == pytest.approx(top["prob"], rel=1.5e-3)
    assert float(figures[1]) == pytest.approx(math.exp(top["scaled"]), rel=5e-4)

    save_screenshot(page, "worked-examples-open")


@no_animation
def test_opened_worked_examples_stay_open_after_a_step(page: Page, context: BrowserContext, two_ids) -> None:
    as_returning_visitor(context)
    page.goto(state_url(two_ids[:1]))
    open_worked(page, "softmax")
    open_worked(page, "sampling")

    step_and_wait(page, 1)

    step = api_step(page, two_ids[:1])
    expect(worked(page, "softmax")).to_have_attribute("open", "")
    expect(worked(page, "sampling")).to_have_attribute("open", "")
    expect(worked(page, "sampling")).to_contain_text(f"r = {step['r']:.3f} (numpy.random.default_rng([{SEED}, 1])")
    expect(worked(page, "softmax")).to_contain_text(f"= {pct(step['rows'][0]['prob'])}.")
    for name in ("encode", "logits", "decode"):  # the ones left folded stay folded
        expect(worked(page, name).locator("p").first).to_be_hidden()

    worked(page, "sampling").get_by_text("Worked example", exact=True).click()  # closed by hand ...
    expect(worked(page, "sampling").locator("p").first).to_be_hidden()
    step_and_wait(page, 2)
    expect(worked(page, "sampling").locator("p").first).to_be_hidden()  # ... stays closed
    expect(worked(page, "softmax")).to_have_attribute("open", "")


@no_script
def test_a_folded_worked_example_opens_by_its_link_without_javascript(
    page: Page, two_ids, save_screenshot: Callable
) -> None:
    page.goto(state_url(two_ids))
    step = api_step(page, two_ids[:1])
    sampling = worked(page, "sampling")
    expect(sampling.locator("p")).to_have_count(0)
    sampling.get_by_text("Worked example", exact=True).click()  # <details> opens without script
    sampling.get_by_role("link", name="Show this step's figures").click()

    opened = worked(page, "sampling")  # a page of its own, the example open
    expect(opened).to_have_attribute("open", "")
    for sentence in expected_sentences(step, two_ids)["sampling"]:
        expect(opened).to_contain_text(sentence)
    save_screenshot(page, "worked-example-without-javascript")
    page.get_by_role("link", name="← Back to the screen").click()
    expect(page.locator("#range-bar")).to_have_attribute("data-step", str(len(two_ids) - 1))
