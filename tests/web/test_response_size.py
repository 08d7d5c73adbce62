"""A page's size grows with what it shows, not with the square of it: the state is written once per form."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .markup import HTMX

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
