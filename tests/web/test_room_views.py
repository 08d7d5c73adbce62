"""The class room's presenters (webapp/web/classroom/panel_view.py, results_view.py, student_view.py), tested
directly: the results chart's scale and rows, the figures and sentences' parts of a revealed round, when the
panel says how a vote begins, the presenter-mode link, the counts, the ballot's order, a student's vote
line and record, and the round's status room.js reads."""

from __future__ import annotations

import doctest
from types import SimpleNamespace

import pytest

from webapp.room.codes import MAX_NICKNAME
from webapp.room.store import Room
from webapp.room.votes import Bar, Guess, Place, RoundResult, Running, histogram
from webapp.web.classroom import panel_view, results_view, student_view
from webapp.web.classroom.room_support import Attendance, Lesson
from webapp.web.i18n.labels import token_labels
from webapp.web.stages.screen import build_screen
from webapp.web.url.parse import parse_state

from .seeded import BASE

CODE = "K7QM3XPA"


def room(**fields) -> Room:
    return Room(code=CODE, key_hash="", state="prompt=It&seed=7", **fields)


def result(**fields) -> RoundResult:
    """Step 3 (index 2): 10 votes, 6 for the model's top token 3, 3 for the pick 5, 1 for token 9 off the chart."""
    values = dict(
        round=1, step=2, picked=5, top=3, tally={3: 6, 5: 3, 9: 1}, order=(3, 5), probs={3: 0.5, 5: 0.2}, p1_picked=0.25
    )
    values["n_vocab"] = 5000
    return RoundResult(**{**values, **fields})


def bar(share: float, prob: float, token: int = 3, picked: bool = False) -> Bar:
    return Bar(token=token, votes=1, share=share, prob=prob, picked=picked, top=False, colour=0)


@pytest.fixture
def request_in(app):
    """A request context in a language, as a room's page gets (url_for, the catalog, the number style)."""

    def enter(lang: str | None):
        context = app.test_request_context(f"/?lang={lang}" if lang else "/")
        context.push()
        app.preprocess_request()
        return context

    contexts = []
    yield lambda lang=None: contexts.append(enter(lang))
    for context in reversed(contexts):
        context.pop()


@pytest.mark.parametrize("module", [results_view, student_view, panel_view])
def test_the_docstrings_examples_hold(module):
    assert not doctest.testmod(module).failed


# --- the revealed round's chart and figures --------------------------------------------------------


def test_the_longest_bar_is_the_largest_share_or_probability_but_a_tiny_chart_is_not_blown_up():
    assert results_view.chart_scale([bar(0.6, 0.3), bar(0.4, 0.1)]) == 0.6
    assert results_view.chart_scale([bar(0.2, 0.3), bar(0.0, 0.7)]) == 0.7
    assert results_view.chart_scale([bar(0.0, 0.004)]) == results_view.LEAST_SCALE


def test_each_row_sits_a_row_height_below_the_last_its_bars_on_one_scale():
    rows = results_view.vote_bars([bar(0.6, 0.3, token=0), bar(0.3, 0.15, token=1, picked=True)], ["a", "b"])
    assert [(r.label_y, r.class_y, r.model_y, r.value_y, r.model_value_y) for r in rows] == [
        (31, 18, 28, 26, 36),
        (55, 42, 52, 50, 60),
    ]
    assert [(r.class_width, r.model_width) for r in rows] == [("48.000", "24.000"), ("24.000", "12.000")]
    assert [(r.label, r.picked, r.share, r.prob) for r in rows] == [
        ("a", False, "60 %", "30 %"),
        ("b", True, "30 %", "15 %"),
    ]


def test_a_revealed_round_says_how_many_guessed_the_pick_and_the_top_token(request_in, model):
    request_in()
    shown = results_view.present(result(), running=Running(1, 2.0, 2.0), board=None, model=model)
    labels = token_labels(model)
    assert (shown.step, shown.n_votes, shown.n_picked, shown.picked_share, shown.n_top, shown.top_share) == (
        3,
        10,
        3,
        "30 %",
        6,
        "60 %",
    )
    assert (shown.picked_label, shown.top_label) == (labels[5], labels[3])
    assert [b.token for b in shown.bars] == [3, 5] and shown.other_votes == 1
    assert shown.chart_height == 2 * results_view.ROW_HEIGHT + 20
    assert shown.board == ()


