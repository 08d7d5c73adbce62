"""The presenter of "Inside the forward pass" (webapp/web/stages/inside.py, its pictures in inside_attention.py),
its rules tested directly: which form the panel takes, where it links, the pictures' geometry, which sentence fits."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from webapp.web.i18n.translations import template_gettext
from webapp.web.stages import folds
from webapp.web.stages.inside import InsidePanel, present, strip_cells, strip_scale
from webapp.web.stages.inside_attention import matrix_cells, shades, strongest
from webapp.web.stages.inside_numbers import N_POSITIONS, build_numbers, panel_form
from webapp.web.stages.screen import Screen, build_screen
from webapp.web.url.parse import parse_state

from .models import BIGRAM_MODEL
from .seeded import BASE, joined, url

LONG = joined(10 + i % 50 for i in range(150))  # past the transformer's window of 128


def screen_of(app, **params) -> Screen:
    models = app.extensions["models"]
    return build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"]))


def presented(app, lang: str = "en", **params) -> InsidePanel:
    """The panel's view for the screen with these query parameters, in a request for them."""
    with app.test_request_context(url("/", lang=lang, **params)):
        app.preprocess_request()
        return present(screen_of(app, **params))


@pytest.fixture
def ids(three) -> str:
    return joined(three)


@pytest.mark.parametrize(
    ("params", "form"),
    [
        ({}, "closed"),
        ({"inside": "1"}, "layers"),
        ({"inside": "1", "model": BIGRAM_MODEL}, "bigram"),
        ({"inside": "1", "model": "article", "ids": "1"}, "typed"),
        ({"model": "article", "ids": "1"}, "typed"),
        ({"inside": "1", "predict": "1"}, "hidden"),
        ({"inside": "1", "predict": "1", "model": "article", "ids": "1"}, "hidden"),  # a hidden pick is hidden first
    ],
)
def test_the_panel_takes_the_form_its_screen_asks_for(app, ids, params, form):
    assert panel_form(screen_of(app, **BASE, **{"ids": ids, **params})) == form


def test_the_closed_panel_is_the_link_that_opens_it_and_nothing_more(app, ids):
    panel = presented(app, **BASE, ids=ids, layer="2")
    assert not panel.is_open and panel.close_href is None
    query = parse_qs(urlsplit(panel.open_href).query)
    assert query["inside"] == ["1"] and query["ids"] == [ids] and query["layer"] == ["2"]
    assert (panel.counts, panel.layers, panel.embeddings, panel.attention, panel.head, panel.lens) == (None,) * 6


@pytest.mark.parametrize("params", [{"predict": "1"}, {"model": "article", "ids": "1"}])
def test_a_panel_that_cannot_open_offers_no_link(app, ids, params):
    panel = presented(app, **BASE, inside="1", **{"ids": ids, **params})
    assert not panel.is_open and panel.open_href is None and panel.close_href is None


def test_closing_drops_the_panels_own_settings_and_keeps_the_rest(app, ids):
    panel = presented(app, **BASE, ids=ids, inside="1", layer="2", head="1", near="0")
    assert panel.is_open and panel.open_href is None
    query = parse_qs(urlsplit(panel.close_href).query)
    assert query["ids"] == [ids] and not {"inside", "layer", "head", "near"} & query.keys()


def test_the_bigram_shows_its_count_row_and_writes_out_its_first_follower(app):
    panel = presented(app, prompt="Mr. Darcy", model=BIGRAM_MODEL, inside="1")
    assert panel.layers is None and panel.attention is None
    counts = [int(row.count.replace(",", "")) for row in panel.counts.rows]
    assert counts == sorted(counts, reverse=True) and sum(counts) <= panel.counts.row_total
    assert panel.bigram_worked.first == panel.counts.rows[0]


def test_the_embedding_strips_colour_each_dimension_by_its_sign_and_size(app, ids):
    panel = presented(app, **BASE, ids=ids, inside="1")
    e = panel.embeddings
    opacities = [opacity for strip in e.strips for _, _, opacity in strip.cells]
    assert max(opacities) == 1.0 and min(opacities) >= 0  # the largest |value| gets full colour
    assert all(len(strip.cells) == e.n_dims for strip in e.strips)
    assert [strip.near for strip in e.strips].count(True) == 1 and e.strips[-1].near  # near: the last by default


def test_a_strip_cell_is_positive_at_zero_and_never_darker_than_full():
    rows = [[0.5, -2.0], [0.0, 3.0]]
    assert strip_scale(rows) == 3.0 and strip_scale([[0.0]]) == 1.0
    assert strip_cells([0.5, -2.0, 0.0, 9.0], 2.0) == ((0, "p", 0.25), (1, "n", 1.0), (2, "p", 0.0), (3, "p", 1.0))


def test_a_heads_strip_is_never_blank():
    assert shades([0.1, 0.4, 0.2]) == ((0, 0.25), (1, 1.0), (2, 0.5))
    assert shades([0.001, 0.002]) == ((0, 0.5), (1, 1.0))  # darkest where it looks most, however little
    assert shades([0.0, 0.0]) == ((0, 0.0), (1, 0.0))


