"""The controls' presenter (webapp/web/stages/controls.py), tested directly: the words beside the temperature,
when auto-play must stop, each field's value as the form holds it, the model menu, the article's fields,
and the state the form carries."""

from __future__ import annotations

import doctest

import pytest

from webapp.inference.step import MAX_TOKENS
from webapp.web.stages import controls
from webapp.web.stages.panels import shown_key
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .markup import query_of
from .seeded import BASE, joined, url


def present(app, presenter=controls.present, lang: str | None = None, **params):
    """presenter(screen) for the screen with params (the controls, by default), as a request for it would present it."""
    models = app.extensions["models"]
    with app.test_request_context(url("/", **params, **({"lang": lang} if lang else {}))):
        app.preprocess_request()
        return presenter(build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"])))


def test_the_docstrings_examples_hold():
    result = doctest.testmod(controls)
    assert result.attempted and not result.failed


@pytest.mark.parametrize(
    ("temperature", "effect"),
    [(0, "greedy"), (0.05, "sharper"), (0.99, "sharper"), (1, None), (1.01, "flatter"), (5, "flatter")],
)
def test_the_temperature_is_greedy_at_0_sharper_below_1_and_flatter_above(temperature, effect):
    assert controls.temperature_effect(temperature) == effect


@pytest.mark.parametrize(
    ("temperature", "effect"), [("0", "greedy"), ("0.7", "sharper"), ("1", None), ("2", "flatter")]
)
def test_the_temperatures_value_is_written_with_two_decimals_and_its_effect(app, temperature, effect):
    panel = present(app, **{**BASE, "temperature": temperature})
    assert panel.temperature == str(float(temperature))  # the slider's value, as the URL has it
    assert panel.temperature_value == f"{float(temperature):.2f}"
    assert panel.temperature_effect == effect


def test_the_temperatures_value_is_written_in_the_pages_language(app):
    panel = present(app, lang="de", **{**BASE, "temperature": "0.7"})
    assert (panel.temperature, panel.temperature_value) == ("0.7", "0,70")  # the slider's value stays a number


def test_the_slider_marks_each_whole_temperature_and_0_reads_greedy(app):
    marks = present(app, **BASE).temperature_marks
    assert [m.value for m in marks] == ["0", "1", "2", "3", "4", "5"]
    assert (marks[0].label, marks[0].note) == ("greedy", "greedy")
    assert (marks[2].label, marks[2].note) == ("2", None)


@pytest.mark.parametrize(
    ("prompt_tokens", "ids", "stops"),
    [(MAX_TOKENS - 2, 0, False), (MAX_TOKENS - 1, 0, True), (MAX_TOKENS - 2, 1, True)],
)
def test_auto_play_stops_when_one_more_step_would_reach_the_token_limit(app, model, prompt_tokens, ids, stops):
    prompt = "." * prompt_tokens  # one token per full stop
    assert len(model.tokenizer.encode(prompt)) == prompt_tokens
    full_stop = model.tokenizer.encode(".")[0].id
    fields = present(app, controls.present_state_fields, prompt=prompt, seed="7", ids=joined([full_stop] * ids))
    assert fields.at_limit is stops


def test_a_truncation_field_is_empty_when_off_and_holds_the_setting_when_on(app):
    panel = present(app, **BASE, top_k="5", min_p="0.05")
    assert (panel.top_k, panel.top_p, panel.min_p) == ("5", "", "0.05")


def test_the_model_menu_lists_every_model_and_selects_the_screens(app):
    models = list(app.extensions["models"])
    for name in ("austen-transformer", "article"):
        options = present(app, **BASE, model=name).models
        assert [o.name for o in options] == models
        assert [o.name for o in options if o.selected] == [name]


def test_only_the_article_model_has_the_article_fields(app):
    assert present(app, **BASE).article is None
    article = present(app, **BASE, model="article").article
    assert (article.tokens, article.scores, article.kind, article.normalised) == ("A,B,C", "0.1,0.2,0.7",
                                                                                  "probabilities", True)


def test_probabilities_that_do_not_add_up_to_1_say_their_sum_in_the_pages_language(app):
    typed = {**BASE, "model": "article", "vocab": "A,B,C", "scores": "0.2,0.2,0.2"}
    article = present(app, **typed).article
    assert (article.scores, article.normalised, article.total) == ("0.2,0.2,0.2", False, "0.6")
    assert present(app, lang="de", **typed).article.total == "0,6"
    assert present(app, **{**typed, "scores_as": "logits"}).article.normalised  # logits need no sum


def test_the_form_holds_the_state_no_visible_field_holds(app, model, three):
    params = {**BASE, "ids": joined(three), "at": "1", "inside": "1"}
    panel = present(app, controls.present_state_fields, **params)
    fields = dict(panel.hidden_fields)
    assert fields["ids"] == joined(three) and fields["at"] == "1" and fields["inside"] == "1"
    assert "temperature" not in fields and "prompt" not in fields  # visible fields of their own
    assert panel.history_entry == f"{joined(three)}@1"
    models = app.extensions["models"]
    assert panel.shown == shown_key(parse_state(params, models, app.config["DEFAULT_MODEL"]))
    assert dict(present(app, controls.present_state_fields, **BASE).hidden_fields)["ids"] == ""  # before a Step


def test_the_teachers_r_is_empty_for_the_seeded_one(app):
    assert present(app, **BASE).next_r == ""
    assert present(app, **BASE, r="0.25").next_r == "0.25"


def test_the_mode_link_leads_to_the_other_mode_with_the_same_screen(app, three):
    params = {**BASE, "ids": joined(three)}
    plain = present(app, controls.present_mode_link, **params)
    presenting = present(app, controls.present_mode_link, **params, present="1")
    assert (plain.present, presenting.present) == (False, True)
    assert query_of(plain.href) == {**query_of(presenting.href), "present": "1"}
    assert "present" not in query_of(presenting.href)
    assert query_of(presenting.href)["ids"] == joined(three)


def test_every_answer_sends_the_mode_link_for_the_screen_it_leads_to(client, three):
    """The page's link is drawn once; each Step's answer swaps it, so that presenter mode opens the screen as it is
    now, not as it was when the page was loaded."""
    answer = client.get(url("/step", **BASE, ids=joined(three[:2])), headers={"HX-Request": "true"})
    html = answer.get_data(as_text=True)
    link = html[html.index('id="mode-link"'):]
    assert 'hx-swap-oob="true"' in link[: link.index(">")]
    href = link[link.index('href="') + 6:]
    assert query_of(href[: href.index('"')].replace("&amp;", "&"))["ids"] == joined(three)
