"""Stage 4's presenter, tested directly: the range bar's geometry and label rules (webapp/web/stages/range_bar.py)."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from webapp.web.stages.range_bar import REST_LABEL, TOKEN_LABEL, bar_range, kept_ranges, rest_ranges, widest
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .seeded import BASE, joined

LABEL = Markup("girl")


def screen_of(app, **params):
    models = app.extensions["models"]
    return build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"]))


# --- the range bar's geometry ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hi", "label", "narrow"),
    [(0.044, False, False), (0.046, True, True), (0.1399, True, True), (0.14, True, False), (0.62, True, False)],
)
def test_a_tokens_range_is_labelled_above_4_5_percent_and_narrow_below_14(hi, label, narrow):
    drawn = bar_range(0.0, hi, LABEL, TOKEN_LABEL)
    assert (drawn.label is not None, drawn.narrow) == (label, narrow)


@pytest.mark.parametrize(("width", "label", "narrow"), [(8.9, False, False), (9.1, True, True), (20, True, False)])
def test_the_rests_label_needs_9_percent_and_is_narrow_below_20(width, label, narrow):
    assert (REST_LABEL.labelled(width), REST_LABEL.labelled(width) and REST_LABEL.narrow(width)) == (label, narrow)


def test_a_range_is_drawn_in_percent_of_the_bar_with_three_decimals():
    drawn = bar_range(0.25, 0.5, LABEL, TOKEN_LABEL, landing=True)
    assert (drawn.x, drawn.width, drawn.label_x, drawn.label) == ("25.000", "25.000", "37.500", LABEL)
    assert drawn.landing and not drawn.narrow
    assert bar_range(0.21133, 0.33144, LABEL, TOKEN_LABEL).x == "21.133"


def test_an_unlabelled_range_has_no_label_place():
    assert bar_range(0.0, 0.01, LABEL, TOKEN_LABEL).label_x == ""


def test_the_widest_piece_of_the_rest_is_the_first_of_the_widest():
    assert widest([(0.70, 0.77), (0.77, 1.0)]) == 1
    assert widest([(0.0, 0.2), (0.5, 0.7)]) == 0
    assert widest([]) is None


def test_only_the_rests_widest_piece_is_labelled_and_only_where_it_has_room():
    roomy = rest_ranges([(0.0, 0.05), (0.5, 0.6), (0.8, 0.85)], LABEL)
    assert [piece.label for piece in roomy] == [None, LABEL, None] and roomy[1].narrow
    cramped = rest_ranges([(0.0, 0.05), (0.5, 0.58)], LABEL)
    assert [piece.label for piece in cramped] == [None, None]


def test_only_kept_rows_get_a_range_and_only_the_picked_one_lands(app, three):
    screen = screen_of(app, **BASE, ids=joined(three), top_k="3")
    rows = screen.result.rows
    drawn = kept_ranges(rows, screen.short_labels(10), screen.result.chosen.id)
    assert len(drawn) == sum(row.kept for row in rows) == 3
    assert [piece.landing for piece in drawn] == [row.id == screen.result.chosen.id for row in rows if row.kept]
