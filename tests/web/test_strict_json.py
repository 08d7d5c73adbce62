"""Every JSON answer is strict JSON: a number that is not finite is null, never NaN or Infinity."""

from __future__ import annotations

import json

import pytest

ZERO_SCORE = "/api/step?model=article&vocab=A,B,C&scores=0.5,0.5,0&full=1"  # C: probability 0, logit -inf


def strict(text: str):
    """Parse as a strict parser does: NaN, Infinity and -Infinity are errors."""

    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "url",
    [ZERO_SCORE, "/export.json?model=article&vocab=A,B,C&scores=0.5,0.5,0&ids=0,1", "/api/models"],
)
def test_the_answer_is_strict_json(client, url):
    answer = client.get(url)
    assert answer.status_code == 200
    strict(answer.get_data(as_text=True))


def test_a_logit_of_minus_infinity_is_written_as_null(client):
    step = strict(client.get(ZERO_SCORE).get_data(as_text=True))
    assert None in step["logits"]
    assert all(isinstance(x, float) for x in step["logits"] if x is not None)
