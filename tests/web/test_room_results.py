"""A revealed round's surprise in words: the class and the model on this step and over the lesson, as pupils read it."""

from __future__ import annotations

import pytest

from webapp.room.votes import RoundResult, Running
from webapp.web.classroom import results_view


@pytest.fixture
def request_in(app):
    """A request context in a language (the catalog, the number style), as a room's page gets."""
    contexts = []

    def enter(lang: str | None = None):
        context = app.test_request_context(f"/?lang={lang}" if lang else "/")
        context.push()
        app.preprocess_request()
        contexts.append(context)

    yield enter
    for context in reversed(contexts):
        context.pop()


NEVER_GUESSED = RoundResult(round=1, step=4, picked=91, top=3, tally={3: 4, 7: 2}, order=(3, 7, 91),
                            probs={3: 0.3, 7: 0.1, 91: 0.034}, p1_picked=2**-4.87, n_vocab=5000)


@pytest.mark.parametrize(
    ("p", "words"), [(0.34, "34 %"), (0.01, "1 %"), (1 / 35_000, "1 in 35,000"), (0.0034, "1 in 290"), (0.0, "0 %")]
)
def test_a_chance_is_a_percentage_from_one_percent_and_one_in_so_many_below(request_in, p, words):
    request_in()
    assert results_view.chance(p).replace("\xa0", " ") == words


def test_a_class_that_never_guessed_the_pick_is_shown_far_more_surprised_than_the_model(request_in, model):
    request_in()
    shown = results_view.present(NEVER_GUESSED, running=Running(1, 15.1, 4.87), board=None, model=model)
    assert (shown.class_bits_now, shown.model_bits_now) == ("15.10", "4.87")
    assert (shown.class_chance, shown.model_chance, shown.n_vocab) == ("1 in 35,000", "3 %", "5,000")


def test_the_surprise_is_written_as_the_locale_writes_numbers(request_in, model):
    request_in("de")
    shown = results_view.present(NEVER_GUESSED, running=Running(1, 15.1, 4.87), board=None, model=model)
    assert (shown.class_bits_now, shown.class_chance, shown.n_vocab) == ("15,10", "1 zu 35.000", "5.000")


def test_a_round_nobody_voted_in_has_no_surprise_of_its_own(request_in, model):
    request_in()
    nobody = RoundResult(**{**NEVER_GUESSED.__dict__, "tally": {}})
    shown = results_view.present(nobody, running=Running(0, None, None), board=None, model=model)
    assert (shown.class_bits_now, shown.model_bits_now) == ("", "")
