"""A page's size grows with what it shows, not with the square of it: the state is written once per form;
and a Step sends what is on screen, its folds as their summaries."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from webapp.web.url.state import DEFAULT_PROMPT

from .markup import HTMX, hidden_fields, parse

PROMPT = "中" * 1990 + " a"  # 18 KB of the address, percent-encoded


def page_bytes(client, n_ids: int, headers=None) -> int:
    ids = ",".join(str(10 + i % 4000) for i in range(n_ids))
    query = urlencode({"prompt": PROMPT, "model": "austen-bigram", "ids": ids})
    response = client.get(f"/?{query}", headers=headers or {})
    assert response.status_code == 200
    return len(response.get_data())


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragments"])
def test_each_generated_token_adds_a_few_hundred_bytes_not_the_state(client, headers):
    small, large = page_bytes(client, 100, headers), page_bytes(client, 1000, headers)
    per_token = (large - small) / 900
    assert per_token < 400, f"{per_token:.0f} bytes a token: the state is repeated"
    assert large < 1_000_000


def default_step(client) -> bytes:
    """A Step from the default screen, as its controls form sends it (with what the screen shows)."""
    page = parse(client.get("/").data)
    fields = {**hidden_fields(page), "prompt": DEFAULT_PROMPT, "temperature": "1.0", "seed": "1"}
    response = client.get("/step?" + urlencode(fields), headers=HTMX)
    assert response.status_code == 200
    return response.get_data()


def test_a_step_sends_each_fold_as_its_summary_and_a_link(client):
    doc = parse(default_step(client))
    folds = [e for e in doc.iter() if "data-fold" in e.attrs]
    assert len(folds) == 7  # six worked examples and the chart's numbers
    for fold in folds:
        assert [child.tag for child in fold.top_level()] == ["summary", "a"], fold.attrs["id"]


def test_a_step_of_the_default_screen_is_smaller_than_with_every_fold_open(client):
    folded = len(default_step(client))
    guided = len(client.get("/step?guide=1", headers=HTMX).get_data())
    assert folded < guided - 2_500, f"{folded:,} bytes folded, {guided:,} with every fold open"


@pytest.mark.xfail(
    strict=True,
    reason="the issue's goal; about 30 KB on screen and not folded: the range bar, sampler chain and its "
    "buttons (8 KB), the logits table (7 KB), the chart (6 KB), the share panel's links (3 KB), the chips",
)
def test_a_step_of_the_default_screen_is_at_most_15_kb(client):
    assert len(default_step(client)) <= 15_000
