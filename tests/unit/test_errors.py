"""The core's messages: English text for a terminal, a msgid and its figures for a translation."""

from __future__ import annotations

import pytest

from webapp.inference import InvalidSetting, PromptTooLong, Settings
from webapp.inference.errors import InferenceError


def test_an_error_reads_in_english_with_its_figures_in_place():
    error = PromptTooLong("the prompt has %(n)s characters; the limit is %(limit)s", n=2001, limit=2000)
    assert str(error) == "the prompt has 2,001 characters; the limit is 2,000"
    assert error.message == "the prompt has %(n)s characters; the limit is %(limit)s"
    assert error.params == {"n": 2001, "limit": 2000}


def test_figures_given_as_text_are_left_as_they_are():
    error = InferenceError("token id %(id)s is not in %(name)s at %(x)s", id="12345", name="'a b'", x=0.25)
    assert str(error) == "token id 12345 is not in 'a b' at 0.25"


def test_a_message_without_figures_may_hold_a_percent_sign():
    assert str(InferenceError("100 % of it")) == "100 % of it"


@pytest.mark.parametrize(
    ("settings", "text"),
    [
        ({"top_p": 1.5}, "top-p must be in (0, 1], not 1.5"),
        ({"top_k": 0}, "top-k must be a whole number >= 1, not 0"),
        ({"seed": -1}, "seed must be a whole number from 0 to "),
        ({"presence_penalty": 3.0}, "presence penalty must be from -2 to 2, not 3.0"),
    ],
)
def test_a_bad_setting_says_why_and_keeps_its_msgid(settings, text):
    with pytest.raises(InvalidSetting) as caught:
        Settings(**settings)
    assert str(caught.value).startswith(text)
    assert "%(" in caught.value.message and "%(" not in str(caught.value)
