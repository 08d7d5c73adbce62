"""Stage 4's presenter, tested directly: the range bar's geometry and label rules, the pick and its notes, and
the sections under them (the sampler chain, the uncertainty, sample many), as webapp/web/stages/sampling.py
and its helpers hand them to the templates."""

from __future__ import annotations

import math

import pytest
from markupsafe import Markup, escape

from webapp.inference.derived import explain
from webapp.inference.derived.uncertainty import Uncertainty
from webapp.web.i18n.labels import token_label
from webapp.web.stages import chain_view, sampling, uncertainty_view
from webapp.web.stages.range_bar import REST_LABEL, TOKEN_LABEL, bar_range, kept_ranges, rest_ranges, widest
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .seeded import BASE, joined, other_than, url

LABEL = Markup("girl")


@pytest.fixture
def present(app):
    """Present the sampling panel of the screen a URL's parameters describe, in a request for it."""

    def present(**params) -> sampling.RangesPanel:
        models = app.extensions["models"]
        with app.test_request_context(url("/", **params)):
            screen = build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"]))
            return sampling.present(screen)

    return present


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


# --- the panel ------------------------------------------------------------------------------------


def test_before_a_step_no_r_is_drawn(present):
    panel = present(**BASE)
    assert (panel.taken, panel.drawn_step, panel.r, panel.marker_x) == (False, "", None, "")
    assert not any(piece.landing for piece in panel.ranges)


def test_after_a_step_the_marker_is_at_r_and_the_bar_says_which_step(app, present, three):
    panel = present(**BASE, ids=joined(three))
    result = screen_of(app, **BASE, ids=joined(three)).result
    assert (panel.taken, panel.drawn_step, panel.r) == (True, "2", result.r)
    assert panel.marker_x == f"{result.r * 100:.3f}"
    assert sum(piece.landing for piece in panel.ranges) == 1
    assert result.chosen.lo <= result.r < result.chosen.hi
    assert panel.ticks == (("0", "0"), ("25.0", "0.25"), ("50.0", "0.5"), ("75.0", "0.75"), ("100", "1"))


def test_r_typed_says_the_teacher_typed_r(present, three):
    assert present(**BASE, ids=joined(three), src="s,s,0.999").r_typed
    assert not present(**BASE, ids=joined(three), src="0.999,s,s").r_typed
    assert not present(**BASE, ids=joined(three)).r_typed


def test_the_pick_digits_put_r_inside_its_range(present, three):
    panel = present(**BASE, ids=joined(three))
    lo, hi = panel.pick_range.strip("[)").split(", ")
    assert lo <= panel.r_text < hi and (lo, hi) == (panel.pick_lo, panel.pick_hi)


def test_the_pick_moved_when_the_text_has_another_token_than_r_picks(present, three):
    assert not present(**BASE, ids=joined(three)).pick_moved  # the seeded r picked the text's tokens
    moved = present(**{**BASE, "seed": "8"}, ids=joined(three))
    assert moved.picked != moved.text_token, "seed 8 picks another token at step 2"
    assert moved.pick_moved and not moved.forced


def test_a_token_chosen_by_hand_is_forced_and_not_a_moved_pick(model, present, three):
    token = other_than(model, three, 2)
    panel = present(**BASE, ids=joined([*three[:2], token]), src="s,s,f")
    assert panel.forced and not panel.pick_moved
    assert panel.text_token != panel.picked


def test_the_other_order_note_names_the_token_the_other_order_would_pick(app, present, three):
    for order in ("probability", "vocabulary"):
        params = {**BASE, "ids": joined(three), "range_order": order, "view": "teacher"}
        result = screen_of(app, **params).result
        other = "vocabulary" if order == "probability" else "probability"
        expected = explain.pick_in_order(result, other)
        panel = present(**params)
        assert panel.by_vocabulary == (order == "vocabulary")
        if expected.id == result.chosen.id:
            assert panel.other_order_token is None
        else:
            assert panel.other_order_token == escape(token_label(expected.token))


