"""The figures beside each other agree, as a pupil reads them in the browser: each sampler-chain card labels its
bars with what its stage passed on (the figure its sentence names), which are the logits table's figures at that
point; the bigram's count table adds up to the total it states."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

NO_ANIMATION = pytest.mark.browser_context_args(reduced_motion="reduce", viewport={"width": 1366, "height": 900})
PERCENT = re.compile(r"(\d+(?:\.\d+)?) %")


def card(page: Page, stage: str):
    return page.locator(f'#chain li.chain-card[data-stage="{stage}"]')


def bar_labels(card) -> dict[str, str]:
    """{token: its bar's figure} of a stage card's chart."""
    bars = card.locator("svg.stage-bar")
    return {bars.nth(i).locator("text").first.text_content(): bars.nth(i).locator("text.value").text_content()
            for i in range(bars.count())}


def table(page: Page) -> dict[str, tuple[str, str | None]]:
    """{token: (its probability, its 'kept' figure if shown)} of the logits table's rows."""
    rows = page.locator("#logits table.logits-table tbody tr")
    found = {}
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        kept = cells.nth(5).locator(".renorm")
        found[cells.nth(1).locator(".tok").text_content()] = (
            PERCENT.search(cells.nth(5).text_content()).group(0),
            PERCENT.search(kept.text_content()).group(0) if kept.count() else None,
        )
    return found


@NO_ANIMATION
@pytest.mark.parametrize("temperature", ["0.5", "1.5"])
def test_each_chain_card_labels_what_its_stage_passed_on(page: Page, temperature: str):
    page.goto(f"/?prompt=It+is+a+truth&ids=21&seed=7&temperature={temperature}&top_p=0.5&guide=0")
    rows = table(page)
    heat = card(page, "temperature")
    sentence = heat.locator(".stage-sentence").text_content()
    labels = bar_labels(heat)
    top = next(iter(labels.values()))
    assert f"the top one has {top}" in sentence, (sentence, labels)  # the sentence and the longest bar agree
    for token, figure in labels.items():  # the temperature passed on the table's probabilities at T
        assert rows[token][0] == figure, token
    kept = {token: figure for token, figure in bar_labels(card(page, "top_p")).items() if figure != "cut"}
    assert kept, "top-p kept some tokens"
    for token, figure in kept.items():  # top-p, the last stage that cut, passed on the table's 'kept' figures
        assert (rows[token][1] or rows[token][0]) == figure, token


@NO_ANIMATION
def test_the_bigram_count_table_adds_up_to_the_total_it_states(page: Page):
    page.goto("/?prompt=It+is+a+truth&model=austen-bigram&ids=7&seed=7&inside=1&guide=0")
    counts = page.locator("table.inside-counts")
    expect(counts).to_be_visible()
    said = page.locator("#inside .panel-note").first.text_content()
    total = int(re.search(r"followed by another token ([\d,]+) times", said).group(1).replace(",", ""))
    shown = [int(c.replace(",", "")) for c in counts.locator("tbody td:nth-child(2)").all_text_contents()]
    more = counts.locator("tfoot tr.more td").first
    rest = int(more.text_content().replace(",", "")) if more.count() else 0
    assert sum(shown) + rest == total
