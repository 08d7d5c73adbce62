"""The seeded state the classroom tests start from, and small helpers to ask the app about it.

Three ids are picked by the seeded r with BASE's settings (the `three` fixture in conftest.py);
tests branch from them, type an r for them, hide them, share them and export them.
"""

from __future__ import annotations

from urllib.parse import urlencode

from webapp.inference import Settings, run_step_table

from .markup import Element, parse

PROMPT = "It is a truth universally acknowledged"
BASE = {"prompt": PROMPT, "seed": "7"}
SETTINGS = Settings(temperature=1.0, seed=7)


def url(path: str, **params) -> str:
    return f"{path}?{urlencode(params, safe=',')}" if params else path


def picked_ids(model, n: int) -> list[int]:
    """The first n ids picked by the seeded r with BASE's settings."""
    ids: list[int] = []
    for _ in range(n):
        ids.append(run_step_table(model, PROMPT, ids, SETTINGS).chosen.id)
    return ids


def other_than(model, ids: list[int], step: int) -> int:
    """A token of step `step`'s table that the seeded r did not pick: one to choose instead."""
    result = run_step_table(model, PROMPT, ids[:step], SETTINGS)
    return next(row.id for row in result.rows[1:] if row.id != result.chosen.id)


def joined(ids) -> str:
    return ",".join(map(str, ids))


def error_text(response) -> str:
    return " ".join(parse(response.data).by_id("error").text().split())


def page(client, **params) -> Element:
    response = client.get(url("/", **params))
    assert response.status_code == 200, error_text(response)
    return parse(response.data)
