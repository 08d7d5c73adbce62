"""Stage 5's presenter (webapp/web/stages/decode.py), tested directly: how each generated piece of text
splits and which mark stands for it, each token button's shade, classes and tooltip, the sentences the
panel and its worked example choose, and the surprise table's figures."""

from __future__ import annotations

import doctest
import math

import pytest

from webapp.inference import text_of
from webapp.inference.derived.uncertainty import TextSurprise, TokenSurprise
from webapp.web.stages import decode
from webapp.web.stages.decode import Piece
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state
from webapp.web.url.state import FORCED, SEEDED

from .seeded import BASE, PROMPT, joined, page, url


def presented(app, lang: str | None = None, **params) -> tuple[decode.TextPanel, tuple[Piece, ...]]:
    """The text panel of the screen with params and the screen's pieces, as a request for it would present them."""
    models = app.extensions["models"]
    with app.test_request_context(url("/", **params, **({"lang": lang} if lang else {}))):
        app.preprocess_request()
        screen = build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"]))
        return decode.present(screen), decode.pieces(screen)


def present(app, lang: str | None = None, **params) -> decode.TextPanel:
    return presented(app, lang, **params)[0]


def test_the_docstrings_examples_hold():
    result = doctest.testmod(decode)
    assert result.attempted and not result.failed


@pytest.mark.parametrize(
    ("text", "source", "piece"),
    [
        (" universally", SEEDED, Piece(space=" ", word="universally", forced=False, typed_r=None)),
        (",", FORCED, Piece(space="", word=",", forced=True, typed_r=None)),
        ("\n\n", 0.25, Piece(space="\n\n", word="", forced=False, typed_r=0.25)),
        (" \nShe", SEEDED, Piece(space=" \n", word="She", forced=False, typed_r=None)),
        ("  two", 0.0, Piece(space="  ", word="two", forced=False, typed_r=0.0)),
    ],
)
def test_a_piece_splits_into_its_space_and_its_word(text, source, piece):
    assert Piece.of(text, source) == piece
    assert piece.space + piece.word == text


@pytest.mark.parametrize(
    ("text", "kind", "mark"),
    [(" universally", None, ""), ("\n\n", "paragraph", "¶"), ("\n", "line", "↵"), (" ", "space", "␣"),
     ("", "partial", "◌")],
)
def test_a_piece_without_a_word_has_its_own_mark(text, kind, mark):
    """A line break and bytes of an unfinished character ('💀' over two tokens: '' then '💀') read apart."""
    piece = Piece.of(text, SEEDED)
    assert (piece.kind, piece.mark) == (kind, mark)


def test_the_pieces_are_the_generated_text_with_their_sources(app, model, three):
    _, pieces = presented(app, **BASE, ids=joined(three), src="s,f,0.5")
    assert PROMPT + "".join(p.space + p.word for p in pieces) == text_of(model, PROMPT, three)
    assert [(p.forced, p.typed_r) for p in pieces] == [(False, None), (True, None), (False, 0.5)]


def test_the_marks_are_listed_once_each_in_their_order_with_their_meaning():
    shown = tuple(Piece.of(text, SEEDED) for text in ("\n", " the", "", "\n\n", "\n"))
    assert decode.marks(shown) == (
        ("¶", "a paragraph break"),
        ("↵", "a line break"),
        ("◌", "bytes that do not make a whole character yet: the token after them completes it"),
    )
    assert decode.marks((Piece.of(" the", SEEDED),)) == ()


def test_the_text_explains_each_mark_it_uses(app, client):
    models = app.extensions["models"]
    if "smollm2-135m" not in models:
        pytest.skip("smollm2-135m is not fetched")
    tokenizer = models["smollm2-135m"].tokenizer
    skull = [t.id for t in tokenizer.encode("💀")]  # three tokens: two that complete nothing, then '💀'
    doc = page(client, model="smollm2-135m", prompt="Hi", ids=joined([tokenizer.id_of("\n"), *skull]))
    assert [b.text() for b in doc.by_id("text").find_all("button", "gen")] == ["↵", "◌", "◌", "💀"]
    note = " ".join(doc.by_id("text").find("p", "text-marks").text().split())
    assert note.startswith("↵ a line break; ◌ bytes that do not make a whole character yet")


