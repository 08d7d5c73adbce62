"""When a vote opens, closes and comes back, from what the teacher's screen shows; codes, keys and typed guesses."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from webapp.room import codes
from webapp.room.guess import GuessRefused, guess_token
from webapp.room.rounds import (
    KEPT,
    OPEN,
    REVEALED,
    Picks,
    RoundChange,
    next_round,
    picks,
    read_rounds,
    restart_round,
    step_key,
    step_keys,
)
from webapp.room.store import Room

A, B = step_key("p", "m", (1, 2)), step_key("p", "m", (1, 3))


def room(**fields) -> Room:
    return Room(code="ABCDEFGH", key_hash="", state="", **fields)


def hiding(key: str, step: int = 2) -> Picks:
    return Picks(hidden=key, hidden_step=step)


def showing(*keys: str) -> Picks:
    return Picks(shown={key: 2 for key in keys})


def moved(before: Room, screen: Picks, action: str = "show") -> tuple[Room, RoundChange]:
    change = next_round(before, screen, action)
    return replace(before, **change.fields()), change


def statuses(r: Room) -> dict[int, str]:
    return {x.number: x.status for x in read_rounds(r).values()}


def test_a_steps_key_is_the_text_before_its_pick_and_one_pass_names_every_step() -> None:
    ids = (12, 5, 9, 4000)
    assert step_keys("It is", "m", ids) == [step_key("It is", "m", ids[:j]) for j in range(len(ids))]
    assert step_key("It is", "m", (12,)) != step_key("It is", "other", (12,)) != step_key("It", "m", (12,))
    assert step_key("p", "m", (1, 23)) != step_key("p", "m", (12, 3))


def test_a_screen_shows_every_pick_in_its_text_but_a_hidden_last_one_and_the_teachers_own() -> None:
    keys = step_keys("p", "m", (4, 2, 9))
    hidden = picks("p", "m", (4, 2, 9), forced=(False, True, False), last_hidden=True)
    assert (hidden.hidden, hidden.hidden_step, dict(hidden.shown)) == (keys[2], 2, {keys[0]: 0})
    shown = picks("p", "m", (4, 2, 9), forced=(False, False, False), last_hidden=False)
    assert shown.hidden is None and dict(shown.shown) == {keys[0]: 0, keys[1]: 1, keys[2]: 2}
    assert picks("p", "m", (), forced=(), last_hidden=True) == Picks()


def test_a_hidden_step_opens_a_round_only_with_class_votes_on() -> None:
    assert next_round(room(), hiding(A), "step").round_open is False
    change = next_round(room(votes_on=True), hiding(A), "step")
    assert (change.round, change.round_open, change.round_key, change.n_rounds, change.new) == (1, True, A, 1, True)


def test_revealing_the_step_counts_its_round_which_never_opens_again() -> None:
    voting, _ = moved(room(votes_on=True), hiding(A), "step")
    revealed, change = moved(voting, showing(A))
    assert (change.round_open, change.revealed.number, change.revealed.step) == (False, 1, 2)
    again, change = moved(revealed, hiding(A), "step")
    assert not change.round_open and change.revealed is None and statuses(again) == {1: REVEALED}


def test_a_round_left_before_its_reveal_is_kept_and_comes_back_with_its_number() -> None:
    voting, _ = moved(room(votes_on=True, round=1, n_rounds=1, rounds=f"1:2:revealed:{B}"), hiding(A), "step")
    assert voting.round == 2
    for away, action in ((Picks(), "reset"), (showing(B), "back"), (hiding(B), "back"), (Picks(), "choose")):
        left, change = moved(voting, away, action)
        assert change.revealed is None and not change.round_open and statuses(left) == {1: REVEALED, 2: KEPT}
        back, change = moved(left, hiding(A), "step")
        assert (back.round, back.round_open, back.n_rounds, change.new) == (2, True, 2, False)


def test_a_restarted_round_is_the_same_step_under_the_next_number_and_comes_back_as_it() -> None:
    voting, _ = moved(room(votes_on=True, round=1, n_rounds=1, rounds=f"1:2:revealed:{B}"), hiding(A), "step")
    change = restart_round(voting)
    assert (change.round, change.round_open, change.round_key, change.n_rounds, change.new) == (3, True, A, 3, True)
    restarted = replace(voting, **change.fields())
    assert statuses(restarted) == {1: REVEALED, 3: OPEN}  # round 2 and its votes are gone
    left, _ = moved(restarted, Picks(), "reset")
    back, change = moved(left, hiding(A), "step")  # leaving and coming back finds the restarted round
    assert (back.round, back.round_open, change.new) == (3, True, False)
    assert restart_round(left) is None  # nothing open: nothing to restart


def test_back_never_opens_a_new_round() -> None:
    voting, _ = moved(room(votes_on=True), hiding(A), "step")
    left, change = moved(voting, hiding(B), "back")  # B's pick was in the text a moment ago
    assert not change.round_open and statuses(left) == {1: KEPT}
    stepped, change = moved(left, hiding(B), "step")
    assert change.new and stepped.round == 2 and statuses(stepped) == {1: KEPT, 2: OPEN}


def test_class_votes_off_keep_the_round_and_on_again_it_opens_again() -> None:
    voting, _ = moved(room(votes_on=True), hiding(A), "step")
    off, change = moved(replace(voting, votes_on=False), hiding(A))
    assert not change.round_open and change.revealed is None and statuses(off) == {1: KEPT}
    on, change = moved(replace(off, votes_on=True), hiding(A))
    assert (on.round, on.round_open) == (1, True) and statuses(on) == {1: OPEN}


def test_a_kept_round_is_counted_when_its_pick_is_shown_even_with_class_votes_off() -> None:
    voting, _ = moved(room(votes_on=True), hiding(A), "step")
    off, _ = moved(replace(voting, votes_on=False), hiding(A))
    shown, change = moved(off, showing(A))
    assert change.revealed.number == 1 and statuses(shown) == {1: REVEALED}


def test_a_step_past_a_hidden_pick_counts_its_round_and_opens_the_next() -> None:
    voting, _ = moved(room(votes_on=True), hiding(A), "step")
    past, change = moved(voting, Picks(hidden=B, hidden_step=3, shown={A: 2}), "step")
    assert change.revealed.number == 1 and (past.round, past.round_open) == (2, True)


def test_picks_shown_at_once_are_counted_one_change_after_another() -> None:
    voting, _ = moved(room(votes_on=True, rounds=f"1:1:kept:{B}", round=1, n_rounds=1), hiding(A), "step")
    first, change = moved(voting, showing(A, B))
    assert change.more and change.revealed.number == 1
    second, change = moved(first, showing(A, B))
    assert not change.more and change.revealed.number == 2
    third, change = moved(second, showing(A, B))
    assert change.revealed is None and third == second and statuses(third) == {1: REVEALED, 2: REVEALED}


def test_a_round_an_older_server_opened_is_kept_not_lost() -> None:
    older = room(votes_on=True, round=3, round_open=True, round_key="0" * 32)
    left, change = moved(older, hiding(A), "step")
    assert statuses(left) == {3: KEPT, 4: OPEN} and change.n_rounds == 4


TEXTS = st.lists(st.integers(1, 3), max_size=3).map(tuple)
SCREENS = st.tuples(TEXTS, st.lists(st.booleans(), min_size=3, max_size=3), st.booleans(), st.booleans(),
                    st.sampled_from(["step", "back", "reset", "choose", "show"]))


@given(st.lists(SCREENS, max_size=12))
def test_rounds_are_never_lost_their_numbers_run_on_and_one_change_settles_them(screens) -> None:
    r = room()
    seen: dict[int, str] = {}
    for ids, forced, hidden, votes_on, action in screens:
        screen = picks("p", "m", ids, forced[: len(ids)], hidden)
        r = replace(r, votes_on=votes_on)
        for _pass in range(len(seen) + 2):  # as apply_change does: count one more round a pass, while there are more
            r, change = moved(r, screen, action)
            if not change.more:
                break
        now = {x.number: x for x in read_rounds(r).values()}
        assert set(seen) <= set(now) and sorted(now) == list(range(1, r.n_rounds + 1))
        assert all(now[n].status == REVEALED for n, status in seen.items() if status == REVEALED)
        assert all(x.status == REVEALED for x in now.values() if x.key in screen.shown)
        open_ = [x for x in now.values() if x.status == OPEN]
        assert r.round_open == bool(open_) and (not open_ or (open_[0].number, open_[0].key) == (r.round, r.round_key))
        assert moved(r, screen, action)[0] == r  # decided again with the same screen: nothing left to change
        seen = {n: x.status for n, x in now.items()}


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


def test_a_scope_gives_the_same_step_a_key_of_its_own_and_none_leaves_the_keys_as_they_were():
    ids = (4, 2, 9)
    assert step_keys("p", "m", ids, scope="article#4") == [step_key("p", "m", ids[:j], "article#4") for j in range(3)]
    assert step_key("p", "m", (4,), "article#4") != step_key("p", "m", (4,), "article#5") != step_key("p", "m", (4,))
    assert step_key("p", "m", (4,), "") == step_key("p", "m", (4,))
    assert picks("p", "m", ids, (False,) * 3, True, scope="s").hidden == step_key("p", "m", ids[:2], "s")
