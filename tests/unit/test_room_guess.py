"""What a student may guess: never <unk> or a special token, whether offered, sent as an id or typed."""

from __future__ import annotations

import pytest

from webapp.inference.machinery import llama_gguf
from webapp.room.guess import GuessRefused, check_guess, guess_token, guessable, not_guesses

from .tiny_gguf import SPECIALS, write_tiny_gguf


@pytest.fixture(scope="module")
def bpe(tmp_path_factory):
    """A tiny byte-level BPE model: three special tokens (ids 0, 1, 2), the bytes, a few merges."""
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    write_tiny_gguf(path)
    return llama_gguf.from_gguf(path, "tiny", n_ctx=16, block=4)


def test_a_word_model_s_unk_is_no_guess(bigram) -> None:
    unk, her = bigram.tokenizer.unk_id, bigram.tokenizer.encode_ids("her")[0]
    assert not_guesses(bigram) == {unk}
    assert guessable(bigram, [her, unk, 7]) == [her, 7]
    assert check_guess(bigram, her) == her
    with pytest.raises(GuessRefused, match="not a token to vote for") as refused:
        check_guess(bigram, unk)
    assert refused.value.params["token"] == "<unk>"


def test_a_bpe_model_s_special_tokens_are_no_guess_even_typed_out(bpe) -> None:
    specials = {bpe.tokenizer.vocab.index(text) for text in SPECIALS}
    assert not_guesses(bpe) == specials == bpe.tokenizer.special_ids
    assert guess_token(bpe, "the") == bpe.tokenizer.encode_ids(" the")[0]  # ' the': one token of text
    for text in SPECIALS:
        with pytest.raises(GuessRefused, match="not a token to vote for"):
            guess_token(bpe, text)  # written out, it is matched as the special token: one token, and no guess
