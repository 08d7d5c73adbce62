"""The word tokenizer: round trips, `<unk>` with its source span, paragraphs, and save/load."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference.errors import InvalidTokenIds
from webapp.inference.tokenizer import PARAGRAPH, UNK, WordTokenizer, split

IN_VOCABULARY = [
    "Mr. Darcy said",
    '"Yes," said she.',
    "Yes--she",
    "It was--\"No,\" said he.",
    "He is--I cannot say--very (as you know) amiable.",
    "I don't know.",
    "I can't",
    "Elizabeth's sister",
    "Mrs. Bennet's",
    "ten o'clock",
    "She was good-humoured; he was ill-natured!",
    "self-command",
    "What? No!",
    "Well: yes.",
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife.",
    '"My dear Mr. Bennet," said his lady to him one day, "have you heard that Netherfield Park is let at last?"',
    '"Oh!" cried she; "he is gone."\n\nThe next day',
]


def texts(tokens) -> list[str]:
    return [t.text for t in tokens]


@pytest.mark.parametrize("text", IN_VOCABULARY)
def test_decode_of_encode_gives_in_vocabulary_prose_back(tokenizer, text):
    tokens = tokenizer.encode(text)
    assert not any(t.unk for t in tokens), "the test text should be in the vocabulary"
    assert tokenizer.decode(tokenizer.encode_ids(text)) == text


@pytest.mark.parametrize(("text", "expected"), [
    ('"Yes," said she.', ['"', "Yes", ",", '"', "said", "she", "."]),
    ("Yes--she", ["Yes", "--", "she"]),
    ("Mr. Darcy", ["Mr", ".", "Darcy"]),
    ("good-humoured don't", ["good-humoured", "don't"]),
    ("(as you know)", ["(", "as", "you", "know", ")"]),
])
def test_splitting_rule_keeps_words_whole_and_punctuation_apart(tokenizer, text, expected):
    assert texts(tokenizer.encode(text)) == expected


def test_split_docstring_example():
    assert split("Yes--she.\n\nNo") == [("Yes", 0, 3), ("--", 3, 5), ("she", 5, 8), (".", 8, 9),
                                        (PARAGRAPH, 9, 11), ("No", 11, 13)]


def test_case_is_kept(tokenizer):
    she, she_capital = tokenizer.encode_ids("she She")
    assert she != she_capital and tokenizer.decode([she, she_capital]) == "she She"


@pytest.mark.parametrize(("text", "source"), [
    ("Mr. Zyxwvut said", "Zyxwvut"),
    ("said zyxwvut.", "zyxwvut"),
    ("“Yes,” said she", "“"),  # curly quotes are not in this vocabulary
    ("a 1811 b", "1811"),
    ("she—he", "—"),
])
def test_unknown_words_become_unk_with_the_span_they_replaced(tokenizer, text, source):
    unks = [t for t in tokenizer.encode(text) if t.unk]
    assert unks, "expected an <unk>"
    assert all(t.id == tokenizer.unk_id and t.text == UNK for t in unks)
    assert all(text[t.start : t.end] == t.source for t in unks)
    assert source in [t.source for t in unks]


def test_unk_span_example(tokenizer):
    (mr, dot, unk, said) = tokenizer.encode("Mr. Zyxwvut said")
    assert unk.unk and (unk.source, unk.start, unk.end) == ("Zyxwvut", 4, 11)
    assert not (mr.unk or dot.unk or said.unk)


@pytest.mark.parametrize("text", ["", " ", "   ", "\t", "\n", " \n\t ", "\r\n", "\u00a0\u2003"])
def test_empty_and_whitespace_only_prompts_give_no_tokens(tokenizer, text):
    assert tokenizer.encode(text) == []
    assert tokenizer.decode([]) == ""


@pytest.mark.parametrize("gap", ["\n\n", "\n\n\n\n", "\n \n", "\n\t\n  ", "\r\n\r\n", "\r\n \r\n"])
def test_a_blank_line_becomes_one_paragraph_token(tokenizer, gap):
    tokens = tokenizer.encode(f"She smiled.{gap}The next day")
    assert texts(tokens) == ["She", "smiled", ".", PARAGRAPH, "The", "next", "day"]
    assert tokens[3].id == tokenizer.paragraph_id and tokens[3].source.strip() == ""
    assert tokenizer.decode([t.id for t in tokens]) == "She smiled.\n\nThe next day"


def test_a_single_line_break_is_only_a_space(tokenizer):
    assert texts(tokenizer.encode("She\nsmiled")) == ["She", "smiled"]


@settings(max_examples=300)
@given(st.text())
def test_token_spans_are_in_order_disjoint_and_point_at_their_source(tokenizer, text):
    tokens = tokenizer.encode(text)
    end = 0
    for t in tokens:
        assert end <= t.start < t.end <= len(text)
        assert text[t.start : t.end] == t.source
        assert t.unk == (t.text == UNK) and 0 <= t.id < tokenizer.n_vocab
        if t.text != PARAGRAPH:
            assert t.text == t.source or t.unk
        end = t.end
    # whatever no token covers is whitespace
    covered = set().union(*(range(t.start, t.end) for t in tokens)) if tokens else set()
    assert all(c.isspace() for i, c in enumerate(text) if i not in covered)


@pytest.mark.parametrize(("words", "expected"), [
    (["said", "she", "."], "said she."),
    (['"', "Yes", ",", '"', "said", "she"], '"Yes," said she'),
    (["Yes", "--", "she"], "Yes--she"),
    (["(", "as", "you", "know", ")"], "(as you know)"),
    (["What", "?", "No", "!"], "What? No!"),
    (["she", ".", PARAGRAPH, '"', "Yes", '"'], 'she.\n\n"Yes"'),
])
def test_decode_spaces_words_as_prose(tokenizer, words, expected):
    assert tokenizer.decode([tokenizer.id_of(w) for w in words]) == expected


@pytest.mark.parametrize("bad", [-1, "n_vocab", 10**9])
def test_ids_outside_the_vocabulary_raise_invalid_token_ids(tokenizer, bad):
    bad = tokenizer.n_vocab if bad == "n_vocab" else bad
    with pytest.raises(InvalidTokenIds):
        tokenizer.decode([0, bad])
    with pytest.raises(InvalidTokenIds):
        tokenizer.token_text(bad)


def test_save_then_load_gives_the_same_tokenizer(tokenizer, tmp_path):
    path = tmp_path / "vocab.json"
    tokenizer.save(path)
    loaded = WordTokenizer.load(path)
    assert loaded.vocab == tokenizer.vocab
    text = '"Mr. Zyxwvut," said she--\n\nThe end.'
    assert loaded.encode(text) == tokenizer.encode(text)


def test_train_keeps_the_most_frequent_pieces_ties_first_seen(tmp_path):
    tok = WordTokenizer.train(["b a b c. a b d", "e _c_"], vocab_size=5)
    # b 3 times; a and c twice each (_c_ loses its underscores), and a came first
    assert tok.vocab == (UNK, PARAGRAPH, "b", "a", "c")
    assert tok.encode_ids("b zz") == [2, tok.unk_id]
    tok.save(tmp_path / "v.json")
    assert WordTokenizer.load(tmp_path / "v.json").vocab == tok.vocab


@pytest.mark.parametrize("vocab", [["the", UNK, PARAGRAPH], [UNK, PARAGRAPH, "a", "a"], []])
def test_a_malformed_vocabulary_is_refused(vocab):
    with pytest.raises(ValueError):
        WordTokenizer(vocab)
