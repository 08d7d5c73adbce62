"""An empty prompt keeps its start token: every step after it, on the page, in the JSON twin, inside the
forward pass and in the work budget's count, reads <|endoftext|> first, as step 0 does.

A tiny random llama-architecture GGUF model stands in for SmolLM2 (no download), and its logits are
checked against a reference pass written apart from the app's (unit/tiny_gguf.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from webapp.inference.machinery import llama_gguf
from webapp.web import create_app

from .markup import logits_rows, parse
from .seeded import url

NAME = "tiny-llama"
ENDOFTEXT = 0  # <|endoftext|>: the tiny vocabulary's first token, as SmolLM2's
IDS = [29, 201, 77]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(an app whose one model is a tiny GGUF llama model, the weights the reference pass reads)."""
    pytest.importorskip("gguf")
    from unit.tiny_gguf import write_tiny_gguf

    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    weights = write_tiny_gguf(path)
    model = llama_gguf.from_gguf(path, NAME)
    folder = tmp_path_factory.mktemp("rooms")
    app = create_app({"TESTING": True, "MODELS": {NAME: model}, "ROOM_STORE": f"sqlite:///{folder / 'r.sqlite3'}"})
    return app, weights


def reference(weights, ids):
    from unit.tiny_gguf import reference_logits

    return reference_logits(weights, ids)


def joined(ids) -> str:
    return ",".join(map(str, ids))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_the_json_twins_step_reads_the_start_token_then_the_ids(tiny, n):
    app, weights = tiny
    twin = app.test_client().get(url("/api/step", model=NAME, prompt="", temperature="1", ids=joined(IDS[:n]),
                                     full="1")).get_json()
    assert twin["context_ids"] == [ENDOFTEXT, *IDS[:n]]
    np.testing.assert_allclose(twin["logits"], reference(weights, [ENDOFTEXT, *IDS[:n]]), rtol=2e-4, atol=2e-4)


def test_the_page_shows_the_step_over_the_start_token_and_the_ids(tiny):
    app, weights = tiny
    response = app.test_client().get(url("/", model=NAME, prompt="", ids=joined(IDS)))
    assert response.status_code == 200
    top = int(np.argmax(reference(weights, [ENDOFTEXT, *IDS[:-1]])))  # the page shows the step that picked IDS[-1]
    assert logits_rows(parse(response.data))[0].id == str(top)


def test_inside_the_forward_pass_the_start_token_is_the_first_position(tiny):
    app, weights = tiny
    inside = app.test_client().get(url("/api/inside", model=NAME, prompt="", ids=joined(IDS[:2]))).get_json()
    assert inside["ids"] == [ENDOFTEXT, *IDS[:2]]
    last = inside["lens"][-1]  # the last layer's guess is the model's own
    expected = reference(weights, [ENDOFTEXT, *IDS[:2]])
    np.testing.assert_allclose(last["logits"], expected[last["ids"]], rtol=2e-4, atol=2e-4)


def test_the_work_budget_counts_the_start_token(tiny):
    app, _ = tiny
    strict = create_app({"TESTING": True, "MODELS": app.extensions["models"], "WORK_BUDGET_SECONDS": 0.0,
                         "RESPONSE_CACHE_BYTES": 0, "ROOM_STORE": app.config["ROOM_STORE"]})
    refused = strict.test_client().get(url("/api/step", model=NAME, prompt="", ids=joined(IDS[:2])))
    assert refused.status_code == 422
    assert f"{len(IDS[:2]) + 1} positions of {NAME}" in refused.get_json()["error"]
