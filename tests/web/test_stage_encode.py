"""Stage 1's presenter (webapp/web/stages/encode.py), tested directly: what each chip says and how it
is marked, which sentences the panel and its worked example choose, and the figures they hold."""

from __future__ import annotations

import doctest

import pytest

from webapp.web.stages import encode
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .seeded import BASE, joined, url

# Two words of the prompt are not in the vocabulary.
UNKNOWN = {"model": "austen-transformer", "prompt": "The zorblax wibbled", "seed": "7"}


def present(app, lang: str | None = None, **params) -> encode.TokensPanel:
    """The tokens panel of the screen with params, presented as a request for it (with lang=, if given) would."""
    models = app.extensions["models"]
    with app.test_request_context(url("/", **params, **({"lang": lang} if lang else {}))):
        app.preprocess_request()
        screen = build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"]))
        return encode.present(screen)


def test_the_docstrings_examples_hold():
    result = doctest.testmod(encode)
    assert result.attempted and not result.failed


@pytest.mark.parametrize(
    ("flags", "classes"),
    [({}, "chip"), ({"unk": True}, "chip chip-unk"), ({"new": True, "outside": True}, "chip chip-new chip-outside")],
)
def test_a_chips_classes_say_what_it_is(flags, classes):
    assert encode.chip_class("chip", **flags) == classes


def test_the_worked_example_lists_the_first_twelve_ids_then_an_ellipsis():
    assert encode.shown_ids(list(range(12))) == "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"
    assert encode.shown_ids(list(range(13))).endswith("10, 11, …")
    assert encode.shown_ids([7]) == "7"


def test_a_word_not_in_the_vocabulary_is_an_unk_chip_with_its_word(app):
    panel = present(app, **UNKNOWN)
    the, zorblax, wibbled = panel.prompt_chips
    assert (the.label, the.source, the.css_class, str(the.title)) == ("The", None, "chip", f"token id {the.id}")
    assert (zorblax.label, zorblax.source, zorblax.id) == ("<unk>", "zorblax", 0)
    assert "chip-unk" in zorblax.css_class.split() and str(zorblax.title) == "not in the vocabulary: zorblax"
    assert panel.n_unk == 2 and not panel.encodes_any_text


def test_a_chip_links_to_its_token_in_the_vocabulary_quoted_as_a_url(app):
    chip = present(app, **UNKNOWN).prompt_chips[1]
    assert chip.href == "/vocab?model=austen-transformer&q=%3Cunk%3E#t-0"


def test_a_chips_title_escapes_the_word_it_stood_for(app):
    chip = present(app, **{**UNKNOWN, "prompt": "x<y"}).prompt_chips[1]
    assert chip.source == "<" and str(chip.title) == "not in the vocabulary: &lt;"


def test_the_counts_name_the_generated_tokens_once_there_are_any(app, three):
    assert str(present(app, **BASE).counts) == "6 prompt tokens, from a vocabulary of 5,000."
    stepped = present(app, **BASE, ids=joined(three))
    assert str(stepped.counts) == "6 prompt tokens + 3 generated, from a vocabulary of 5,000."
    assert [chip.id for chip in stepped.generated_chips] == three


def test_the_counts_follow_the_pages_language(app, three):
    counts = str(present(app, "de", **BASE, ids=joined(three)).counts)
    assert "5.000" in counts and "6" in counts and "3" in counts and "vocabulary" not in counts


def test_only_the_last_generated_chip_is_new(app, three):
    chips = present(app, **BASE, ids=joined(three)).generated_chips
    assert [("chip-new" in chip.css_class.split()) for chip in chips] == [False, False, True]
    assert all(chip.css_class.startswith("chip chip-generated") for chip in chips)
    assert str(chips[0].title) == f"generated, token id {three[0]}"


def test_a_hidden_pick_is_the_only_chip_that_hides(app, three):
    revealed = present(app, **BASE, ids=joined(three), predict="1", reveal="1").generated_chips
    hidden = present(app, **BASE, ids=joined(three), predict="1").generated_chips
    assert [chip.hidden for chip in revealed] == [False, False, False]
    assert [chip.hidden for chip in hidden] == [False, False, True]


def test_chips_before_the_context_window_are_dimmed_and_the_note_says_why(app):
    """The bigram reads one token: the step on screen (the last one's) read the first generated token only."""
    panel = present(app, **{**UNKNOWN, "model": "austen-bigram"}, ids="4,5")
    outside = [("chip-outside" in chip.css_class.split()) for chip in (*panel.prompt_chips, *panel.generated_chips)]
    assert outside == [True, True, True, False, False]
    assert str(panel.window_note) == "This model reads only the last token; the dimmed ones before it do not count."


def test_a_longer_window_is_named_by_its_size(app):
    panel = present(app, model="austen-transformer", prompt=" ".join(["the man said"] * 45), seed="3")
    assert str(panel.window_note).startswith("The model reads only the last 128 tokens (its context window)")
    assert sum("chip-outside" in chip.css_class.split() for chip in panel.prompt_chips) == 135 - 128


def test_while_the_model_reads_every_token_there_is_no_window_note(app, three):
    panel = present(app, **BASE, ids=joined(three))
    assert panel.window_note is None
    assert not any("chip-outside" in chip.css_class.split() for chip in (*panel.prompt_chips, *panel.generated_chips))


def test_an_empty_prompt_says_so_until_a_token_is_generated(app):
    assert present(app, model="austen-bigram", prompt="", seed="7").empty
    assert not present(app, model="austen-bigram", prompt="", seed="7", ids="4").empty
    assert not present(app, **UNKNOWN).empty


@pytest.mark.parametrize(
    ("prompt", "lookup"),
    [
        ("The zorblax", "'The' is id 73 in the vocabulary; 'zorblax' is not in it, so it becomes "
                        "<code>&lt;unk&gt;</code> (id 0)."),
        ("The", "'The' is id 73 in the vocabulary."),
        ("zorblax", "'zorblax' is not in the vocabulary, so it becomes <code>&lt;unk&gt;</code> (id 0)."),
        ("", None),
    ],
)
def test_the_worked_example_looks_up_a_known_word_and_an_unknown_one(app, prompt, lookup):
    example = present(app, model="austen-bigram", prompt=prompt, seed="7").example
    assert (str(example.lookup) if example.lookup else None) == lookup
    assert example.ids == ({"The zorblax": "73, 0", "The": "73", "zorblax": "0"}.get(prompt))
    assert example.cutting.startswith("The prompt is cut into tokens: words")
    assert (example.n_vocab_text, example.vocab_url) == ("5,000", "/vocab?model=austen-bigram")


def test_a_byte_level_vocabulary_has_no_unk_and_cuts_pieces_of_words(app):
    if "smollm2-135m" not in app.extensions["models"]:
        pytest.skip("smollm2-135m is not fetched")
    panel = present(app, model="smollm2-135m", prompt="zorblax", seed="7")
    assert panel.encodes_any_text and panel.n_unk == 0
    assert panel.example.cutting.startswith("The prompt is cut into tokens: pieces of words")


def test_the_worked_example_is_a_fold_of_this_state(app):
    worked = present(app, **UNKNOWN).worked
    assert (worked.name, worked.css_class, str(worked.summary)) == ("worked-encode", "worked", "Worked example")
    assert worked.href.startswith("/fold/worked-encode?prompt=The+zorblax+wibbled&model=austen-transformer")
    assert worked.sent and not worked.open