def test_the_lesson_so_far_is_in_bits_as_the_locale_writes_them_and_absent_before_a_round_with_votes(request_in, model):
    request_in("de")
    shown = results_view.present(result(), running=Running(2, 1.58496, 2.0), board=None, model=model)
    assert (shown.n_rounds, shown.class_bits, shown.model_bits, shown.picked_share) == (2, "1,58", "2,00", "30\xa0%")
    none_yet = results_view.present(result(tally={}), running=Running(0, None, None), board=None, model=model)
    assert (none_yet.n_rounds, none_yet.class_bits, none_yet.model_bits) == (0, "", "")


def test_the_leaderboard_is_shown_as_the_domain_ranked_it(request_in, model):
    request_in()
    board = [Place("Ada", 2, 2), Place("Bo", 1, 2)]
    assert results_view.present(result(), running=Running(0, None, None), board=board, model=model).board == tuple(
        board
    )


# --- the teacher's panel -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes_on", "round_open", "revealed", "hint"),
    [(True, False, False, True), (False, False, False, False), (True, True, False, False), (True, False, True, False)],
)
def test_the_panel_says_how_a_vote_begins_only_before_the_first(votes_on, round_open, revealed, hint):
    lesson = Lesson([result()] if revealed else [])
    assert panel_view.shows_step_hint(room(votes_on=votes_on, round_open=round_open), lesson) is hint


def attending(n_students: int, votes: dict[str, int] | None = None) -> Attendance:
    """n students with ids 's0', 's1', ... and nicknames 'N0', 'N1', ...; votes by id while a vote is open."""
    return Attendance({f"s{i}": f"N{i}" for i in range(n_students)}, votes)


def panel(model, presenting=None, results=(), joining=False, **fields) -> panel_view.RoomPanel:
    return panel_view.present(
        room(**fields),
        attendance=attending(3),
        lesson=Lesson(list(results)),
        board=None,
        model=model,
        presenting=presenting,
        joining=joining,
    )


def test_the_presenter_link_leads_to_the_other_mode_and_the_panel_sent_alone_has_none(request_in, model):
    request_in()
    assert panel(model, presenting=False).presenter_url == f"/room/{CODE}/teach?present=1"
    leaving = panel(model, presenting=True)
    assert (leaving.presenter_url, leaving.present) == (f"/room/{CODE}/teach", True)
    alone = panel(model)
    assert (alone.presenter_url, alone.present) == (None, False)


def test_the_join_screen_s_links_keep_presenter_mode_and_the_presenter_link_keeps_the_join_screen(request_in, model):
    request_in()
    shown = panel(model, presenting=True, joining=True)
    assert (shown.joining, shown.presenter_url) == (True, f"/room/{CODE}/teach?join=1")
    assert shown.join_url_shown == f"/room/{CODE}/teach?present=1&join=1"
    assert shown.join_url_hidden == f"/room/{CODE}/teach?present=1"
    assert panel(model, presenting=False).presenter_url == f"/room/{CODE}/teach?present=1"


@pytest.mark.parametrize(
    ("params", "round_open", "in_front"),
    [
        ({"ids": "4,9,7"}, False, True),  # the voted step (the third) on screen, revealed
        ({"ids": "4,9,7,8", "at": "2"}, False, True),  # a later step's screen showing it again
        ({"ids": "4,9"}, False, False),  # Back: another step
        ({"ids": "4,9,7", "predict": "1"}, False, False),  # its pick hidden again
        ({"ids": "4,9,7"}, True, False),  # the next vote open
    ],
)
def test_the_results_come_to_the_front_only_on_their_step_revealed_with_no_vote_open(app, params, round_open, in_front):
    models = app.extensions["models"]
    screen = parse_state({**BASE, **params}, models, app.config["DEFAULT_MODEL"])
    shown = panel_view.shows_results_on_screen(room(round_open=round_open), Lesson([result()]), screen)
    assert shown is in_front
    assert panel_view.shows_results_on_screen(room(), Lesson([]), screen) is False


def test_the_panel_reads_the_code_aloud_and_prints_the_join_address_without_its_query(request_in, model):
    request_in()
    shown = panel(model)
    assert shown.display_code == "K7QM-3XPA"
    assert shown.join_url.endswith(f"/join?code={CODE}") and shown.join_address == shown.join_url.split("?")[0]
    assert shown.results is None
    assert panel(model, results=[result()], votes_on=True).results.step == 3


