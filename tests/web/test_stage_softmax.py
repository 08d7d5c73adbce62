"""Stage 3's presenter, tested directly: what T does to the distribution and which sentence says so, the
chart's geometry, what presenter mode and predict-then-reveal leave out, and the worked example's case."""

from __future__ import annotations

import pytest

from webapp.inference.derived.table import Row
from webapp.web.stages import softmax
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .seeded import BASE, joined


@pytest.fixture
def panel_of(app):
    """The softmax panel of the screen that these query parameters ask for."""

    def panel(**params) -> softmax.ChartPanel:
        models = app.extensions["models"]
        with app.test_request_context("/"):
            screen = build_screen(models, parse_state({**BASE, **params}, models, app.config["DEFAULT_MODEL"]))
            return softmax.present(screen)

    return panel


def row(prob: float, prob_t1: float) -> Row:
    return Row(rank=1, id=0, token="a", logit=0.0, scaled=0.0, prob=prob, prob_t1=prob_t1, kept=True, prob_kept=prob,
               lo=0.0, hi=prob)


@pytest.mark.parametrize(
    ("t", "how"),
    [(0.0, "greedy"), (1e-300, "sharper"), (0.5, "sharper"), (0.999, "sharper"), (1.0, "unchanged"), (1.001, "flatter"),
     (2.0, "flatter")],
)
def test_spread_says_what_t_does_to_the_distribution(t, how):
    assert softmax.spread(t) == how


@pytest.mark.parametrize(("x", "text"), [(28.27194, "28.272"), (50.0, "50"), (0.0, "0"), (0.0004, "0"), (12.5, "12.5")])
def test_percent_keeps_a_thousandth_without_trailing_zeros(x, text):
    assert softmax.percent(x) == text


def test_the_chart_is_a_row_height_per_bar_and_a_margin_above_and_below():
    assert softmax.chart_height(20, presenting=False) == 20 * 24 + 8
    assert softmax.chart_height(9, presenting=True) == 9 * 30 + 8


def test_the_longest_bar_is_the_largest_p_at_t_or_at_t1_but_a_tiny_chart_is_not_blown_up():
    assert softmax.bar_scale([row(0.2, 0.4), row(0.3, 0.1)]) == 0.4
    assert softmax.bar_scale([row(0.5, 0.4)]) == 0.5
    assert softmax.bar_scale([row(1e-6, 2e-6)]) == softmax.FLOOR


@pytest.mark.parametrize(
    ("temperature", "heading", "note", "both"),
    [
        ("0", "Softmax at T = 0 (greedy)", None, True),
        ("0.5", "Softmax at T = 0.5", "T &lt; 1 sharpens the distribution.", True),
        ("1", "Softmax at T = 1", None, False),
        ("1.5", "Softmax at T = 1.5", "T &gt; 1 flattens it.", True),
    ],
)
def test_the_heading_and_the_note_say_what_t_does(panel_of, temperature, heading, note, both):
    panel = panel_of(temperature=temperature)
    assert panel.heading == heading and panel.spread_note == note
    assert panel.greedy == (temperature == "0")
    assert panel.both == both  # at T = 1 the numbers' two columns would be one
    assert panel.numbers_caption == ("Probabilities at T = 1" if temperature == "1" else
                                     f"Probabilities at T = {temperature} and at T = 1")


def test_a_bar_per_row_the_longest_half_the_width_the_pick_marked(panel_of, three):
    panel = panel_of(ids=joined(three[:1]), temperature="1.5")
    assert len(panel.bars) >= 20 and panel.height == len(panel.bars) * 24 + 8  # the pick may add a row from below
    assert [bar.y for bar in panel.bars[:3]] == [4, 28, 52]
    assert max(float(bar.width_t1) for bar in panel.bars) == 50  # at T = 1.5 the top token's T = 1 bar is the longer
    assert max(float(bar.width) for bar in panel.bars) < 50
    assert [bar.marks for bar in panel.bars].count("picked") == 1


def test_presenter_mode_sends_no_comparison_and_no_numbers(panel_of):
    projector, laptop = panel_of(present="1"), panel_of()
    assert not projector.compare and projector.compare_rows == () and not projector.numbers.sent
    assert projector.height == len(projector.bars) * 30 + 8
    assert laptop.compare and len(laptop.compare_rows) == 5 and laptop.numbers.sent


@pytest.mark.parametrize(("temperature", "columns"), [("1", ["0.5", "1", "1.5"]), ("0.7", ["0.5", "0.7", "1", "1.5"])])
def test_the_comparison_marks_the_chosen_temperatures_column(panel_of, temperature, columns):
    panel = panel_of(temperature=temperature)
    assert [c.temperature for c in panel.compare_columns] == columns
    current = [c.current for c in panel.compare_columns]
    assert current == [c == temperature for c in columns]
    assert all([now for _, now in r.cells] == current for r in panel.compare_rows)


def test_while_hidden_the_panel_draws_nothing_that_would_give_the_pick_away(panel_of, three):
    panel = panel_of(ids=joined(three[:1]), predict="1")
    assert panel.hidden and panel.bars == () and not panel.compare and panel.example is None


def test_at_t0_the_worked_example_has_nothing_to_divide(panel_of):
    panel = panel_of(temperature="0")
    assert panel.example is None and panel.greedy_top


@pytest.mark.parametrize(
    ("temperature", "says"),
    [("0.5", "is below 1, so the distribution is sharper"), ("1", "At T = 1 the logits are used as they are."),
     ("1.5", "is above 1, so the distribution is flatter")],
)
def test_the_worked_example_says_what_t_did(panel_of, temperature, says):
    example = panel_of(temperature=temperature).example
    assert says in example.spread and not example.shifted and example.zmax == ""


def test_the_worked_example_subtracts_the_largest_logit_only_where_e_to_the_z_over_t_would_overflow(panel_of):
    example = panel_of(temperature="1e-5").example
    assert example.shifted and example.zmax and example.exponent == "0.000"


def test_the_worked_example_gives_the_models_own_logit_when_the_penalties_moved_it(panel_of):
    moved = panel_of(prompt="and the and the and", model="austen-transformer", repetition_penalty="1.2",
                     temperature="0.8").example
    assert "after the penalties; the model gave" in moved.for_token
    assert panel_of(temperature="0.8").example.for_token.startswith("For '")
    assert "the model gave" not in panel_of(temperature="0.8").example.for_token
