"""The vocabulary page and its htmx fragment: search by text or id, counts, escaping, and the chips' links to it."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import pytest

from .markup import HTMX, Element, parse, words
from .models import BIGRAM_MODEL, bigram


def vocab_rows(doc: Element) -> list[tuple[str, str, str | None]]:
    out = []
    for tr in doc.by_id("vocab-results").find("tbody").find_all("tr"):
        cells = [words(td) for td in tr.find_all("td")]
        assert tr.attrs["id"] == f"t-{cells[0]}"
        out.append((cells[0], cells[1], cells[2] if len(cells) > 2 else None))
    return out


def test_vocab_page_finds_darcy_by_part_of_it_with_its_id_and_count(client, app):
    model = app.extensions["models"][BIGRAM_MODEL]
    darcy = model.tokenizer.vocab.index("Darcy")
    response = client.get("/vocab?model=austen-bigram&q=DARC")
    assert response.status_code == 200 and "HX-Request" in response.vary
    doc = parse(response.data)
    assert doc.find("html") is not None and doc.find("form", "vocab-search") is not None
    assert doc.by_id("vocab-q").attrs["value"] == "DARC"
    rows = vocab_rows(doc)
    assert (str(darcy), "Darcy", f"{int(model.token_counts()[darcy]):,}") in rows
    assert f"{len(rows)} tokens match 'DARC'." in words(doc.by_id("vocab-results"))
    assert "<unk> (id 0) stands for any word that is not here" in words(doc.find("main"))


def test_vocab_fragment_is_only_the_results(client):
    response = client.get("/vocab?model=austen-bigram&q=271", headers=HTMX)
    assert response.status_code == 200 and "HX-Request" in response.vary
    doc = parse(response.data)
    (root,) = doc.top_level()
    assert root.attrs["id"] == "vocab-results" and doc.find("html") is None and doc.find("form") is None
    assert vocab_rows(doc)[0][:2] == ("271", "Darcy")


def test_vocab_without_a_query_lists_the_first_tokens_specials_first(client):
    doc = parse(client.get("/vocab?model=austen-bigram").data)
    rows = vocab_rows(doc)
    assert len(rows) == 200 and [r[0] for r in rows] == [str(i) for i in range(200)]
    assert rows[0][1] == "<unk> special" and rows[1][1] == "¶ special"
    assert "The first 200 tokens" in words(doc.by_id("vocab-results"))


def test_vocab_reports_the_total_when_it_shows_only_the_first_200(client, app):
    vocab = app.extensions["models"][BIGRAM_MODEL].tokenizer.vocab
    n = sum("e" in t.lower() for t in vocab)
    doc = parse(client.get("/vocab?model=austen-bigram&q=e", headers=HTMX).data)
    assert f"{n:,} tokens match 'e'; the first 200 are shown." in words(doc)
    assert len(vocab_rows(doc)) == 200


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_vocab_escapes_the_query(client, htmx):
    payload = '"><img src=x onerror=alert(1)>'
    response = client.get("/vocab?" + urlencode({"model": BIGRAM_MODEL, "q": payload}), headers=HTMX if htmx else {})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert payload not in html and "<img" not in html
    doc = parse(html)
    assert f"0 tokens match '{payload}'." in words(doc.by_id("vocab-results"))
    if not htmx:
        assert doc.by_id("vocab-q").attrs["value"] == payload


def test_a_100_character_query_is_fine_and_101_is_a_400(client):
    assert client.get("/vocab?q=" + "a" * 100).status_code == 200
    response = client.get("/vocab?q=" + "a" * 101)
    assert response.status_code == 400
    assert "the search has 101 characters; the limit is 100" in response.get_data(as_text=True)
    fragment = client.get("/vocab?q=" + "a" * 101, headers=HTMX)
    assert fragment.status_code == 400 and "<html" not in fragment.get_data(as_text=True)


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_an_unknown_model_is_a_400(client, htmx):
    response = client.get("/vocab?model=%3Cb%3Enope", headers=HTMX if htmx else {})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "there is no model named" in html and "<b>nope" not in html


def test_a_superscript_digit_query_is_not_a_500(client):
    assert client.get("/vocab?q=%C2%B2").status_code == 200


def test_a_blank_query_reads_as_no_query(client):
    assert "The first 200 tokens" in words(
        parse(client.get("/vocab?model=austen-bigram&q=+++").data).by_id("vocab-results")
    )


def test_each_token_chip_links_to_its_row_in_the_vocabulary(client):
    doc = parse(client.get("/?" + urlencode(bigram(prompt='Mr. Darcy said "zyxwvut"\n\nShe'))).data)
    chips = doc.by_id("tokens").find("ol", "chips").find_all("li", "chip")
    assert len(chips) == 9  # Mr . Darcy said " <unk> " ¶ She
    for chip in chips:
        href = chip.find("a", "chip-link").attrs["href"]
        token_id = chip.find("span", "chip-id").text().strip()
        url = urlsplit(href)
        assert url.path == "/vocab" and url.fragment == f"t-{token_id}"
        page = parse(client.get(f"{url.path}?{url.query}").data)
        assert page.by_id(f"t-{token_id}") is not None, href
        row = vocab_rows(page)[[r[0] for r in vocab_rows(page)].index(token_id)]
        assert row[1].removesuffix(" special") == words(chip.find("span", "chip-text"))
