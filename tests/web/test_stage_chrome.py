"""What the page shows around the stages (webapp/web/stages/chrome.py), tested directly: when the live
region names a pick and what it says, the guide's flags, the language switcher's links, and the frame."""

from __future__ import annotations

from webapp.inference import run_step_table
from webapp.web.i18n.languages import LANGUAGES
from webapp.web.stages import chrome
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .markup import label, query_of
from .seeded import BASE, PROMPT, SETTINGS, joined, other_than, url


def screen_of(app, lang: str | None = None, **params):
    """The screen with params, built in a request for it (its language chosen, its catalog in use)."""
    models = app.extensions["models"]
    app.preprocess_request()
    return build_screen(models, parse_state({**params, **({"lang": lang} if lang else {})}, models,
                                            app.config["DEFAULT_MODEL"]))


def presented(app, presenter, lang: str | None = None, **params):
    """presenter(screen) for the screen with params, as a request for it would present it."""
    with app.test_request_context(url("/", **params, **({"lang": lang} if lang else {}))):
        return presenter(screen_of(app, lang, **params))


def test_nothing_is_announced_before_a_pick_or_while_it_is_hidden(app, three):
    assert presented(app, chrome.present_announce, **BASE).sentence is None
    hidden = {**BASE, "ids": joined(three), "predict": "1"}
    assert presented(app, chrome.present_announce, **hidden).sentence is None
    assert presented(app, chrome.present_announce, **hidden, reveal="1").sentence is not None


def test_the_announcement_names_r_the_pick_and_its_probability(app, model, three):
    step = run_step_table(model, PROMPT, three[:2], SETTINGS)
    sentence = presented(app, chrome.present_announce, **BASE, ids=joined(three)).sentence
    p = f"{100 * step.chosen.prob_kept:.1f} %"  # as the table writes it
    assert str(sentence) == f"r = {step.r:.3f}, picked '{label(step.chosen.token)}', {p}"


def test_a_token_chosen_by_hand_is_announced_with_the_pick_it_replaced(app, model, three):
    chosen = other_than(model, three, 1)
    step = run_step_table(model, PROMPT, three[:1], SETTINGS)
    params = {**BASE, "ids": joined([three[0], chosen]), "src": "s,f"}
    sentence = str(presented(app, chrome.present_announce, **params).sentence)
    assert f"picked '{label(step.chosen.token)}'" in sentence
    assert sentence.endswith(f"; the teacher chose '{label(model.tokenizer.vocab[chosen])}' instead")


def test_the_announcement_is_in_the_pages_language(app, three):
    sentence = str(presented(app, chrome.present_announce, "de", **BASE, ids=joined(three)).sentence)
    assert sentence.startswith("r = 0,") and "%" in sentence


def test_guide_1_forces_the_guide_guide_0_skips_it_and_none_leaves_it_to_a_first_visit(app):
    flags = {
        guide: presented(app, chrome.present_guide, **BASE, **({"guide": guide} if guide else {}))
        for guide in ("1", "0", None)
    }
    assert (flags["1"].force, flags["1"].skip) == (True, False)
    assert (flags["0"].force, flags["0"].skip) == (False, True)
    assert (flags[None].force, flags[None].skip) == (False, False)


def test_the_switcher_links_this_screen_in_each_language_and_marks_the_pages(app, three):
    links = presented(app, chrome.present_languages, "fr", **BASE, ids=joined(three)).links
    assert [link.code for link in links] == list(LANGUAGES)
    assert [link.code for link in links if link.current] == ["fr"]
    for link in links:
        assert query_of(link.url)["lang"] == link.code
        assert query_of(link.url)["ids"] == joined(three)


def test_a_page_without_a_screen_links_its_own_address_in_each_language(app):
    with app.test_request_context("/vocab?model=austen-bigram&q=man"):
        app.preprocess_request()
        links = chrome.languages_here().links
    assert [link.url for link in links if link.code == "de"] == ["/vocab?model=austen-bigram&q=man&lang=de"]
    assert [link.code for link in links if link.current] == ["en"]


def test_the_frame_says_presenter_mode_and_names_the_step_and_the_way_back(app, three):
    page = presented(app, chrome.present_page, **BASE, ids=joined(three), at="1", present="1")
    assert (page.present, page.step, page.prompt) == (True, 1, PROMPT)  # at=1: the step of generation index 1
    assert page.back.startswith("/?") and query_of(page.back)["at"] == "1"
    assert not presented(app, chrome.present_page, **BASE).present
