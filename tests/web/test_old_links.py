"""Links made before the sampler chain existed (no chain, no penalties, no range order) keep their numbers.

tests/web/fixtures/old_urls.json holds the JSON twin of a set of such links as the app answered them
before the chain: every key it had then must come back bit for bit (floats compared exactly). Keys
and rows added since (the rest's counts by kind, a row for a pick below the table) are left aside.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "old_urls.json"
RECORDED = json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("recorded", RECORDED, ids=lambda rec: "&".join(f"{k}={v}" for k, v in rec["query"].items()))
def test_old_link_gives_the_same_numbers_as_before_the_chain(client, recorded):
    response = client.get("/api/step?" + urlencode(recorded["query"]))
    assert response.status_code == 200
    assert recorded_part(response.get_json(), recorded["step"]) == recorded["step"]


def recorded_part(now, before):
    """The part of `now` that `before` recorded: its keys of a dict, its first items of a list."""
    if isinstance(before, dict):
        return {key: recorded_part(now[key], value) for key, value in before.items()}
    if isinstance(before, list):
        return [recorded_part(a, b) for a, b in zip(now, before, strict=False)]
    return now
