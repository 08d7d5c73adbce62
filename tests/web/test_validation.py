"""Bad input: a 400 with a message a person can read, in the form the caller asked for; never a 500."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .markup import HTMX, parse

TOO_MANY_IDS = ",".join(["1"] * 1100)
BIG_PROMPT = "word " * 20_480  # 100 KB

# (query parameters, a word the message must contain)
BAD_SETTINGS = {
    "temperature-text": ({"temperature": "warm"}, "temperature"),
    "temperature-nan": ({"temperature": "nan"}, "temperature"),
    "temperature-inf": ({"temperature": "inf"}, "temperature"),
    "temperature-overflow": ({"temperature": "1e400"}, "temperature"),
    "temperature-negative": ({"temperature": "-1"}, "temperature"),
    "temperature-huge": ({"temperature": "99"}, "temperature"),
    "top_k-zero": ({"top_k": "0"}, "top-k"),
    "top_k-negative": ({"top_k": "-3"}, "top-k"),
    "top_k-fraction": ({"top_k": "1.5"}, "top-k"),
    "top_k-text": ({"top_k": "abc"}, "top-k"),
    "top_p-zero": ({"top_p": "0"}, "top-p"),
    "top_p-above-one": ({"top_p": "1.5"}, "top-p"),
    "top_p-nan": ({"top_p": "nan"}, "top-p"),
    "min_p-negative": ({"min_p": "-0.1"}, "min-p"),
    "min_p-above-one": ({"min_p": "2"}, "min-p"),
    "min_p-nan": ({"min_p": "nan"}, "min-p"),
    "seed-negative": ({"seed": "-1"}, "seed"),
    "seed-text": ({"seed": "abc"}, "seed"),
    "seed-fraction": ({"seed": "1.5"}, "seed"),
    "seed-2**70": ({"seed": str(2**70)}, "seed"),
    "seed-2**63": ({"seed": str(2**63)}, "seed"),
    "model-unknown": ({"model": "gpt-17"}, "model"),
    "ids-not-numbers": ({"ids": "1,x"}, "ids"),
    "ids-empty-entry": ({"ids": "1,,2"}, "ids"),
    "ids-too-many": ({"ids": TOO_MANY_IDS}, "ids"),
    "prompt-100KB": ({"prompt": BIG_PROMPT}, "prompt"),
    "article-probabilities-overflow": ({"model": "article", "vocab": "A,B", "scores": "1e308,1e308"}, "add up"),
}
# Ids that parse but are not tokens: every endpoint refuses them, even /back and /reset, which drop them.
BAD_IDS = {
    "ids-outside-vocab": ({"ids": "5000"}, "vocabulary"),
    "ids-far-outside-vocab": ({"ids": "3,99999999999999999999"}, "vocabulary"),
    "ids-negative": ({"ids": "-1"}, "vocabulary"),
    "ids-negative-last": ({"ids": "3,-2"}, "vocabulary"),
}
def cases(paths: list[str]) -> list:
    return list(_cases(paths))


def _cases(paths):
    for path in paths:
        for name, (params, word) in BAD_SETTINGS.items():
            yield pytest.param(path, params, word, id=f"{path}-{name}")
        for name, (params, word) in BAD_IDS.items():
            yield pytest.param(path, params, word, id=f"{path}-{name}")


PAGES = ["/", "/step", "/back", "/reset"]


def readable(message: str, word: str) -> None:
    assert word in message.lower(), f"{message!r} does not say what is wrong ({word})"
    assert "Traceback" not in message and 'File "' not in message
    assert len(message) < 300, "a message, not a dump"


@pytest.mark.parametrize(("path", "params", "word"), cases(["/api/step"]))
def test_api_answers_bad_input_with_a_json_error(client, path, params, word):
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == 400
    assert response.is_json
    body = response.get_json()
    assert set(body) == {"error"}
    readable(body["error"], word)


@pytest.mark.parametrize(("path", "params", "word"), cases(PAGES))
def test_htmx_gets_an_error_fragment_retargeted_to_the_error_region(client, path, params, word):
    response = client.get(f"{path}?{urlencode(params)}", headers=HTMX)
    assert response.status_code == 400
    assert response.headers.get("HX-Retarget") == "#error"
    assert response.headers.get("HX-Reswap") == "innerHTML"
    assert "HX-Push-Url" not in response.headers, "a bad request must not change the address bar"
    html = response.get_data(as_text=True)
    doc = parse(html)
    assert doc.find("html") is None
    assert "hx-swap-oob" not in html, "the panels stay as they were"
    message = doc.find("p", "error-message")
    assert message is not None
    readable(message.text(), word)


@pytest.mark.parametrize(("path", "params", "word"), cases(PAGES))
def test_a_plain_request_gets_an_error_page(client, path, params, word):
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == 400
    assert response.mimetype == "text/html"
    doc = parse(response.data)
    assert doc.find("html") is not None
    region = doc.by_id("error")
    assert region is not None and region.attrs.get("role") == "alert"
    readable(region.text(), word)
    assert any(a.attrs.get("href") == "/" for a in doc.find_all("a")), "a way back to a good screen"


@pytest.mark.parametrize("path", [*PAGES, "/api/step"])
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
@pytest.mark.parametrize(
    "query",
    [
        "temperature=",
        "top_k=&top_p=&min_p=",
        "seed=%20",
        "model=",
        "ids=",
        "prompt=",
        "temperature=0&top_p=1e-300",
        "temperature=1e-300",
        "temperature=5&top_k=1&min_p=1",
        "seed=9223372036854775807",
        "ids=0,1,4999",
    ],
)
def test_edge_values_that_are_allowed_work(client, path, headers, query):
    response = client.get(f"{path}?{query}", headers=headers)
    assert response.status_code in (200, 303), response.get_data(as_text=True)[-300:]


def test_the_last_id_of_the_vocabulary_is_a_token_and_the_next_is_not(client):
    n_vocab = client.get("/api/models").json["models"][0]["n_vocab"]
    assert client.get(f"/api/step?ids={n_vocab - 1}").status_code == 200
    assert client.get(f"/api/step?ids={n_vocab}").status_code == 400


def test_prompt_and_generated_tokens_over_the_limit(client):
    """Under the ids-count limit but over the token limit once the prompt is added: still a 400."""
    ids = ",".join(["3"] * 1020)
    response = client.get(f"/api/step?{urlencode({'prompt': 'a b c d e f g h', 'ids': ids})}")
    assert response.status_code == 400
    readable(response.json["error"], "limit")


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_unknown_url_is_a_readable_404(client, headers):
    response = client.get("/no/such/page", headers=headers)
    assert response.status_code == 404
    text = parse(response.data).text()
    assert "not found" in text.lower()
    assert "Traceback" not in text
    if headers:
        assert response.headers.get("HX-Retarget") == "#error"


def test_unknown_api_url_is_a_json_404(client):
    response = client.get("/api/nothing")
    assert response.status_code == 404
    assert "not found" in response.json["error"].lower()


@pytest.mark.parametrize("path", ["/step", "/", "/back", "/reset", "/api/step"])
def test_wrong_method_is_a_readable_405(client, path):
    response = client.post(path, data={"prompt": "x"})
    assert response.status_code == 405
    text = response.json["error"] if path.startswith("/api/") else parse(response.data).text()
    assert "not allowed" in text.lower()
    assert "Traceback" not in text


@pytest.mark.parametrize("path", ["/step", "/api/step"])
def test_a_405_says_which_methods_are_allowed(client, path):
    response = client.post(path)
    assert response.status_code == 405
    assert "GET" in response.headers.get("Allow", "")


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok"}
