"""A class's sentences as a file: the same sentences, the same bytes and id; a pasted text split into sentences."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.inference.class_bigram import MAX_SENTENCES
from webapp.inference.class_text import MAX_PASTED_BYTES, from_pasted, from_room, parse
from webapp.inference.errors import InvalidSentence

characters = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Cf"))
sentence_st = st.text(characters, min_size=1, max_size=40).filter(lambda s: s.split())
authored_st = st.lists(st.tuples(st.sampled_from(["ana", "ben", "cy"]), sentence_st), min_size=1, max_size=12)


@settings(max_examples=80, deadline=None)
@given(authored=authored_st, topic=st.text(max_size=30))
def test_a_rooms_file_reads_back_as_the_same_sentences_and_bytes(authored, topic):
    text = from_room(authored, topic)
    again = parse(text.dumps())
    assert again == text and again.dumps() == text.dumps() and again.id == text.id
    assert [s for _, s in text.sentences] == [" ".join(s.split()) for _, s in authored]
    json.loads(text.dumps())  # plain JSON


def test_authors_are_numbered_in_the_order_they_first_wrote_and_no_name_is_kept():
    text = from_room([("s-x9", "Hi."), ("s-a1", "Yo."), ("s-x9", "Bye.")], "greetings")
    assert text.sentences == (("1", "Hi."), ("2", "Yo."), ("1", "Bye."))
    assert "s-x9" not in text.dumps() and "greetings" in text.dumps()


def test_other_sentences_or_another_topic_are_another_id():
    a = from_room([("a", "We like lunch.")], "lunch")
    assert a.id != from_room([("a", "We like lunch!")], "lunch").id
    assert a.id != from_room([("a", "We like lunch.")], "school").id
    assert a.id == from_room([("b", " We  like lunch. ")], "lunch").id


def test_a_room_with_no_sentences_or_too_many_is_refused():
    with pytest.raises(InvalidSentence, match="no sentences"):
        from_room([])
    with pytest.raises(InvalidSentence, match="at most"):
        from_room([(str(i), "Hi.") for i in range(MAX_SENTENCES + 1)])


def test_a_pasted_text_is_split_after_full_stops_and_its_paragraphs_are_its_authors():
    text = from_pasted('She said "Go." Then rain!\r\n\r\nIs it? Yes\nit is.\n\n\n')
    assert text.sentences == (("1", 'She said "Go."'), ("1", "Then rain!"), ("2", "Is it?"), ("2", "Yes it is."))
    assert parse(text.dumps()) == text


def test_a_pasted_text_may_have_long_sentences_but_not_more_than_its_bytes():
    long = " ".join(["word"] * 300) + "."
    assert from_pasted(long).model().n_sentences == 1  # a room would refuse it: over 50 words
    with pytest.raises(InvalidSentence, match="bytes"):
        from_pasted("é" * (MAX_PASTED_BYTES // 2 + 1))
    with pytest.raises(InvalidSentence, match="no words"):
        from_pasted(" \n\n\t ")


@pytest.mark.parametrize("data", [b"\xff\xfe", b"[1, 2]", b'{"format": "token-by-token lesson", "version": 1}',
                                  b'{"format": "token-by-token class sentences", "version": 1, "sentences": [["1"]]}',
                                  b'{"format": "token-by-token class sentences", "version": 2, "sentences": []}',
                                  b"not json"])
def test_a_file_that_is_not_a_classs_sentences_is_refused_with_a_reason(data):
    with pytest.raises(InvalidSentence):
        parse(data)
