"""A model built from a pasted text or a saved file, and its page: every figure recomputed here from the sentences
with plain counts (a regular expression for the tokens, a Counter for the pairs), not with the app's tables."""

from __future__ import annotations

import csv
import html
import io
import math
import re
import sqlite3
from collections import Counter

import pytest

from webapp.web import create_app

from .test_lessons import lesson_json
from .test_room import ORIGIN

TEXT = ("We like lunch. We like school!\n\nLunch is good. We eat lunch at school.\n\n"
        "Is school good? We like it. School is fun.")
SENTENCES = [("1", "We like lunch."), ("1", "We like school!"), ("2", "Lunch is good."),
             ("2", "We eat lunch at school."), ("3", "Is school good?"), ("3", "We like it."), ("3", "School is fun.")]
K = 0.01


def tokens(sentence: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", sentence)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """An app of the module's own, so that its store's texts are this module's alone."""
    folder = tmp_path_factory.mktemp("class-pages")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}"})


def n_kept(app) -> int:
    with sqlite3.connect(app.config["ROOM_STORE"].removeprefix("sqlite:///")) as db:
        return db.execute("SELECT COUNT(*) FROM texts").fetchone()[0]


def paste(client, text: str):
    """As the form sends it: multipart, the text's bytes as they are (urlencoded, "<" would be three bytes)."""
    return client.post("/build", data={"text": text}, headers=ORIGIN, content_type="multipart/form-data")


def upload(client, data: bytes | str, name: str = "class.json"):
    data = data.encode() if isinstance(data, str) else data
    return client.post("/build/file", data={"file": (io.BytesIO(data), name)}, headers=ORIGIN)


def text_id(answer) -> str:
    assert answer.status_code == 303, answer.data[:300]
    location = answer.headers["Location"]
    assert location.startswith("/?model=class:") and location.endswith("&prompt=")
    return location.removeprefix("/?model=class:").removesuffix("&prompt=")


@pytest.fixture(scope="module")
def built(app) -> str:
    return text_id(paste(app.test_client(), TEXT))


def page_text(client, url: str) -> str:
    answer = client.get(url)
    assert answer.status_code == 200
    return html.unescape(re.sub(r"<[^>]+>", " ", answer.data.decode()))


def test_a_pasted_text_opens_the_stepper_on_its_model_and_its_page_gives_the_recomputed_figures(client, built):
    assert client.get(f"/?model=class:{built}&prompt=").status_code == 200
    words = [t for _, s in SENTENCES for t in tokens(s)]
    page = " ".join(page_text(client, f"/class/{built}").split())
    assert f"{len(SENTENCES)} sentences" in page
    assert f"{len(words)} words and punctuation marks" in page
    assert f"A vocabulary of {len(set(words)) + 3} tokens" in page  # and <s>, <p>, <unk>
    for _, sentence in SENTENCES:
        assert sentence in page
    assert "Step through its text" in page and f'href="/?model=class:{built}&amp;prompt="' in client.get(
        f"/class/{built}").data.decode()


def test_the_same_text_twice_is_the_same_link_and_one_file_kept(app, client, built):
    before = n_kept(app)
    assert text_id(paste(client, TEXT)) == built
    assert n_kept(app) == before


def test_the_saved_file_opened_again_is_the_same_model(client, built):
    saved = client.get(f"/class/{built}/file")
    assert saved.headers["Content-Type"].startswith("application/json")
    assert saved.headers["Content-Disposition"] == f'attachment; filename="class-{built}.json"'
    assert text_id(upload(client, saved.data)) == built


@pytest.mark.parametrize("refused", ["too big", "empty", "no words", "lesson", "latin-1", "no file"])
def test_a_refused_text_or_file_is_a_400_with_the_form_and_keeps_nothing(app, client, refused):
    before = n_kept(app)
    big = "<b>Words</b> and more words. " * 1800  # 52,200 bytes
    sent = {"too big": lambda: paste(client, big), "empty": lambda: paste(client, ""),
            "no words": lambda: paste(client, "  \n\n  "), "lesson": lambda: upload(client, lesson_json()),
            "latin-1": lambda: upload(client, "Ça va. Très bien.".encode("latin-1")),
            "no file": lambda: client.post("/build/file", data={}, headers=ORIGIN)}[refused]
    answer = sent()
    body = answer.data.decode()
    assert answer.status_code == 400
    assert 'class="class-problem" role="alert"' in body and '<textarea id="class-text"' in body
    assert n_kept(app) == before
    if refused == "too big":
        assert "52,200" in body and html.escape(big, quote=False) in body  # the text kept, escaped