@pytest.mark.parametrize(
    ("bits", "level"),
    [(0.0, 0), (0.99, 0), (1.0, 1), (1.5, 1), (2.0, 2), (5.9, 3), (6.0, 4), (7.99, 4), (8.0, 5), (math.inf, 5)],
)
def test_a_tokens_shade_is_the_bin_its_surprise_falls_in(bits, level):
    assert decode.surprise_level(bits) == level


def test_the_legend_has_a_label_per_shade():
    assert decode.surprise_bins() == ("0–1 bits", "1–2 bits", "2–4 bits", "4–6 bits", "6–8 bits", "8+ bits")
    assert len(decode.surprise_bins()) == decode.surprise_level(math.inf) + 1


@pytest.mark.parametrize(
    ("source", "level", "shown", "new", "classes"),
    [
        (SEEDED, None, False, False, "gen"),
        (SEEDED, 0, True, False, "gen surprise-0 gen-shown"),
        (FORCED, None, False, True, "gen gen-new gen-forced"),
        (0.0, 5, True, True, "gen surprise-5 gen-shown gen-new gen-typed"),
    ],
)
def test_a_buttons_classes_say_how_its_token_was_picked_and_whether_it_is_on_screen(source, level, shown, new, classes):
    assert decode.button_class(Piece.of(" the", source), level, on_screen=shown, new=new) == classes


def test_each_button_shows_its_step_and_the_last_is_new(app, three):
    panel = present(app, **BASE, ids=joined(three), src="s,f,0.5", at="1")
    assert [b.index for b in panel.buttons] == [0, 1, 2]
    assert [b.current for b in panel.buttons] == [False, True, False]
    assert [b.css_class for b in panel.buttons] == ["gen", "gen gen-shown gen-forced", "gen gen-new gen-typed"]
    assert [str(b.title) for b in panel.buttons] == ["step 0", "step 1, chosen by hand", "step 2, r typed: 0.5"]


def test_a_words_space_goes_before_its_button_and_a_marks_after(app):
    panel, pieces = presented(app, model="austen-bigram", prompt="the man", seed="3", ids="4,1,4")  # the, <p>, the
    assert [p.kind for p in pieces] == [None, "paragraph", None]
    assert [(b.space_before, b.text, b.space_after) for b in panel.buttons] == [
        (" ", "the", ""), ("", "¶", "\n\n"), ("", "the", "")
    ]


def test_coloured_by_surprise_each_button_is_shaded_and_its_tooltip_says_by_how_much(app, three):
    panel = present(app, **BASE, ids=joined(three), surprise="1")
    shades = [c for b in panel.buttons for c in b.css_class.split() if c.startswith("surprise-")]
    assert len(shades) == 3
    assert all(", surprise " in str(b.title) and str(b.title).endswith(" bits") for b in panel.buttons)
    assert panel.surprise is not None and panel.surprise.n_tokens == 3 and panel.surprise_on
    assert panel.surprise_toggle.startswith("/?") and "surprise" not in panel.surprise_toggle


def test_uncoloured_the_toggle_turns_the_colouring_on(app, three):
    panel = present(app, **BASE, ids=joined(three))
    assert panel.surprise is None and not panel.surprise_on
    assert panel.surprise_toggle.endswith("&surprise=1")
    assert not any("surprise-" in b.css_class for b in panel.buttons)


def test_a_hidden_pick_is_a_question_mark_and_not_coloured(app, three):
    panel = present(app, **BASE, ids=joined(three), predict="1", surprise="1")
    assert [b.text == "?" for b in panel.buttons] == [False, False, True]
    assert panel.hidden and panel.surprise is None and panel.appended is None and not panel.before_first