def test_the_counts_name_votes_only_while_a_vote_is_open_grouped_as_the_locale_groups(request_in, model):
    request_in("de")
    open_vote = panel_view.live(room(round_open=True), attending(4871, {f"s{i}": 5 for i in range(1234)}), model)
    assert (open_vote.students, open_vote.voting, open_vote.n_votes, open_vote.votes) == ("4.871", True, 1234, "1.234")
    closed = panel_view.live(room(), attending(12), model)
    assert (closed.n_students, closed.voting) == (12, False)
    assert closed.url == f"/room/{CODE}/live?lang=de"  # the room's links keep the page's language


def test_the_live_tally_is_hidden_until_shown_and_then_counts_the_most_voted_tokens(request_in, model):
    request_in()
    votes = {f"s{i}": token for i, token in enumerate([7] * 5 + [3] * 2 + [9, 1, 2, 4, 5, 6, 8])}
    hidden = panel_view.live(room(round_open=True), attending(20, votes), model)
    assert hidden.tally == () and not hidden.tally_shown and hidden.other_votes == 0
    shown = panel_view.live(room(round_open=True, tally_shown=True), attending(20, votes), model)
    assert [(bar.token, bar.votes) for bar in shown.tally] == [(7, 5), (3, 2), (1, 1), (2, 1), (4, 1), (5, 1)]
    assert [bar.height for bar in shown.tally[:2]] == ["100.0", "40.0"] and shown.tally[1].top == "60.0"
    assert shown.other_votes == 3  # 6, 8 and 9
    assert shown.tally[0].label == token_labels(model, results_view.LABEL_LENGTH)[7]
    assert panel_view.live(room(tally_shown=True), attending(20), model).tally == ()  # no vote open


def test_the_roster_lists_every_student_by_nickname_and_marks_who_voted(request_in, model):
    request_in()
    attendance = Attendance({"id-b": "bea", "id-a": "Al", "id-x": "", "id-c": "<b>Cy</b>"}, {"id-a": 4, "id-x": 2})
    roster = panel_view.roster(room(round_open=True), attendance)
    assert [(e.nickname, e.voted) for e in roster.entries] == [
        ("<b>Cy</b>", False), ("Al", True), ("bea", False), ("", True)]
    assert roster.voting and roster.remove_url == f"/room/{CODE}/remove"
    assert "id-a" not in {e.handle for e in roster.entries}  # never the id a student's cookie holds
    assert len({e.handle for e in roster.entries}) == 4
    assert not panel_view.roster(room(), Attendance({"id-a": "Al"}, None)).voting


def test_names_stay_off_the_projector_and_an_ended_lesson_offers_no_more_changes(request_in, model):
    request_in()
    assert panel(model, presenting=False).roster is not None
    assert panel(model, presenting=None).roster is not None  # the panel alone, on the teacher's laptop
    assert panel(model, presenting=True).roster is None
    ended = panel(model, presenting=False, ended=True)
    assert ended.ended and ended.roster is None


# --- a student's part ------------------------------------------------------------------------------


@pytest.mark.parametrize(("round_open", "status"), [(True, "4-open"), (False, "4-closed")])
def test_the_round_status_says_the_round_and_whether_it_is_open(round_open, status):
    assert student_view.round_status(room(round=4, round_open=round_open)) == status


def ballot_screen(labels, unk_id=None, special_ids=frozenset(), n_top=None):
    """A screen whose top rows are ids 0, 1, 2, ... (n_top of them, then one the pick added under them)."""
    n_top = len(labels) - 1 if n_top is None else n_top
    tokenizer = SimpleNamespace(unk_id=unk_id, special_ids=special_ids)
    rows = [SimpleNamespace(id=i) for i in range(len(labels))]
    return SimpleNamespace(labels=labels, model=SimpleNamespace(tokenizer=tokenizer),
                           result=SimpleNamespace(rows=rows, n_top=n_top))


def test_the_ballot_lists_the_top_tokens_alphabetically_ties_by_id():
    screen = ballot_screen(("b", "A", "a", "c", "z", "y", "x", "w", "v", "u"))
    assert student_view.ballot_tokens(screen) == [1, 2, 0, 3, 7, 6, 5, 4]  # the top 8 only: not 'v' or 'u'