def rows(answer) -> list[list[str]]:
    data = answer.data.decode("utf-8")
    assert data.startswith("\ufeff") and answer.headers["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(data.removeprefix("\ufeff"))))


def pair_counts(sentences: list[str]) -> Counter:
    pairs: Counter = Counter()
    for sentence in sentences:
        marked = ["<s>", *tokens(sentence), "<s>"]
        pairs.update(zip(marked, marked[1:], strict=False))
    return pairs


def test_the_csv_files_are_the_sentences_and_their_pair_counts(client, built):
    sentences = rows(client.get(f"/class/{built}/sentences.csv"))
    assert sentences == [["n", "author", "sentence"], *([str(n), a, s] for n, (a, s) in enumerate(SENTENCES, 1))]
    counts = rows(client.get(f"/class/{built}/counts.csv"))
    assert counts[0] == ["previous", "next", "count"]
    # The first <s> starts the text and each sentence's own closes it: the sentences' pairs, and <s> -> first word.
    assert Counter({(p, n): int(c) for p, n, c in counts[1:]}) == pair_counts([s for _, s in SENTENCES])
    assert len(counts) - 1 == len(pair_counts([s for _, s in SENTENCES]))


def recomputed_perplexity(kept: list[str], left_out: list[str]) -> tuple[float, int]:
    """exp(-mean log p) over the left-out sentences' tokens, p = (count(prev, next) + k) / (count(prev) + k V)."""
    pairs = pair_counts(kept)
    vocab = {"<unk>", "<p>", "<s>", *(t for s in kept for t in tokens(s))}
    log_probs = []
    for sentence in left_out:
        marked = ["<s>", *(t if t in vocab else "<unk>" for t in tokens(sentence))]
        for prev, nxt in zip(marked, marked[1:], strict=False):
            n_prev = sum(n for (p, _), n in pairs.items() if p == prev)
            log_probs.append(math.log((pairs[prev, nxt] + K) / (n_prev + K * len(vocab))))
    return math.exp(-math.fsum(log_probs) / len(log_probs)), len(log_probs)


def score_rows(body: str) -> dict[str, tuple[str, str]]:
    found = re.findall(r'<th scope="row">([^<]+)</th><td class="num">([^<]+)</td><td class="num">([^<]+)</td>', body)
    return {html.unescape(label): (p, n) for label, p, n in found}


def test_the_perplexity_of_the_class_model_is_recomputed_from_the_sentences_left_out(client, built):
    answer = client.get(f"/class/{built}")
    assert "est;dur=" in answer.headers["Server-Timing"]  # its work declared, and charged before it ran
    body = answer.data.decode()
    scores = score_rows(body)
    last = {a: i for i, (a, _) in enumerate(SENTENCES)}
    kept = [s for i, (_, s) in enumerate(SENTENCES) if i not in last.values()]
    left_out = [s for i, (_, s) in enumerate(SENTENCES) if i in last.values()]
    perplexity, n = recomputed_perplexity(kept, left_out)
    assert scores["This text's model (k = 0.01)"] == (f"{perplexity:.1f}", str(n))
    assert set(scores) >= {"austen-bigram", "austen-transformer"}
    assert "3 left-out sentences scored" in body
    assert "Lower is better." in body


def test_a_long_text_scores_at_most_40_left_out_sentences_and_says_so(client):
    paragraphs = "\n\n".join(f"Paragraph {n} starts here. It ends with the word number {n}." for n in range(60))
    page = " ".join(page_text(client, f"/class/{text_id(paste(client, paragraphs))}").split())
    assert re.search(r"(\d+) of 60 left-out sentences scored", page)
    assert int(re.search(r"(\d+) of 60 left-out", page).group(1)) <= 40


def test_user_text_is_escaped_on_every_page(client):
    evil = '<script>alert(1)</script> is a tag. "Quotes" & <b>bold</b> too.'
    built = text_id(paste(client, evil))
    for url in (f"/class/{built}", f"/?model=class:{built}&prompt="):
        body = client.get(url).data.decode()
        assert "<script>alert" not in body and "<b>bold" not in body, url
    saved = client.get(f"/class/{built}/file")  # the sentences as written, in a file no browser shows as a page
    assert saved.headers["Content-Disposition"].startswith("attachment") and saved.is_json
    assert saved.headers["X-Content-Type-Options"] == "nosniff"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(f"/class/{built}").data.decode()
    refused = paste(client, evil + " x" * 26_000).data.decode()
    assert "<script>alert" not in refused and "&lt;script&gt;alert(1)" in refused


def test_an_unknown_or_malformed_id_is_a_404_that_says_so(client):
    for url in ("/class/aaaaaaaaaa", "/class/aaaaaaaaaa/file", "/class/aaaaaaaaaa/counts.csv", "/class/x..y"):
        answer = client.get(url)
        assert answer.status_code == 404, url
    assert b"may have expired" in client.get("/class/aaaaaaaaaa").data


def test_a_post_from_another_site_is_refused(app, client):
    before = n_kept(app)
    assert client.post("/build", data={"text": "Other site."}).status_code == 403
    assert client.post("/build", data={"text": "Other site."}, headers={"Origin": "http://evil.example"}
                       ).status_code == 403
    assert n_kept(app) == before


def test_the_build_form_is_linked_from_the_lessons_and_the_stepper(client):
    assert b'href="/build"' in client.get("/lessons").data
    assert b'href="/build"' in client.get("/").data
    assert b"50 KB" in client.get("/build").data


@pytest.fixture(scope="module")
def quota_app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class-quota")
    return create_app({"TESTING": True, "ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}",
                       "CLASS_KEEPS_PER_HOUR": 2})


def test_a_network_keeps_a_few_new_texts_an_hour_and_the_same_text_again_costs_nothing(quota_app):
    client = quota_app.test_client()
    texts = [f"Text number {n} is here." for n in range(3)]
    assert [paste(client, t).status_code for t in texts] == [303, 303, 429]
    assert n_kept(quota_app) == 2
    assert paste(client, texts[0]).status_code == 303
    assert n_kept(quota_app) == 2
