"""The response cache: the same request gets the same bytes, and nothing else is mixed up with it."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.web import create_app
from webapp.web.serving.cache import Kept, ResponseCache, key_size

from .markup import HTMX

STEP = "/step?" + urlencode({"prompt": "Mr. Darcy said", "model": "austen-bigram", "temperature": "0.9",
                             "seed": "7", "ids": "5,6"})
GZIP = {"Accept-Encoding": "gzip"}


@pytest.fixture(scope="module")
def uncached_app():
    return create_app({"TESTING": True, "RESPONSE_CACHE_BYTES": 0})


@pytest.fixture
def cache(app) -> ResponseCache:
    return app.extensions["response_cache"]


def answer(response) -> tuple:
    headers = {k: v for k, v in response.headers.items() if k not in ("Date", "Server-Timing")}
    return response.status_code, headers, response.get_data()


@pytest.mark.parametrize("headers", [{}, HTMX, GZIP, {**HTMX, **GZIP}], ids=["page", "htmx", "gzip", "htmx-gzip"])
@pytest.mark.parametrize("url", [STEP, STEP.replace("/step", "/", 1), STEP.replace("/step", "/back", 1),
                                 STEP.replace("/step", "/qr.svg", 1), STEP.replace("/step", "/api/step", 1)])
def test_a_repeated_request_is_answered_from_the_cache_with_the_same_bytes(app, uncached_app, cache, url, headers):
    client = app.test_client()
    first = client.get(url, headers=headers)
    hits = cache.hits
    second = client.get(url, headers=headers)
    assert cache.hits == hits + 1, "the second request was answered from the cache"
    assert answer(second) == answer(first)
    assert answer(second) == answer(uncached_app.test_client().get(url, headers=headers)), "same as rendering it"


def test_htmx_and_a_full_page_are_kept_apart(app):
    client = app.test_client()
    url = STEP.replace("/step", "/", 1)
    page, fragments = client.get(url), client.get(url, headers=HTMX)
    again_page, again_fragments = client.get(url), client.get(url, headers=HTMX)
    assert b"<!doctype html>" in page.data.lower() and b"<!doctype html>" in again_page.data.lower()
    assert b"hx-swap-oob" in fragments.data and b"<!doctype" not in again_fragments.data.lower()


def test_the_host_is_part_of_the_key(app):
    """The share link and the QR code name the host the page was asked from."""
    client = app.test_client()
    url = STEP.replace("/step", "/", 1)
    for host in ("school.example", "other.example", "school.example"):
        page = client.get(url, headers={"Host": host}).get_data(as_text=True)
        assert f'value="http://{host}/?' in page


def test_gzip_and_plain_are_kept_apart(app):
    client = app.test_client()
    url = STEP.replace("/step", "/", 1)
    plain, packed = client.get(url), client.get(url, headers=GZIP)
    assert client.get(url).headers.get("Content-Encoding") is None
    assert client.get(url, headers=GZIP).headers["Content-Encoding"] == "gzip"
    assert plain.data != packed.data


@pytest.mark.parametrize("url", ["/step?temperature=hot", "/?ids=1,x", "/choose?token=abc", "/nowhere"])
def test_errors_are_not_kept(app, cache, url):
    client = app.test_client()
    entries = len(cache)
    for _ in range(2):
        assert 400 <= client.get(url).status_code < 500
    assert len(cache) == entries


def test_healthz_and_static_files_pass_by(app, cache):
    client = app.test_client()
    before = (cache.hits, cache.misses)
    client.get("/healthz")
    client.get("/static/css/app.css").close()
    assert (cache.hits, cache.misses) == before


def test_a_size_of_zero_turns_it_off(uncached_app):
    assert "response_cache" not in uncached_app.extensions


def kept(n: int) -> Kept:
    return Kept(200, [("Content-Type", "text/html")], b"x" * n)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 2000), st.booleans()), max_size=80))
def test_the_store_stays_in_its_bound_and_drops_the_least_recently_used(ops):
    """Against a plain model of an LRU: same entries, in the same order, the bytes counted right."""
    store, model = ResponseCache(max_bytes=20_000), {}
    for key, size, read in ops:
        if read:
            got = store.get((key,))
            assert (got is None) == ((key,) not in model)
            if got is not None:
                model[(key,)] = model.pop((key,))
            continue
        item = kept(size)
        store.put((key,), item)
        if item.size + key_size((key,)) <= store.max_bytes // 8:
            model.pop((key,), None)
            model[(key,)] = item
            while sum(k.size + key_size(kk) for kk, k in model.items()) > store.max_bytes:
                del model[next(iter(model))]
        assert store.bytes == sum(k.size + key_size(kk) for kk, k in model.items()) <= store.max_bytes
        assert list(store._items) == list(model)


def test_unknown_parameters_share_the_cached_answer(app, cache):
    """A parameter no view reads, or another spelling of the same state, never makes a new entry."""
    client = app.test_client()
    first = client.get(STEP)
    entries, hits = len(cache), cache.hits
    for junk in ("&x=1", "&x=2&y=" + "z" * 5000, "&temperature=0.90", "&predict=0"):
        again = client.get(STEP + junk)
        assert again.status_code == first.status_code and again.get_data() == first.get_data()
    assert len(cache) == entries and cache.hits == hits + 4


def test_a_keys_bytes_count_towards_the_bound():
    store = ResponseCache(max_bytes=80_000)
    store.put(("/", "p" * 5000), kept(100))
    assert store.bytes >= 5100


def test_the_root_path_is_part_of_the_key(app):
    """A proxy's root path changes every link on the page: a page made for one is not served to another."""
    client = app.test_client()
    url = STEP.replace("/step", "/", 1)
    poisoned = client.get(url, environ_overrides={"SCRIPT_NAME": "//evil.example"}).get_data(as_text=True)
    assert 'href="//evil.example/' in poisoned or 'action="//evil.example/' in poisoned
    clean = client.get(url).get_data(as_text=True)
    assert "evil.example" not in clean


@pytest.mark.parametrize("accept", ["gzip;q=0", "deflate", "identity", "*;q=0"])
def test_gzip_refused_by_its_q_value_gets_plain_bytes(app, accept):
    response = app.test_client().get(STEP.replace("/step", "/", 1), headers={"Accept-Encoding": accept})
    assert "Content-Encoding" not in response.headers
    assert b"<!doctype html>" in response.data.lower()


def test_the_models_list_is_kept(app, cache):
    client = app.test_client()
    client.get("/api/models")
    hits = cache.hits
    assert client.get("/api/models").status_code == 200
    assert cache.hits == hits + 1
