"""Folded sections: a screen sends their summary and a link; /fold/<name> sends the body for the state."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from webapp.web.stages.folds import FOLDS

from .markup import HTMX, WORKED, parse, words
from .models import TRANSFORMER, bigram

SCREEN_FOLDS = [f"worked-{name}" for name in WORKED] + ["chart-numbers"]
PROMPT = "Mr. Darcy <b>said</b>"


def fold_url(name: str, **params: str) -> str:
    return f"/fold/{name}?{urlencode(bigram(prompt=PROMPT, **params))}"


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "step"])
def test_a_screen_sends_each_fold_as_its_summary_and_a_link_to_its_body(client, headers):
    response = client.get("/step?" + urlencode(bigram(prompt=PROMPT, ids="5")), headers=headers, follow_redirects=True)
    doc = parse(response.data)
    for name in SCREEN_FOLDS:
        details = doc.by_id(name)
        assert details.tag == "details" and "open" not in details.attrs and "data-fold" in details.attrs
        summary, link = (child for child in details.children if not isinstance(child, str))
        assert summary.tag == "summary" and "fold-link" in link.classes
        assert link.attrs["href"].startswith(f"/fold/{name}?")
        assert "ids=5," in link.attrs["href"] and "prompt=Mr.+Darcy+%3Cb%3Esaid%3C/b%3E&" in link.attrs["href"]


@pytest.mark.parametrize("name", SCREEN_FOLDS)
def test_htmx_gets_the_folds_body_and_a_browser_the_fold_open_on_a_page(client, name):
    fragment = client.get(fold_url(name, ids="5,6"), headers=HTMX)
    page = client.get(fold_url(name, ids="5,6"))
    assert fragment.status_code == page.status_code == 200
    assert "HX-Request" in fragment.headers["Vary"]
    body = fragment.get_data(as_text=True)
    assert "<html" not in body and "<details" not in body and body.strip()
    opened = parse(page.data).by_id(name)
    assert "open" in opened.attrs and parse(page.data).find("html") is not None
    assert words(parse(body)) in words(opened)  # the same template renders both
    back = next(a for a in parse(page.data).find_all("a") if words(a) == "← Back to the screen")
    assert back.attrs["href"].startswith("/?") and "ids=5,6" in back.attrs["href"]


def test_a_fold_is_the_same_as_in_guided_mode_where_it_comes_open(client):
    guided = parse(client.get("/?" + urlencode(bigram(prompt=PROMPT, ids="5,6", guide="1"))).data)
    for name in SCREEN_FOLDS:
        body = parse(client.get(fold_url(name, ids="5,6", guide="1"), headers=HTMX).data)
        assert words(guided.by_id(name)).endswith(words(body))
        assert guided.by_id(name).find("a", "fold-link") is None


def test_user_text_in_a_fold_is_escaped(client):
    query = urlencode({"model": "article", "vocab": "<i>A</i>,B,C", "prompt": "<b>said</b>"})
    body = client.get(f"/fold/worked-sampling?{query}", headers=HTMX).get_data(as_text=True)
    assert "<i>" not in body and "'&lt;i&gt;A&lt;/i&gt;'" in body
    page = client.get(f"/fold/worked-sampling?{query}").get_data(as_text=True)
    assert "<i>" not in page and "<b>" not in page and "&lt;b&gt;said" not in page  # the article's reads no prompt
    page = client.get(f"/fold/worked-sampling?{urlencode({'prompt': '<b>said</b>'})}").get_data(as_text=True)
    assert "<b>" not in page and "“&lt;b&gt;said&lt;/b&gt;”" in page


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
@pytest.mark.parametrize(
    "query",
    [{"temperature": "hot"}, {"ids": "5,x"}, {"ids": "99999999"}, {"predict": "1", "ids": "5"}],
    ids=["temperature", "ids", "id-beyond-vocabulary", "pick-hidden"],
)
def test_a_fold_of_a_bad_or_hidden_state_is_a_400_with_an_error(client, headers, query):
    response = client.get(fold_url("worked-sampling", **query), headers=headers)
    assert response.status_code == 400
    assert "error-message" in response.get_data(as_text=True)
    if headers:
        assert response.headers["HX-Retarget"] == "#error"


def test_a_hidden_pick_is_not_named_by_its_folds_but_the_prompt_still_is(client):
    hidden = client.get(fold_url("worked-decode", predict="1", ids="5"), headers=HTMX)
    assert hidden.status_code == 400 and "Reveal" in hidden.get_data(as_text=True)
    assert client.get(fold_url("worked-encode", predict="1", ids="5"), headers=HTMX).status_code == 200
    assert client.get(fold_url("worked-decode", predict="1", ids="5", reveal="1"), headers=HTMX).status_code == 200


def test_an_unknown_fold_is_a_404(client):
    response = client.get("/fold/nothing-here?model=austen-bigram", headers=HTMX)
    assert response.status_code == 404 and "nothing-here" in response.get_data(as_text=True)


def test_the_forward_pass_folds_need_its_panel_open_for_a_model_of_their_kind(app, client):
    assert client.get(fold_url("worked-inside-bigram", ids="5")).status_code == 400
    opened = client.get(fold_url("worked-inside-bigram", ids="5", inside="1"), headers=HTMX)
    assert opened.status_code == 200 and "z(" in opened.get_data(as_text=True)
    assert client.get(fold_url("worked-inside-lens", ids="5", inside="1")).status_code == 400
    if TRANSFORMER not in app.extensions["models"]:
        return
    query = urlencode({"model": TRANSFORMER, "prompt": "She smiled", "inside": "1"})
    for name in ("worked-inside-attention", "worked-inside-lens"):
        assert client.get(f"/fold/{name}?{query}", headers=HTMX).status_code == 200


def test_every_fold_has_a_block_of_its_name_in_its_template(app):
    for name, fold in FOLDS.items():
        template = app.jinja_env.get_template(fold.template)
        assert fold.block in template.blocks, name


@pytest.mark.parametrize(
    ("path", "status", "english", "german"),
    [
        ("/fold/worked-nothing", 404, "there is no folded section named", "worked-nothing"),
        (fold_url("worked-softmax", ids="5", predict="1"), 400, "its figures stay hidden until Reveal", "Aufdecken"),
        (fold_url("worked-inside-lens"), 400, "it is part of the forward pass", "inside=1"),
    ],
)
def test_a_fold_the_screen_does_not_have_is_refused_in_the_page_language(client, path, status, english, german):
    answer = client.get(path, headers=HTMX)
    assert answer.status_code == status and english in answer.get_data(as_text=True)
    in_german = client.get(path, headers={**HTMX, "Accept-Language": "de"})
    text = in_german.get_data(as_text=True)
    assert in_german.status_code == status and german in text and english not in text, text