def test_the_ballot_leaves_out_unk_and_special_tokens_and_fills_up_from_the_top_rows_only():
    labels = ("<unk>", "b", "<|endoftext|>", "a", "c", "d", "e", "f", "g", "h", "i", "picked")
    screen = ballot_screen(labels, unk_id=0, special_ids=frozenset({2}))
    assert [labels[i] for i in student_view.ballot_tokens(screen)] == ["a", "b", "c", "d", "e", "f", "g", "h"]
    few = ballot_screen(labels, unk_id=0, special_ids=frozenset({2}), n_top=5)
    assert [labels[i] for i in student_view.ballot_tokens(few)] == ["a", "b", "c"]  # not the row added for the pick


def screen_of(app, **params):
    models = app.extensions["models"]
    return build_screen(models, parse_state({**BASE, **params}, models, app.config["DEFAULT_MODEL"]))


def test_the_ballot_offers_tokens_only_while_a_vote_is_open(app, request_in):
    request_in()
    screen = screen_of(app)
    open_vote = student_view.ballot(room(round=2, round_open=True, votes_on=True), screen)
    assert open_vote.open and len(open_vote.tokens) == student_view.N_BALLOT and open_vote.round == 2
    assert [t.label for t in open_vote.tokens] == [screen.labels[i] for i in student_view.ballot_tokens(screen)]
    assert open_vote.vote_url == f"/room/{CODE}/vote"
    waiting = student_view.ballot(room(votes_on=True), screen)
    assert (waiting.open, waiting.waiting, waiting.votes_off, waiting.tokens) == (False, True, False, ())
    off = student_view.ballot(room(), screen)
    assert (off.waiting, off.votes_off) == (False, True)
    assert not open_vote.votes_off


def test_the_ballot_marks_the_student_s_vote_and_only_theirs(app, request_in):
    request_in()
    ballot = student_view.ballot(room(round=2, round_open=True, votes_on=True), screen_of(app))
    mine = ballot.tokens[3].id
    assert [t.chosen for t in student_view.with_choice(ballot, mine).tokens] == [i == 3 for i in range(8)]
    assert not any(t.chosen for t in ballot.tokens), "the class's ballot, kept for every student, marks no one's"
    assert student_view.with_choice(ballot, None) == ballot


def test_the_status_line_names_the_step_on_screen_from_one(app, request_in, three):
    request_in()
    assert student_view.status(room(), screen_of(app)).step is None
    status = student_view.status(room(), screen_of(app, ids=",".join(map(str, three))))
    assert status.step == 3 and status.follow_url == f"/room/{CODE}"


@pytest.mark.parametrize(
    ("token", "round_open", "shown", "not_yet"),
    [(7, True, True, False), (None, True, False, True), (None, False, False, False)],
)
def test_the_vote_line_says_the_vote_or_that_none_is_cast_while_a_vote_is_open(
    model, token, round_open, shown, not_yet
):
    vote = student_view.my_vote(room(round_open=round_open), token, model)
    assert (vote.token is not None, vote.not_yet) == (shown, not_yet)
    if shown:
        assert vote.token == token_labels(model)[token]


def test_the_record_lists_the_latest_guesses_newest_first_and_counts_every_hit(model):
    guesses = [Guess(round=i + 1, step=i, guess=i % 3, picked=0) for i in range(10)]  # hits at 0, 3, 6, 9
    record = student_view.record(
        room(round=11, round_open=True), nickname=None, my_votes={11: 4}, guesses=guesses, model=model
    )
    assert [g.step for g in record.guesses] == [10, 9, 8, 7, 6, 5, 4, 3]
    assert [g.hit for g in record.guesses[:2]] == [True, False]
    assert (record.n_guesses, record.n_hits, record.nickname) == (10, 4, "")
    assert record.vote.token == token_labels(model)[4] and record.vote.token_id == 4


def test_the_join_form_allows_the_nickname_the_store_keeps():
    assert student_view.join_form("ABCD").max_nickname == MAX_NICKNAME


def test_the_histogram_the_chart_draws_is_the_domains(request_in, model):
    """The chart's rows are votes.histogram's bars, in its order and colours."""
    request_in()
    shown = results_view.present(result(), running=Running(0, None, None), board=None, model=model)
    assert [(b.token, b.colour, b.votes) for b in shown.bars] == [
        (b.token, b.colour, b.votes) for b in histogram(result())
    ]
