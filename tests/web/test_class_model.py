"""A class model named in a URL: its sentences read from the store, its k and its mix from the URL.

Every probability is recomputed here from the sentences with a plain count, not from the app's tables.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from webapp.inference.class_text import from_room
from webapp.web.class_model import class_access

SENTENCES = [("ana", "We like lunch ."), ("ben", "We like school ."), ("ana", "Lunch is good ."),
             ("cy", "We eat lunch at school .")]


@pytest.fixture(scope="module")
def name(app) -> str:
    with app.test_request_context("/"):
        return class_access.keep(from_room(SENTENCES, "lunch"))


def recomputed(prev: str, k: float) -> dict[str, float]:
    """p(next | prev) = (count(prev, next) + k) / (count(prev) + k * V), counted from SENTENCES."""
    pairs: Counter = Counter()
    for _, sentence in SENTENCES:
        tokens = ["<s>", *sentence.split(), "<s>"]
        pairs.update(zip(tokens, tokens[1:], strict=False))
    vocab = ["<unk>", "<p>", "<s>", *{w for _, s in SENTENCES for w in s.split()}]
    n_prev = sum(n for (p, _), n in pairs.items() if p == prev)
    return {w: (pairs[prev, w] + k) / (n_prev + k * len(vocab)) for w in vocab}


@pytest.mark.parametrize("k", [None, 0.5, 1.0])
def test_a_step_reads_the_class_counts_smoothed_with_the_urls_k(client, name, k):
    answer = client.get(f"/api/step?model={name}&prompt=We+like&full=1" + (f"&k={k}" if k else "")).json
    expected = recomputed("like", k or 0.01)
    probs = {row["token"]: row["prob"] for row in answer["rows"]}
    assert set(probs) == set(expected)
    for token, p in expected.items():
        assert math.isclose(probs[token], p, rel_tol=1e-12)


def test_a_missing_class_model_says_it_may_have_expired_and_a_bad_k_or_weight_is_a_400(client, name):
    gone = client.get("/?model=class:aaaaaaaaaa")
    assert gone.status_code == 400 and b"may have expired" in gone.data
    for bad in ("k=0", "k=2", "k=nan", "mix=1.5", "mix=-0.1"):
        answer = client.get(f"/?model={name}&{bad}")
        assert answer.status_code == 400, bad
    assert client.get("/?model=class:../../etc").status_code == 400
