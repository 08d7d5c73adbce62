"""/api/decode: greedy and beam search from the prompt, every figure checked against /api/step's own logits."""

from __future__ import annotations

import math
from urllib.parse import urlencode

import pytest

PROMPTS = ["It is a truth", "She was", "The girl saw a"]
ROUNDING = 1e-5  # beams after the first level run their positions one at a time (machinery/kvcache.py): float32


def log_prob(client, model: str, prompt: str, ids: list[int], token: int) -> float:
    """The token's log-probability after prompt and ids, from the step's logits at T = 1: z - log(sum(exp(z)))."""
    query = {"model": model, "prompt": prompt, "full": "1", "ids": ",".join(map(str, ids))}
    logits = client.get(f"/api/step?{urlencode(query)}").json["logits"]
    top = max(z for z in logits if z is not None)
    return logits[token] - top - math.log(math.fsum(math.exp(z - top) for z in logits if z is not None))


@pytest.mark.parametrize("model", ["austen-bigram", "austen-transformer"])
@pytest.mark.parametrize("prompt", PROMPTS)
def test_every_beam_is_its_tokens_log_probabilities_and_the_best_is_never_below_greedy(client, model, prompt):
    query = {"model": model, "prompt": prompt, "width": "3", "max_new_tokens": "3", "length_penalty": "1"}
    answer = client.get(f"/api/decode?{urlencode(query)}").json
    for beam in [answer["greedy"], *answer["beams"]]:
        expected = [log_prob(client, model, prompt, beam["ids"][:n], token) for n, token in enumerate(beam["ids"])]
        assert all(math.isclose(a, b, abs_tol=ROUNDING) for a, b in zip(beam["log_probs"], expected, strict=True))
        assert math.isclose(beam["total"], math.fsum(expected), abs_tol=len(expected) * ROUNDING)
    scores = [beam["score"] for beam in answer["beams"]]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3
    assert answer["beams"][0]["total"] >= answer["greedy"]["total"] - len(answer["greedy"]["ids"]) * ROUNDING


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_is_the_stepper_at_temperature_zero(client, prompt):
    answer = client.get(f"/api/decode?{urlencode({'prompt': prompt, 'max_new_tokens': '4', 'width': '2'})}").json
    ids: list[int] = []
    for _ in range(4):
        query = {"prompt": prompt, "temperature": "0", "ids": ",".join(map(str, ids))}
        ids.append(client.get(f"/api/step?{urlencode(query)}").json["chosen"]["id"])
    assert answer["greedy"]["ids"] == ids


def test_each_level_keeps_width_candidates_and_names_the_rest_pruned(client):
    answer = client.get("/api/decode?prompt=It+is+a+truth&model=austen-bigram&width=2&max_new_tokens=3").json
    for level, after in zip(answer["levels"], [*answer["levels"][1:], None], strict=True):
        kept = [c for c in level["candidates"] if c["fate"] == "kept"]
        assert len(kept) == 2 and {c["fate"] for c in level["candidates"]} <= {"kept", "pruned", "finished"}
        assert all(c["total"] >= p["total"] for c in kept for p in level["candidates"] if p["fate"] == "pruned")
        if after is not None:
            assert sorted(after["beams"]) == sorted(level["beams"][c["beam"]] + [c["id"]] for c in kept)


@pytest.mark.parametrize("bad", ["width=9", "width=0", "width=x", "max_new_tokens=21", "length_penalty=nan",
                                 "length_penalty=6"])
def test_a_bad_setting_is_a_400_that_says_which(client, bad):
    answer = client.get(f"/api/decode?prompt=It+is&{bad}")
    assert answer.status_code == 400 and bad.split("=")[0] in answer.json["error"]


def test_the_word_models_write_on_past_any_end_and_say_so(client):
    answer = client.get("/api/decode?prompt=It+is&model=austen-bigram&width=2&max_new_tokens=5").json
    assert answer["eos_id"] is None and all(len(b["ids"]) == 5 and not b["ended"] for b in answer["beams"])