def test_a_query_reads_up_to_itself_and_the_later_keys_are_masked():
    cells = matrix_cells([0.25, 0.75, 0.0], 1, ["a", "b", "c"])
    assert [c.masked for c in cells] == [False, False, True]
    assert [(c.opacity, c.key, c.weight) for c in cells[:2]] == [("0.250", "a", "25.0 %"), ("0.750", "b", "75.0 %")]


def test_the_strongest_keys_come_largest_first_ties_in_order():
    assert strongest([0.1, 0.5, 0.1, 0.3]) == [1, 3, 0, 2]
    assert strongest([0.2] * 6, 4) == [0, 1, 2, 3]


def test_the_enlarged_head_is_the_one_asked_for_and_its_matrix_squares_the_shown_positions(app, ids):
    panel = presented(app, **BASE, ids=ids, inside="1", layer="3", head="2")
    shown = [cell for row in panel.attention.rows for cell in row.cells if cell.shown]
    assert [cell.value for cell in shown] == ["3,2"] and str(panel.head.title) == "Layer 3, head 2"
    n = len(panel.head.rows)
    assert all(len(row.cells) == n for row in panel.head.rows) and len(panel.head.columns) == n
    assert panel.head.pixels == round((n + 5.8) * 22)
    percents = [float(re.search(r"(\d+\.\d) %", str(key)).group(1)) for key in panel.head.strongest]
    assert percents == sorted(percents, reverse=True) and len(percents) == min(4, n)


def test_every_heads_label_is_its_own_sentence_translated(app, ids):
    """The sentence is translated once per panel and each head's figures put in: as if each were translated."""
    params = {**BASE, "ids": ids, "inside": "1"}
    panel = presented(app, "de", **params)
    with app.test_request_context(url("/", lang="de", **params)):
        app.preprocess_request()
        screen = screen_of(app, **params)
        numbers, labels = build_numbers(screen.model, screen.result, screen.state), screen.labels
        for row in panel.attention.rows:
            strongest_keys = numbers.strongest_keys(row.layer)
            for head, cell in enumerate(row.cells):
                token = labels[numbers.view.ids[strongest_keys[head]]]
                assert cell.label == template_gettext("Layer %(layer)s, head %(head)s: looks most at '%(token)s'",
                                                      layer=row.layer, head=head, token=token)
    assert str(panel.attention.rows[0].cells[0].label).startswith("Schicht 1, Kopf 0")


def test_the_note_names_the_window_only_when_it_left_tokens_out(app, ids):
    short = presented(app, **BASE, ids=ids, inside="1").layers
    assert "window" not in short.read and not short.positions_cut
    long = presented(app, **BASE, ids=LONG, inside="1").layers
    assert "its window: the first" in long.read and long.positions_cut and long.n_positions == N_POSITIONS


def test_the_lens_ends_at_the_logits_and_comes_last_layers_first_on_a_projector(app, ids):
    lens = presented(app, **BASE, ids=ids, inside="1").lens
    assert [row.last for row in lens.rows] == [False] * 4 + [True]
    assert str(lens.rows[-1].heading) == "4 = logits" and lens.rows[0].heading == 0
    projected = presented(app, **BASE, ids=ids, inside="1", present="1").lens
    assert projected.rows == lens.rows[::-1]


def test_the_lens_marks_the_pick_only_once_there_is_one(app, ids):
    taken = presented(app, **BASE, ids=ids, inside="1").lens
    assert taken.taken and any(marked for row in taken.rows for _, marked, _ in row.tokens)
    before = presented(app, **BASE, inside="1").lens
    assert not before.taken and not any(marked for row in before.rows for _, marked, _ in row.tokens)


@pytest.mark.parametrize(
    ("model_name", "shown"),
    [
        ("austen-transformer", {"worked-inside-attention", "worked-inside-lens"}),
        (BIGRAM_MODEL, {"worked-inside-bigram"}),
        ("article", set()),
    ],
)
def test_the_panels_folds_are_on_screen_only_for_the_open_form_that_has_them(app, model_name, shown):
    names = {"worked-inside-bigram", "worked-inside-attention", "worked-inside-lens"}
    screen = screen_of(app, **BASE, model=model_name, inside="1")
    assert {name for name in names if folds.on_screen(name, screen)} == shown
    closed = screen_of(app, **BASE, model=model_name)
    assert not any(folds.on_screen(name, closed) for name in names)


def test_grouped_query_attention_names_each_query_heads_key_value_head(app):
    if "smollm2-135m" not in app.extensions["models"]:
        pytest.skip("smollm2-135m is not fetched")
    panel = presented(app, prompt="Hi", model="smollm2-135m", inside="1", layer="30", head="8")
    a = panel.attention
    assert a.grouped and (a.n_head, a.n_head_kv) == (9, 3)
    assert str(a.kv_groups) == "heads 0–2 read key/value head 0; heads 3–5 read key/value head 1; " \
                               "heads 6–8 read key/value head 2"
    assert str(panel.head.title) == "Layer 30, head 8 (key/value head 2)"


def test_attention_without_groups_says_nothing_of_them(app, ids):
    a = presented(app, **BASE, ids=ids, inside="1").attention
    assert not a.grouped and a.kv_groups is None and a.n_head_kv == a.n_head
