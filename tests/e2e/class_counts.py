"""A class model's probabilities recomputed from its sentences by a plain count, as a pupil would with the page's
formula; and the mixed model's Austen part from the Austen bigram's own JSON twin. Nothing here reads the class
model's tables: the sentences are written with spaces around each punctuation mark, so str.split is the tokenizer,
and the JSON twin is asked only for each token's id (by encoding the words) and for the logits of a step.
"""

from __future__ import annotations

import json
import math
import urllib.request
from collections import Counter
from urllib.parse import urlencode

UNKNOWN = "zqxjvw"  # a word no model here knows


def get_json(url: str) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=20) as response:
        return json.load(response)


def api(app_url: str, **query) -> dict:
    return get_json(f"{app_url}/api/step?{urlencode(query)}")


def vocabulary_of(sentences: list[str]) -> list[str]:
    return ["<unk>", "<p>", "<s>", *dict.fromkeys(w for s in sentences for w in s.split())]


def class_probs(sentences: list[str], prev: str, k: float = 0.01) -> dict[str, float]:
    """p(next | prev) = (count(prev, next) + k) / (count(prev) + k * V) for every token of the class's vocabulary."""
    pairs: Counter = Counter()
    for sentence in sentences:
        tokens = ["<s>", *sentence.split(), "<s>"]
        pairs.update(zip(tokens, tokens[1:], strict=False))
    vocab = vocabulary_of(sentences)
    n_prev = sum(n for (p, _), n in pairs.items() if p == prev)
    return {w: (pairs[prev, w] + k) / (n_prev + k * len(vocab)) for w in vocab}


def ids_of(app_url: str, model: str, vocab: list[str]) -> dict[str, int]:
    """Each token's id in the model, by encoding the words (and a blank line for <p>, an unknown word for <unk>);
    <s>, the class's start, is where an empty text starts (an Austen model's is its <p>)."""
    words = [w for w in vocab if w not in ("<unk>", "<p>", "<s>")]
    answer = api(app_url, model=model, prompt=" ".join(words) + f" {UNKNOWN}\n\n")
    ids = {t["source"]: t["id"] for t in answer["prompt_tokens"]}
    start = api(app_url, model=model, prompt="")["context_ids"][0]
    return {**{w: ids[w] for w in words}, "<unk>": ids[UNKNOWN], "<p>": ids["\n\n"], "<s>": start}


def softmax(logits: list[float]) -> list[float]:
    top = max(x for x in logits if x is not None)
    e = [math.exp(x - top) if x is not None else 0.0 for x in logits]
    total = math.fsum(e)
    return [x / total for x in e]


def step_probs(app_url: str, query: dict, ids: dict[str, int]) -> tuple[dict[str, float], str]:
    """{token: probability at T = 1} of the step the query names, from its logits; and the token it read."""
    answer = api(app_url, **query, full="1")
    p = softmax(answer["logits"])
    assert len(p) == len(ids), "the model's vocabulary is the sentences' words and <unk>, <p>, <s>"
    by_id = {i: w for w, i in ids.items()}
    return {w: p[i] for w, i in ids.items()}, by_id[answer["context_ids"][-1]]


def austen_probs(app_url: str, vocab: list[str], prev: str) -> dict[str, float]:
    """Austen's bigram's probability of each class token after prev: a word it lacks shares its <unk>'s probability
    with <unk> itself and the other words it lacks, <s> is its <p>; then scaled to add up to 1."""
    austen = ids_of(app_url, "austen-bigram", vocab)
    as_austen = {w: austen["<p>"] if w == "<s>" else austen[w] for w in vocab}
    p = softmax(api(app_url, model="austen-bigram", prompt="" if prev == "<s>" else prev, full="1")["logits"])
    sharing = Counter(as_austen.values())
    q = {w: p[as_austen[w]] / sharing[as_austen[w]] for w in vocab}
    total = math.fsum(q.values())
    return {w: x / total for w, x in q.items()}
