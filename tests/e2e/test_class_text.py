"""A model built from a pasted text: three steps, each step's probabilities the counts recomputed from the text's
sentences; its link opened in a second browser shows the same numbers."""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qs, urlsplit

from class_counts import class_probs, ids_of, step_probs, vocabulary_of
from playwright.sync_api import Browser, Page, expect

TEXT = ("The cat sat on the mat . The dog sat on the rug .\n\n"
        "The cat saw the dog . The dog saw the cat !\n\n"
        "The mat was red . The rug was blue .")
SENTENCES = ["The cat sat on the mat .", "The dog sat on the rug .", "The cat saw the dog .",
             "The dog saw the cat !", "The mat was red .", "The rug was blue ."]


def table_rows(page: Page) -> list[str]:
    return [" ".join(t.split()) for t in page.locator("#logits table.logits-table tbody tr").all_inner_texts()]


def test_a_pasted_text_builds_a_model_whose_steps_are_its_counts_and_whose_link_shows_the_same(
    browser: Browser, app_url: str, save_screenshot
) -> None:
    context = browser.new_context(base_url=app_url, reduced_motion="reduce", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto("/build")
    page.locator("#class-text").fill(TEXT)
    page.get_by_role("button", name="Build the model").click()
    expect(page).to_have_url(re.compile(r"model=class(:|%3A)[a-z0-9]{10}"))
    model = parse_qs(urlsplit(page.url).query)["model"][0]

    for n in range(1, 4):
        page.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
        expect(page).to_have_url(re.compile(r"ids=" + r"\d+(%2C|,)" * (n - 1) + r"\d+"))
    query = parse_qs(urlsplit(page.url).query)
    ids = query["ids"][0].split(",")
    assert len(ids) == 3 and query["model"] == [model], "Step keeps the class's model"
    token_ids = ids_of(app_url, model, vocabulary_of(SENTENCES))
    for i in range(3):  # the step that picked ids[i] read the ones before it
        probs, prev = step_probs(app_url, {"model": model, "prompt": "", "ids": ",".join(ids[:i])}, token_ids)
        expected = class_probs(SENTENCES, prev)
        assert set(probs) == set(expected)
        for token, p in expected.items():
            assert math.isclose(probs[token], p, rel_tol=1e-9), (i, prev, token)
    shown = table_rows(page)
    save_screenshot(page, "class-text-step")

    other = browser.new_context(base_url=app_url, reduced_motion="reduce", viewport={"width": 1280, "height": 900})
    second = other.new_page()
    second.goto(page.url.replace(app_url, ""))
    assert table_rows(second) == shown, "the link shows the same numbers in another browser"
    second.goto(f"/class/{model.split(':')[1]}")
    expect(second.locator("body")).to_contain_text("The dog saw the cat !")
    other.close()
    context.close()