def test_the_students_view_leaves_the_other_order_out_until_the_order_is_changed(app, present, three):
    """The range order is under More for a student: the note about the other order is for the teacher, or for
    a student who changed the order."""
    seed = next(s for s in range(1, 40) if present(**{**BASE, "seed": str(s)}, ids=joined(three), view="teacher")
                .other_order_token is not None)
    params = {**BASE, "seed": str(seed), "ids": joined(three)}
    assert present(**params).other_order_token is None
    assert present(**params, view="teacher").other_order_token is not None
    assert present(**params, range_order="vocabulary").other_order_token is not None or \
        explain.pick_in_order(screen_of(app, **params, range_order="vocabulary").result, "probability").id == \
        screen_of(app, **params, range_order="vocabulary").result.chosen.id


def test_with_one_token_kept_both_orders_pick_it(present, three):
    assert present(**BASE, ids=joined(three), temperature="0").other_order_token is None


def test_a_hidden_pick_presents_nothing_but_that_it_is_hidden(present, three):
    panel = present(**BASE, ids=joined(three), predict="1")
    assert panel.hidden and panel.ranges == () and panel.chain is None and panel.uncertainty is None


def test_presenter_mode_leaves_out_the_chain_the_uncertainty_and_sample_many(present, three):
    panel = present(**BASE, ids=joined(three), present="1", many="100")
    assert panel.chain is None and panel.many is None and not panel.shows_uncertainty
    assert panel.uncertainty is not None, "its worked example can still be asked for (/fold/worked-uncertainty)"


def test_the_worked_example_writes_the_first_three_ranges_and_where_the_rest_ends(present, three):
    panel = present(**BASE, ids=joined(three))
    assert len(panel.first_ranges) == 3 and panel.first_ranges[0].startswith("0.000 to ")
    assert panel.ranges_end == "… up to 1.000"
    assert present(**BASE, ids=joined(three), top_k="2").ranges_end is None


def test_the_rests_widest_piece_says_how_many_tokens_it_holds(app, present, three):
    panel = present(**BASE, ids=joined(three))
    kept = screen_of(app, **BASE, ids=joined(three)).result.rest.kept_count
    labels = [piece.label for piece in panel.rest_ranges if piece.label is not None]
    assert labels == [f"{kept:,} others"]


# --- the sampler chain ----------------------------------------------------------------------------


def test_every_stage_sentence_but_the_temperatures_has_the_space_it_always_had(present, three):
    chain = present(**BASE, ids=joined(three)).chain
    assert [card.spaced for card in chain.cards] == [card.name != "temperature" for card in chain.cards]
    without = present(**BASE, ids=joined(three), chain="top_k,penalties").chain
    assert [card.spaced for card in without.cards] == [True, True]


def test_the_penalties_card_writes_each_setting_that_is_on(present, three):
    chain = present(**BASE, ids=joined(three), repetition_penalty="1.3", frequency_penalty="0.5").chain
    card = chain.cards[0]
    assert card.penalties and (card.theta, card.alpha_p, card.alpha_f) == ("1.3", None, "0.5")
    assert card.sentence.startswith("Penalties change the scores of tokens the text already has")
    assert "This time they changed " in card.sentence


@pytest.mark.parametrize(
    ("t", "words"), [("0", "(greedy) kept only"), ("0.5", "sharpened"), ("1", "kept the"), ("1.5", "flattened")]
)
def test_the_temperature_card_says_what_its_temperature_did(present, three, t, words):
    chain = present(**BASE, ids=joined(three), temperature=t).chain
    assert words in next(card.sentence for card in chain.cards if card.name == "temperature")


def test_a_truncation_says_at_which_temperature_it_saw_the_probabilities(present, three):
    params = {**BASE, "ids": joined(three), "top_k": "5", "temperature": "0.7"}
    after = present(**params, chain="penalties,temperature,top_k").chain.cards[2]
    before = present(**params, chain="penalties,top_k,temperature").chain.cards[1]
    assert "(at T = 0.7)" in after.sentence
    assert "(at T = 1: the temperature comes later)" in before.sentence


