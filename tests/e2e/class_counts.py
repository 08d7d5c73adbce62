"""A class model's probabilities recomputed from its sentences by a plain count, as a pupil would with the page's
formula; and the mixed model's Austen part from the Austen bigram's own JSON twin. Nothing here reads the class
model's tables: the sentences are written with spaces around each punctuation mark, so str.split is the tokenizer.
"""

from __future__ import annotations

import json
import math
import urllib.request
from collections import Counter
from urllib.parse import urlencode

SPECIALS = ("<unk>", "<p>", "<s>")


def get_json(url: str) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=20) as response:
        return json.load(response)


def class_probs(sentences: list[str], prev: str, k: float = 0.01) -> dict[str, float]:
    """p(next | prev) = (count(prev, next) + k) / (count(prev) + k * V) for every token of the class's vocabulary."""
    pairs: Counter = Counter()
    for sentence in sentences:
        tokens = ["<s>", *sentence.split(), "<s>"]
        pairs.update(zip(tokens, tokens[1:], strict=False))
    vocab = [*SPECIALS, *{w for s in sentences for w in s.split()}]
    n_prev = sum(n for (p, _), n in pairs.items() if p == prev)
    return {w: (pairs[prev, w] + k) / (n_prev + k * len(vocab)) for w in vocab}


def austen_probs(app_url: str, vocab: list[str], prev: str) -> dict[str, float]:
    """Austen's bigram's probability of each class token after prev, from its JSON twin: a word it lacks shares its
    <unk>'s probability with <unk> itself and the other words it lacks, <s> is its <p>; then scaled to add up to 1."""
    query = {"model": "austen-bigram", "prompt": "" if prev == "<s>" else prev, "full": "1"}
    rows = get_json(f"{app_url}/api/step?{urlencode(query)}")["rows"]
    austen = {row["token"]: row["prob_t1"] for row in rows}
    as_austen = {w: "<p>" if w == "<s>" else w if w in austen else "<unk>" for w in vocab}
    sharing = Counter(as_austen.values())
    q = {w: austen[as_austen[w]] / sharing[as_austen[w]] for w in vocab}
    total = math.fsum(q.values())
    return {w: p / total for w, p in q.items()}


def step_probs(app_url: str, query: dict) -> tuple[dict[str, float], str]:
    """{token: probability at T = 1} of every token of the step the query names, and the token it read."""
    answer = get_json(f"{app_url}/api/step?{urlencode({**query, 'full': '1'})}")
    read = answer["context_ids"][-1] if answer["context_ids"] else None
    tokens = {row["id"]: row["token"] for row in answer["rows"]}
    return {row["token"]: row["prob_t1"] for row in answer["rows"]}, tokens.get(read, "<s>")
