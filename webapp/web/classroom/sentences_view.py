"""The room's writing round, as its pages show it: the teacher's list of the class's sentences (on the laptop and
the projector), the form on each student's phone, and a student's own sentences.

Nicknames reach the teacher's list only with the leaderboard on, as they reach the projector's leaderboard; a
student's page never holds another student's sentences or name.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import url_for

from ...inference.class_bigram import MAX_SENTENCE_CHARS, MAX_SENTENCES, MAX_SENTENCES_PER_STUDENT, tally
from ...room.store import Room
from ..i18n.filters import thousands
from ..i18n.translations import gettext as _
from ..i18n.translations import ngettext

N_SHOWN = 60  # sentences listed on the laptop, newest first; the CSV has them all
N_PROJECTED = 18  # on the projector: three columns of the latest, large enough for the back row


@dataclass(frozen=True)
class Line:
    n: int
    text: str
    who: str  # the student's nickname with the leaderboard on; '' otherwise


@dataclass(frozen=True)
class SentencesPanel:
    """The teacher's writing round: its state, the sentences so far and what they give the model to count."""

    code: str
    writing: bool
    topic: str
    lines: tuple[Line, ...]  # newest first, at most N_SHOWN
    n_sentences: int
    counts: str  # '23 sentences · 140 words and marks · 48 different · 163 word pairs counted'
    more: str  # '… and 12 earlier sentences' when not all are listed
    presenting: bool
    poll_url: str
    open_url: str
    close_url: str
    remove_url: str
    clear_url: str
    build_url: str
    csv_url: str
    limits: str


def limits_sentence() -> str:
    return _("Each student can send %(per)s sentences of up to %(chars)s characters; the class, %(most)s in all.",
             per=MAX_SENTENCES_PER_STUDENT, chars=MAX_SENTENCE_CHARS, most=MAX_SENTENCES)


def panel(room: Room, sentences: list[tuple[int, str, str]], nicknames: dict[str, str],
          presenting: bool) -> SentencesPanel:
    """The teacher's list; `sentences` as the store holds them, (n, student, text) in the order sent."""
    t = tally([text for _, _, text in sentences])
    shown = sentences[::-1][:N_PROJECTED if presenting else N_SHOWN]
    counts = " · ".join([
        ngettext("%(num)s sentence", "%(num)s sentences", t.n_sentences),
        ngettext("%(num)s word or mark", "%(num)s words and marks", t.n_tokens),
        ngettext("%(num)s different one", "%(num)s different ones", t.n_words),
        ngettext("%(num)s word pair counted", "%(num)s word pairs counted", t.n_pairs),
    ])
    hidden = len(sentences) - len(shown)
    code = room.code
    return SentencesPanel(
        code=code,
        writing=room.writing,
        topic=room.topic,
        lines=tuple(Line(n, text, nicknames.get(student, "") if room.leaderboard else "")
                    for n, student, text in shown),
        n_sentences=t.n_sentences,
        counts=counts,
        more=ngettext("… and %(num)s earlier sentence", "… and %(num)s earlier sentences", hidden) if hidden else "",
        presenting=presenting,
        poll_url=url_for("room.sentences_part", code=code, present="1" if presenting else None),
        open_url=url_for("room.open_writing", code=code),
        close_url=url_for("room.close_writing", code=code),
        remove_url=url_for("room.remove_sentence", code=code),
        clear_url=url_for("room.clear_sentences", code=code),
        build_url=url_for("room.build_model", code=code),
        csv_url=url_for("room.sentences_csv_file", code=code),
        limits=limits_sentence(),
    )


@dataclass(frozen=True)
class WriteBox:
    """The form on every student's phone while the class writes: the same for every student (it is built once per
    version of the room, in each language)."""

    topic: str
    action: str
    max_chars: int
    limits: str


def write_box(room: Room) -> WriteBox | None:
    if not room.writing or room.ended:
        return None
    return WriteBox(topic=room.topic, action=url_for("room.send_sentence", code=room.code),
                    max_chars=MAX_SENTENCE_CHARS, limits=limits_sentence())


@dataclass(frozen=True)
class MySentences:
    """A student's own sentences, in their part of the page."""

    texts: tuple[str, ...]
    sent: str  # 'You have sent 3 of 10 sentences.'


def my_sentences(sentences: list[tuple[int, str, str]], student: str) -> MySentences | None:
    mine = tuple(text for _, who, text in sentences if who == student)
    if not mine:
        return None
    return MySentences(texts=mine, sent=ngettext("You have sent %(num)s of %(most)s sentences.",
                                                 "You have sent %(num)s of %(most)s sentences.", len(mine),
                                                 most=thousands(MAX_SENTENCES_PER_STUDENT)))