def test_a_cutting_stage_charts_its_top_tokens_scaled_to_the_largest(present, three):
    card = present(**BASE, ids=joined(three), top_k="3").chain.cards[2]
    assert card.charted and len(card.bars) == chain_view.N_BARS
    assert max(float(w) for bar in card.bars for w in (bar.width_in, bar.width_out) if w) == 100.0  # a kept one, after
    assert [bar.cut for bar in card.bars] == [False] * 3 + [True] * 5
    assert all(bar.width_out == "" for bar in card.bars if bar.cut)
    assert card.cut is not None and card.chart_height == chain_view.N_BARS * 14 + 22


def test_a_stage_left_out_can_be_added_back_at_the_end(present, three):
    chain = present(**BASE, ids=joined(three), chain="top_k,penalties").chain
    assert chain.temperature_left_out
    assert [(b.sign, b.set_chain) for b in chain.left_out] == [
        ("Temperature", "top_k,penalties,temperature"),
        ("Top-p", "top_k,penalties,top_p"),
        ("Min-p", "top_k,penalties,min_p"),
    ]
    assert chain.left_out[0].label == "Add Temperature at the end"


def test_the_chains_fields_show_the_screens_settings(app, three):
    with app.test_request_context("/"):
        fields = chain_view.fields(screen_of(app, **BASE, range_order="vocabulary", presence_penalty="0.5"))
    assert fields.by_vocabulary and (fields.repetition_penalty, fields.presence_penalty) == (None, 0.5)


# --- uncertainty and sample many ------------------------------------------------------------------


def uncertainty_of(entropy: float, surprise: float) -> Uncertainty:
    return Uncertainty(
        entropy=entropy, effective_vocab=2**entropy, top_token="the", top_prob=0.5, picked_token=" girl",
        picked_prob=2**-surprise, surprise=surprise, n_kept=3, terms=(),
    )


def test_a_pick_less_surprising_than_the_entropy_is_less_surprising_than_average(app):
    with app.test_request_context("/"):
        assert "less surprising" in uncertainty_view.surprise_note(uncertainty_of(entropy=2.0, surprise=1.0))
        assert "more surprising" in uncertainty_view.surprise_note(uncertainty_of(entropy=2.0, surprise=3.0))
        assert "'␣girl'" in uncertainty_view.surprise_note(uncertainty_of(entropy=2.0, surprise=3.0))


def test_the_uncertainty_writes_the_entropys_terms_and_its_ceiling(present, three):
    u = present(**BASE, ids=joined(three)).uncertainty
    assert len(u.terms) == 3 and u.more_terms
    assert u.max_entropy == f"{math.log2(u.n_kept):.3f}"
    greedy = present(**BASE, ids=joined(three), temperature="0").uncertainty
    assert greedy.max_entropy is None and not greedy.more_terms and greedy.entropy == "0.000"


def test_sample_many_presses_the_button_of_its_size_and_scales_to_the_largest_bar(present, three):
    many = present(**BASE, ids=joined(three), many="1000").many
    assert many.drawn and [button.pressed for button in many.buttons] == [False, True, False]
    widths = [float(w) for row in many.rows for w in (row.prob_width, row.share_width)]
    assert max(widths) == 40.0
    assert [row.y for row in many.rows[:3]] == [2, 24, 46] and many.chart_height == len(many.rows) * 22 + 4
    assert not present(**BASE, ids=joined(three)).many.drawn


def test_the_uncertaintys_worked_example_opens_in_presenter_mode_too(client, three):
    answer = client.get(url("/fold/worked-uncertainty", **BASE, ids=joined(three), present="1"))
    assert answer.status_code == 200 and "the entropy adds" in answer.get_data(as_text=True)
