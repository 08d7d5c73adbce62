"""A kept answer writes nothing its cache key leaves out: a parameter no view reads never reaches another reader."""

from __future__ import annotations

import pytest

JUNK = "&junk=" + "x" * 20_000


@pytest.mark.parametrize(
    "path",
    ["/fold/worked-logits?prompt=It+is&seed=7", "/vocab?model=austen-bigram&q=the"],
)
def test_a_junk_parameter_does_not_ride_in_a_kept_answer(app, path):
    first = app.test_client().get(path + JUNK)  # kept under the key of the page without it
    assert first.status_code == 200 and b"xxxxxxxxxx" not in first.data
    second = app.test_client().get(path)
    assert second.status_code == 200 and second.data == first.data


def test_the_links_keep_what_the_page_reads(client):
    page = client.get("/vocab?model=austen-bigram&q=the&lang=de").get_data(as_text=True)
    assert "/vocab?model=austen-bigram&amp;q=the&amp;lang=fr" in page


@pytest.mark.parametrize(("path", "query"), [("/vocab", b"q=\xff"), ("/fold/worked-logits", b"prompt=\xff")])
def test_an_address_that_is_not_utf8_gets_its_400_from_a_shared_route(client, path, query):
    """As a WSGI server hands the raw bytes over (latin-1 in the environ), so does this request."""
    answer = client.get(path, environ_overrides={"QUERY_STRING": query.decode("latin-1")})
    assert answer.status_code == 400