def test_the_surprise_table_writes_a_cut_token_as_minus_infinity():
    cut = TextSurprise(
        tokens=(TokenSurprise(4, math.inf, 3.0), TokenSurprise(5, 1.0, 1.5)),
        log2_prob=-math.inf,
        log2_prob_model=-4.5,
        perplexity=math.inf,
        perplexity_model=4.756828,
    )
    table = decode._surprise_table(cut)
    assert (str(table.log2_prob), table.perplexity) == ("−∞ (a token was cut)", "∞")
    assert (table.log2_prob_model, table.perplexity_model, table.n_tokens) == ("−4.50", "4.76", 2)


def test_the_surprise_table_writes_its_figures_in_the_pages_language(app, three):
    table = present(app, "de", **BASE, ids=joined(three), surprise="1").surprise
    assert "," in table.perplexity and "." not in table.perplexity
    assert table.log2_prob.startswith("−") and "," in table.log2_prob


@pytest.mark.parametrize(
    ("params", "note"),
    [
        ({}, "Id {id} → '{token}', appended to the text. The next step reads it too."),
        ({"src": "s,s,f"}, "Id {id} → '{token}' (chosen by hand), appended to the text. The next step reads it too."),
        ({"at": "2"}, "Id {id} → '{token}', appended to the text. The next step reads it too."),
    ],
)
def test_the_latest_pick_is_appended(app, model, three, params, note):
    panel = present(app, **BASE, ids=joined(three), **params)
    label = model.tokenizer.token_text(three[2]).strip()
    assert str(panel.appended) == note.format(id=three[2], token=label)
    assert panel.revisitable and not panel.before_first


def test_an_earlier_pick_was_read_by_every_step_after_it(app, model, three):
    panel = present(app, **BASE, ids=joined(three), src="f,s,s", at="0")
    label = model.tokenizer.token_text(three[0]).strip()
    assert str(panel.appended) == (
        f"Id {three[0]} → '{label}' (chosen by hand), generated token 1 of 3: every step after it read it too."
    )


def test_before_a_step_the_text_is_the_prompt(app):
    panel = present(app, **BASE)
    assert panel.before_first and panel.appended is None and panel.buttons == () and panel.prompt == PROMPT
    assert panel.example.appended is None and panel.example.feeds_back is None


def test_one_generated_token_is_not_offered_to_click_again(app, three):
    assert not present(app, **BASE, ids=joined(three[:1])).revisitable


def test_the_form_carries_the_state_but_not_which_step_is_shown(app, three):
    fields = dict(present(app, **BASE, ids=joined(three), at="1").fields)
    assert "at" not in fields and fields["ids"] == joined(three) and fields["prompt"] == PROMPT


def test_the_worked_example_decodes_the_id_and_says_what_the_next_step_reads(app, model, three):
    example = present(app, **BASE, ids=joined(three)).example
    label = model.tokenizer.token_text(three[2]).strip()
    assert str(example.appended) == f"id {three[2]} → '{label}', appended to the text."
    assert example.spaces_words  # a word-level vocabulary: decoding puts the spaces back
    assert str(example.feeds_back) == "The next step feeds all 9 ids back into the model."


@pytest.mark.parametrize(
    ("n_ids", "n_ctx", "sentence"),
    [
        (1, 1, "The next step feeds all 1 ids back into the model."),
        (128, 128, "The next step feeds all 128 ids back into the model."),
        (5, 1, "The next step feeds the last 1 of the 5 ids (its context window) back into the model."),
        (129, 128, "The next step feeds the last 128 of the 129 ids (its context window) back into the model."),
    ],
)
def test_the_next_step_reads_every_id_or_its_context_window(n_ids, n_ctx, sentence):
    assert str(decode.feeds_back(n_ids, n_ctx)) == sentence


def test_the_worked_example_is_a_fold_of_this_state(app, three):
    worked = present(app, **BASE, ids=joined(three)).worked
    assert (worked.name, worked.css_class, str(worked.summary)) == ("worked-decode", "worked", "Worked example")
    assert worked.href.startswith("/fold/worked-decode?prompt=") and worked.sent
    assert not present(app, **BASE, ids=joined(three), present="1").worked.sent  # not on the projector
