"""The sampler chain in the browser: reorder it with and without JavaScript, the cards against the JSON twin,
the article's model, sampling 1,000 times, and the text coloured by surprise."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlencode

import pytest
from on_screen import expect_url_param, no_animation, url_query
from playwright.sync_api import Page, expect

BASE = {"model": "austen-bigram", "prompt": "Mr. Darcy said", "seed": "7", "ids": "5,263", "top_k": "40",
        "top_p": "0.9", "temperature": "0.7", "repetition_penalty": "1.3"}
LLAMA_CPP = "penalties,top_k,top_p,min_p,temperature"
desktop = pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")


def url(**params: str) -> str:
    return "/?" + urlencode({**BASE, **params})


@no_animation
def test_reorder_the_chain_with_javascript(page: Page) -> None:
    page.goto(url())
    cards = page.locator("#chain li.chain-card")
    expect(cards).to_have_count(5)
    page.get_by_role("button", name="llama.cpp").click()
    expect_url_param(page, "chain", LLAMA_CPP)
    expect(cards.last).to_have_attribute("data-stage", "temperature")
    page.get_by_role("button", name="Move Temperature earlier").click()
    expect_url_param(page, "chain", "penalties,top_k,top_p,temperature,min_p")
    expect(cards.nth(3)).to_have_attribute("data-stage", "temperature")
    page.get_by_role("button", name="Leave Penalties out").click()
    expect(cards).to_have_count(4)
    expect(page.get_by_role("button", name="Add Penalties at the end")).to_be_visible()
    assert url_query(page)["ids"] == "5,263"  # reordering redraws the step; it takes none


@pytest.mark.browser_context_args(java_script_enabled=False)
def test_reorder_the_chain_without_javascript(page: Page) -> None:
    page.goto(url())
    page.get_by_role("button", name="llama.cpp").click()
    expect(page.locator("#chain li.chain-card").last).to_have_attribute("data-stage", "temperature")
    page.get_by_role("button", name="Move Temperature earlier").click()
    expect(page.locator("#chain li.chain-card").nth(3)).to_have_attribute("data-stage", "temperature")
    page.get_by_role("button", name="Step").click()  # the form carries the new chain on
    expect(page.locator("#chain li.chain-card").nth(3)).to_have_attribute("data-stage", "temperature")
    assert url_query(page)["chain"] == "penalties,top_k,top_p,temperature,min_p"


@desktop
def test_the_cards_match_the_json_twin(page: Page, save_screenshot: Callable) -> None:
    page.goto(url(chain=LLAMA_CPP))
    response = page.request.get("/api/step?" + urlencode({**BASE, "ids": "5", "chain": LLAMA_CPP}))
    stages = response.json()["stages"]
    cards = page.locator("#chain li.chain-card")
    for i, stage in enumerate(stages):
        card = cards.nth(i)
        expect(card).to_have_attribute("data-stage", stage["stage"])
        if stage["stage"] in ("top_k", "top_p") and stage["on"]:
            mass = f"{100 * stage['mass_kept']:.1f} %"
            expect(card).to_contain_text(f"kept {stage['n_kept']:,} tokens, {mass} of the probability")
    expect(cards.nth(2)).to_contain_text("at T = 1: the temperature comes later")
    save_screenshot(page, "chain-cards")


@desktop
def test_the_article_model_and_its_ranges(page: Page, save_screenshot: Callable) -> None:
    page.goto("/?model=article&range_order=vocabulary")
    expect(page.get_by_label("Scores")).to_have_value("0.1,0.2,0.7")
    page.locator("#worked-sampling summary").click()
    expect(page.locator("#worked-sampling")).to_contain_text(
        "0.000 to 0.100 → 'A'; 0.100 to 0.300 → 'B'; 0.300 to 1.000 → 'C'")
    page.get_by_label("Scores").fill("0.5,0.25,0.25")
    page.get_by_label("Scores").press("Tab")  # a change event, as leaving the field gives
    expect_url_param(page, "scores", "0.5,0.25,0.25")
    expect(page.locator("#worked-sampling")).to_contain_text("0.000 to 0.500 → 'A'")
    page.get_by_role("button", name="Step").click()
    expect(page.locator("#pick-sentence")).to_contain_text(re.compile(r"r = 0\.\d{3} falls in"))
    save_screenshot(page, "chain-article")


@desktop
def test_the_article_model_reads_no_prompt_and_keeps_it_for_the_way_back(page: Page) -> None:
    page.goto("/?" + urlencode({**BASE, "ids": "", "guide": "0"}))
    page.get_by_label("Model", exact=True).select_option("article")
    expect(page.locator("#prompt-heading")).to_contain_text("this model reads no text")
    expect(page.locator("#prompt")).to_have_count(0)
    page.get_by_label("Token names").fill("cat,dog,bird")
    page.get_by_label("Token names").press("Tab")  # a change event, as leaving the field gives
    expect(page.locator("#logits")).to_contain_text("bird")
    page.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
    page.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
    expect(page).to_have_url(re.compile(r"[?&]ids=\d(?:%2C|,)\d(?:&|$)"))
    text = page.locator(".text-so-far").inner_text().split()
    assert len(text) == 2 and set(text) <= {"cat", "dog", "bird"}  # the article's tokens, no prompt before them
    page.get_by_label("Model", exact=True).select_option("austen-bigram")
    expect(page.locator("#prompt")).to_have_value(BASE["prompt"])
    expect(page.locator(".text-so-far")).to_have_text(BASE["prompt"])


@desktop
def test_sample_1000_times(page: Page, save_screenshot: Callable) -> None:
    page.goto(url(top_k="6", top_p="1"))
    page.get_by_role("button", name="Sample 1,000 times").click()
    expect_url_param(page, "many", "1000")
    rows = page.locator("#many table tbody tr")
    expect(rows).to_have_count(6)
    counts = [int(rows.nth(i).locator("td").nth(1).inner_text()) for i in range(6)]
    assert sum(counts) == 1000
    save_screenshot(page, "chain-sample-1000")


@no_animation
def test_the_surprise_colouring_toggles(page: Page) -> None:
    page.goto(url())
    page.get_by_role("button", name="Colour by surprise: off").click()
    expect(page.locator("#surprise-legend")).to_be_visible()
    tinted = ", ".join(f".text-so-far button.gen.surprise-{level}" for level in range(6))
    expect(page.locator(tinted)).to_have_count(2)
    expect_url_param(page, "surprise", "1")
    page.get_by_role("button", name="Colour by surprise: on").click()
    expect(page.locator("#surprise-legend")).to_have_count(0)
