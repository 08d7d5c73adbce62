"""When a vote opens and closes, from what the teacher's screen shows; codes, keys and typed guesses."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from webapp.room import codes
from webapp.room.guess import GuessRefused, guess_token
from webapp.room.rounds import next_round, step_key
from webapp.room.store import Room

A, B = step_key("p", "m", (1, 2)), step_key("p", "m", (1, 3))


def room(**fields) -> Room:
    return Room(code="ABCDEFGH", key_hash="", state="", **fields)


def test_a_hidden_step_opens_a_round_only_with_class_votes_on() -> None:
    assert next_round(room(), hidden=A, shown=None).round_open is False
    change = next_round(room(votes_on=True), hidden=A, shown=None)
    assert (change.round, change.round_open, change.round_key) == (1, True, A)


def test_revealing_the_same_step_closes_and_counts_it() -> None:
    change = next_round(room(votes_on=True, round=1, round_open=True, round_key=A), hidden=None, shown=A)
    assert (change.round_open, change.revealed, change.abandoned) == (False, 1, None)
    again = next_round(room(votes_on=True, round=1, round_open=False, round_key=A), hidden=A, shown=None)
    assert again.round_open is False  # a revealed step never opens again


def test_a_settings_change_keeps_the_round_and_moving_away_abandons_it() -> None:
    open_a = room(votes_on=True, round=1, round_open=True, round_key=A)
    assert next_round(open_a, hidden=A, shown=None).round_open is True
    moved = next_round(open_a, hidden=B, shown=None)
    assert (moved.abandoned, moved.round, moved.round_key, moved.round_open) == (1, 2, B, True)
    back = next_round(open_a, hidden=None, shown=None)
    assert (back.abandoned, back.round_open, back.round_key) == (1, False, "")


SECRET = "s" * 43


def test_join_codes_are_easy_to_read_and_hard_to_guess() -> None:
    code = codes.new_code()
    assert len(code) == 8 and not set(code) & set("0O1I")
    assert len(codes.ALPHABET) ** codes.CODE_LENGTH > 10**12
    assert codes.normalise_code(" abcd-efgh ") == "ABCDEFGH"
    assert codes.normalise_code("ABCD-EFG0") is None and codes.normalise_code("ABC") is None
    assert codes.display_code("ABCDEFGH") == "ABCD-EFGH"


def test_teacher_keys_are_signed_random_bits_and_only_their_hash_is_kept() -> None:
    key = codes.signed_id(SECRET, "ABCDEFGH", codes.TEACHER)
    assert len(key) == 44  # 128 random bits and a 128-bit tag, URL-safe base64
    assert codes.key_matches(key, codes.key_hash(key))
    assert not codes.key_matches(codes.signed_id(SECRET, "ABCDEFGH", codes.TEACHER), codes.key_hash(key))
    assert not codes.key_matches(None, codes.key_hash(key))
    assert key not in codes.key_hash(key)


def test_only_an_id_the_server_signed_for_that_room_and_kind_passes() -> None:
    student = codes.signed_id(SECRET, "ABCDEFGH", codes.STUDENT)
    assert codes.is_signed(SECRET, "ABCDEFGH", codes.STUDENT, student)
    assert not codes.is_signed(SECRET, "ABCDEFGJ", codes.STUDENT, student)  # another room
    assert not codes.is_signed(SECRET, "ABCDEFGH", codes.TEACHER, student)  # a student id is no teacher key
    assert not codes.is_signed("another secret", "ABCDEFGH", codes.STUDENT, student)
    made_up = ["A" * 22, "A" * 44, student[:22] + "A" * 22, student[:-1] + ("A" if student[-1] != "A" else "B"),
               student + "A", "", None, "é" * 44]
    assert not any(codes.is_signed(SECRET, "ABCDEFGH", codes.STUDENT, text) for text in made_up)
    assert len({codes.signed_id(SECRET, "ABCDEFGH", codes.STUDENT) for _ in range(100)}) == 100


@given(st.text(max_size=100))
@example("0" * 23 + " 0")  # cut at 24 characters, on the space between two words
def test_nicknames_are_one_short_line(text) -> None:
    name = codes.clean_nickname(text)
    assert len(name) <= 24 and "\n" not in name and name == name.strip()


def test_a_typed_word_is_one_token_or_refused_with_the_reason(bigram) -> None:
    tok = bigram.tokenizer
    assert guess_token(bigram, " her ") == tok.encode_ids("her")[0]
    with pytest.raises(GuessRefused, match="2 tokens"):
        guess_token(bigram, "Mr.")
    with pytest.raises(GuessRefused, match="not in the vocabulary"):
        guess_token(bigram, "zyxwvutq")
    with pytest.raises(GuessRefused, match="type a word"):
        guess_token(bigram, "  ")


def test_a_typed_word_loses_its_control_characters_before_it_is_read_or_shown_back(bigram) -> None:
    assert guess_token(bigram, "h\u202eer\x00") == bigram.tokenizer.encode_ids("her")[0]
    with pytest.raises(GuessRefused) as refused:
        guess_token(bigram, "zyx\u202ewvutq\x00")
    assert refused.value.params["word"] == "zyxwvutq"
