"""Worked examples, the guided first run and the vocabulary, as a person sees them in Chromium.

The figures each worked example shows are compared with the JSON twin's numbers for the step on
display, fetched with Playwright's request API (the page's CSP forbids evaluating script in it).
The guide remembers its dismissal in localStorage; a test that needs a returning visitor presets the
key with an init script, which the browser injects regardless of the page's CSP (checked below).
"""

from __future__ import annotations

import json
import math
import re
import urllib.request
from collections.abc import Callable, Sequence
from urllib.parse import urlencode

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

MODEL = "austen-bigram"  # pinned: the counts, ids and Darcy's place are this model's
PROMPT = "The girl saw a"
SEED = "44"
TEMPERATURE = "0.8"  # below 1, so the softmax example says how much sharper
WORKED = ("encode", "logits", "softmax", "sampling", "decode")
GUIDE_KEY = "token-by-token:guide-dismissed"
N_HINTS = 6

no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")
desktop = pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")


# --- helpers -------------------------------------------------------------------------------------


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


def pct(p: float) -> str:
    """0.31049 -> '31.0 %', as the page rounds a probability."""
    return "<0.1 %" if 0 < p < 0.0005 else f"{100 * p:.1f} %"


def num(x: float) -> str:
    """-2.18521 -> '−2.185', as the page rounds a logit."""
    return f"{x:.3f}".replace("-", "\N{MINUS SIGN}")


def label(token: str) -> str:
    return "¶" if token == "<p>" else token


def worked(page: Page, name: str) -> Locator:
    return page.locator(f"details.worked#worked-{name}")


def open_worked(page: Page, name: str) -> Locator:
    """Click a worked example's summary and wait until its text shows."""
    details = worked(page, name)
    body = details.locator("p").first
    expect(body).to_be_hidden()
    details.get_by_text("Worked example", exact=True).click()
    expect(details).to_have_attribute("open", "")
    expect(body).to_be_visible()
    return details


def guide(page: Page) -> Locator:
    return page.get_by_role("complementary", name="A first run, step by step")


def expect_scripts_ran(page: Page) -> None:
    """The page's scripts have run (they unhide the help button), so a hidden guide was hidden by guide.js."""
    expect(page.get_by_role("button", name="Keyboard help (?)")).to_be_visible()


def step_and_wait(page: Page, index: int) -> None:
    page.get_by_role("button", name="Step", exact=True).click()
    bar = page.locator("#range-bar")
    expect(bar).to_have_attribute("data-step", str(index))
    expect(bar).to_have_attribute("data-state", "done")


def as_returning_visitor(context: BrowserContext) -> None:
    """A returning visitor who dismissed the guide: the key is set before any page script runs."""
    context.add_init_script(script=f"window.localStorage.setItem({GUIDE_KEY!r}, '1');")


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


# --- worked examples -----------------------------------------------------------------------------


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


# --- the guided first run ------------------------------------------------------------------------


@desktop
def test_the_guided_run_can_be_completed_and_is_not_shown_again(page: Page, save_screenshot: Callable) -> None:
    page.goto(state_url())  # a fresh browser context: a first visit
    panel = guide(page)
    expect(panel).to_be_visible()
    count = panel.locator(".guide-count")
    hints = panel.locator(".guide-hints li")
    expect(hints).to_have_count(N_HINTS)
    expect(count).to_have_text(f"Hint 1 of {N_HINTS}")
    expect(hints.nth(0)).to_be_visible()
    expect(hints.nth(1)).to_be_hidden()
    expect(page.locator("#prompt-panel")).to_have_class(re.compile(r"\bguide-target\b"))
    save_screenshot(page, "guided-run")

    for i in range(1, N_HINTS):
        panel.get_by_role("button", name="Next", exact=True).click()
        expect(count).to_have_text(f"Hint {i + 1} of {N_HINTS}")
        expect(hints.nth(i)).to_be_visible()
        expect(hints.nth(i - 1)).to_be_hidden()
        target = hints.nth(i).get_attribute("data-target")
        expect(page.locator(f"#{target}")).to_have_class(re.compile(r"\bguide-target\b"))
    expect(page.locator(".guide-target")).to_have_count(1)
    panel.get_by_role("button", name="Done", exact=True).click()

    expect(panel).to_be_hidden()
    expect(page.locator(".guide-target")).to_have_count(0)
    page.goto(state_url())  # the next visit
    expect_scripts_ran(page)
    expect(page.locator("#guide")).to_be_hidden()


def test_dont_show_again_dismisses_the_guide_and_guide_1_brings_it_back(page: Page) -> None:
    page.goto(state_url())
    panel = guide(page)
    expect(panel).to_be_visible()
    panel.get_by_role("button", name="Next", exact=True).click()
    expect(panel.locator(".guide-count")).to_have_text(f"Hint 2 of {N_HINTS}")

    panel.get_by_role("button", name="Don't show again", exact=True).click()
    expect(panel).to_be_hidden()
    page.reload()
    expect_scripts_ran(page)
    expect(page.locator("#guide")).to_be_hidden()

    page.goto(state_url(guide="1"))  # guided mode shows it even after the dismissal, from the start
    expect(guide(page)).to_be_visible()
    expect(guide(page).locator(".guide-count")).to_have_text(f"Hint 1 of {N_HINTS}")
    for name in WORKED:  # and every worked example open
        expect(worked(page, name)).to_have_attribute("open", "")
        expect(worked(page, name).locator("p").first).to_be_visible()


def test_the_help_dialog_shows_the_guided_run_again(page: Page, context: BrowserContext) -> None:
    as_returning_visitor(context)
    page.goto(state_url())
    expect_scripts_ran(page)
    expect(page.locator("#guide")).to_be_hidden()

    page.get_by_role("button", name="Keyboard help (?)").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Show the guided first run again").click()

    expect(dialog).to_be_hidden()
    expect(guide(page)).to_be_visible()
    expect(guide(page).locator(".guide-count")).to_have_text(f"Hint 1 of {N_HINTS}")
    guide(page).get_by_role("button", name="Don't show again", exact=True).click()
    expect(guide(page)).to_be_hidden()


# --- the vocabulary ------------------------------------------------------------------------------


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
