"""The article's example on the page and in its JSON twin: r at an end of a range picks the token whose range
starts there, and the figures shown are the decimals typed (webapp/inference/exact.py)."""

from __future__ import annotations

import math

import pytest

from .markup import ids_of, logits_rows, pick_sentence, query_of
from .seeded import page, url

ARTICLE = {"model": "article", "prompt": "", "vocab": "A,B,C", "scores": "0.1,0.2,0.7", "scores_as": "probabilities"}
below, above = (lambda x: math.nextafter(x, 0)), (lambda x: math.nextafter(x, 1))

# (range order, r, the token r picks, its range as the page writes it): the article's "0.0 to 0.1: token 0;
# 0.1 to 0.3: token 1; 0.3 to 1.0: token 2", and largest first [0, 0.7) C, [0.7, 0.9) B, [0.9, 1.0) A.
CASES = [
    ("vocabulary", 0.1, 1, "[0.100, 0.300)"),
    ("vocabulary", below(0.1), 0, "[0.000, 0.100)"),
    ("vocabulary", above(0.1), 1, "[0.100, 0.300)"),
    ("vocabulary", 0.3, 2, "[0.300, 1.000)"),
    ("vocabulary", below(0.3), 1, "[0.100, 0.300)"),
    ("vocabulary", above(0.3), 2, "[0.300, 1.000)"),
    ("probability", 0.1, 2, "[0.000, 0.700)"),
    ("probability", 0.3, 2, "[0.000, 0.700)"),
    ("probability", 0.7, 1, "[0.700, 0.900)"),
    ("probability", below(0.7), 2, "[0.000, 0.700)"),
    ("probability", 0.9, 0, "[0.900, 1.000)"),
    ("probability", below(0.9), 1, "[0.700, 0.900)"),
]


@pytest.mark.parametrize(("order", "r", "token", "_"), CASES)
def test_the_json_twin_picks_the_token_whose_range_holds_r(client, order, r, token, _):
    twin = client.get(url("/api/step", **ARTICLE, range_order=order, r=repr(r))).get_json()
    assert (twin["r"], twin["r_source"], twin["chosen"]["id"]) == (r, "given", token)
    assert twin["chosen"]["lo"] <= r < twin["chosen"]["hi"]


@pytest.mark.parametrize("order", ["vocabulary", "probability"])
def test_the_json_twins_ranges_are_the_decimals_typed(client, order):
    twin = client.get(url("/api/step", **ARTICLE, range_order=order)).get_json()
    by_id = {row["id"]: (row["lo"], row["hi"], row["prob"], row["prob_kept"]) for row in twin["rows"]}
    if order == "vocabulary":
        assert by_id == {0: (0.0, 0.1, 0.1, 0.1), 1: (0.1, 0.3, 0.2, 0.2), 2: (0.3, 1.0, 0.7, 0.7)}
    else:
        assert by_id == {2: (0.0, 0.7, 0.7, 0.7), 1: (0.7, 0.9, 0.2, 0.2), 0: (0.9, 1.0, 0.1, 0.1)}


@pytest.mark.parametrize(("order", "r", "token", "shown"), CASES)
def test_step_with_a_typed_r_at_an_end_picks_and_shows_the_articles_token(client, order, r, token, shown):
    location = client.get(url("/step", **ARTICLE, range_order=order, r=repr(r))).headers["Location"]
    assert ids_of(location) == [token]
    doc = page(client, **query_of(location))
    assert {row.id: row.range for row in logits_rows(doc)}[str(token)] == shown
    if r in (0.1, 0.3, 0.7, 0.9):  # r one float from an end reads as the end itself, even to 8 digits
        assert pick_sentence(doc)[:2] == (f"{r:.3f}", shown)  # 'r = 0.300 falls in [0.300, 1.000)'


def test_the_pages_ranges_read_as_the_article_lays_them_out(client):
    rows = logits_rows(page(client, **ARTICLE, range_order="vocabulary"))
    assert {row.id: row.range for row in rows} == {"0": "[0.000, 0.100)", "1": "[0.100, 0.300)", "2": "[0.300, 1.000)"}


def test_a_share_too_small_to_show_gets_no_range_on_the_page(client):
    tiny = {**ARTICLE, "scores": "5e-324,1e300,1", "range_order": "vocabulary"}
    location = client.get(url("/step", **tiny, r="0")).headers["Location"]
    assert ids_of(location) == [1]
    assert {row.id: row.range for row in logits_rows(page(client, **query_of(location)))}["0"] == "—"
