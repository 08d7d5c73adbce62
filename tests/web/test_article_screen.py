"""The article model's screen says one thing: the model reads no text, and its tokens are the ones the teacher named.

No prompt box, no prompt in the text, no sentence about prompt tokens, bytes or an empty prompt; the names
typed in "Token names" in every panel; the field works with htmx and without JavaScript, and a bad list
of names is a 400 with its reason.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from .markup import HTMX, hidden_fields, logits_rows, parse, pick_sentence, seen_words, unfold, words
from .seeded import error_text, url

PROMPT = "It is a truth universally acknowledged, that a single man"
NAMES = ("cat", "dog", "bird")
ARTICLE = {"model": "article", "vocab": ",".join(NAMES), "scores": "0.1,0.2,0.7", "prompt": PROMPT, "guide": "0"}
# The issue's screen: the article's three tokens A, B, C laid out in vocabulary order, two steps taken.
ISSUE = {"model": "article", "vocab": "A,B,C", "scores": "0.1,0.2,0.7", "scores_as": "probabilities",
         "range_order": "vocabulary", "ids": "1,2", "guide": "0"}
# Sentences that would say the model reads a prompt, from other models' screens.
CONTRADICTIONS = ("prompt token", "every byte is a token", "empty prompt", "It read ", "The next step reads it",
                  "feeds", "context window", "The prompt; each Step", "becomes tokens", "universally")


def page(client, lang: str | None = None, **params):
    response = client.get(url("/", **params, **({"lang": lang} if lang else {})))
    assert response.status_code == 200, error_text(response)
    return unfold(client, parse(response.data))


def visible_words(doc) -> str:
    """What a reader of the screen sees: the panels' words, the guide's hints (a first visit), no hidden field."""
    return seen_words(doc.by_id("main"))


@pytest.mark.parametrize("params", [ISSUE, {**ARTICLE, "ids": "2,1,2"}, ARTICLE, {**ARTICLE, "guide": "1"}],
                         ids=["issue", "three-steps", "before-a-step", "guided"])
def test_no_sentence_on_the_article_screen_has_the_model_read_a_prompt(client, params):
    doc = page(client, **params)
    assert doc.by_id("prompt") is None  # no prompt box
    shown = visible_words(doc)
    assert not [phrase for phrase in CONTRADICTIONS if phrase in shown]
    assert "This model reads no text" in words(doc.by_id("prompt-intro"))


def test_the_text_holds_only_the_article_s_tokens(client):
    doc = page(client, **ISSUE, prompt=PROMPT)
    assert words(doc.find("p", "text-so-far")) == "B C"
    named = page(client, **ARTICLE, ids="1,2,0")
    assert words(named.find("p", "text-so-far")) == "dog bird cat"


def test_the_exports_hold_the_article_s_tokens_only(client):
    trace = client.get(url("/export.json", **ARTICLE, ids="1,2")).get_json()
    assert trace["text"] == "dog bird" and trace["prompt"] == ""
    assert client.get(url("/api/step", **ARTICLE, ids="1,2")).get_json()["prompt"] == ""


def test_every_panel_names_the_tokens_as_the_teacher_typed_them(client):
    doc = page(client, **ARTICLE, ids="1,2", range_order="vocabulary")
    picked = NAMES[client.get(url("/api/step", **ARTICLE, ids="1")).get_json()["chosen"]["id"]]
    assert {row.token: row.id for row in logits_rows(doc)} == {name: str(i) for i, name in enumerate(NAMES)}
    assert [t.text() for t in doc.by_id("chart").find_all("text", "bar-label")] == ["bird", "dog", "cat"]
    pieces = doc.by_id("range-bar").find("g", "kept-ranges").top_level()
    by_place = sorted(pieces, key=lambda g: float(g.find("rect").attrs["x"].rstrip("%")))
    assert [g.find("text").text() for g in by_place] == list(NAMES)  # in vocabulary order, as the article
    assert pick_sentence(doc)[2] == picked == "bird"  # the step on screen, the second, put bird in the text
    assert f"'{picked}'" in words(doc.by_id("step-bar"))
    assert [words(chip.find("span", "chip-text")) for chip in doc.by_id("tokens").find_all("li")] == ["dog", "bird"]
    assert "'cat' is id 0, 'dog' is id 1, 'bird' is id 2" in words(doc.by_id("worked-encode"))


def test_the_names_field_says_what_to_type_with_an_example(client):
    doc = page(client, **ARTICLE)
    field = doc.by_id("article-vocab")
    assert field.attrs["value"] == "cat,dog,bird"
    assert [words(label) for label in doc.find_all("label") if label.attrs.get("for") == "article-vocab"] == [
        "Token names"
    ]
    hint = words(doc.by_id(field.attrs["aria-describedby"]))
    assert "cat,dog,bird" in hint and "token 0 is cat" in hint


def test_the_prompt_waits_in_a_hidden_field_for_a_switch_back(client):
    doc = page(client, **ARTICLE, ids="1")
    fields = hidden_fields(doc)
    assert fields["prompt"] == PROMPT  # the form sends it, though no box shows it
    back = {**fields, "model": "austen-bigram", "vocab": "", "scores": ""}  # the model menu's change, as htmx sends it
    answer = parse(client.get(url("/reset", **back), headers=HTMX).data)
    assert words(answer.by_id("prompt")) == PROMPT and "prompt" not in hidden_fields(answer)
    assert "the prompt becomes tokens" in words(answer.by_id("prompt-box"))


def test_another_model_keeps_its_prompt_box(client):
    doc = page(client, prompt=PROMPT, guide="0")
    assert words(doc.by_id("prompt")) == PROMPT and "prompt" not in hidden_fields(doc)
    assert "This model reads no text" not in visible_words(doc)


def test_without_javascript_the_names_are_sent_by_their_own_button(client):
    doc = page(client, **ARTICLE)
    buttons = [b for b in doc.find_all("button") if words(b) == "Use these tokens"]
    assert [b.attrs["formaction"] for b in buttons] == ["/reset"]
    assert not [b for b in doc.find_all("button") if words(b) == "Tokenize"]  # there is nothing to tokenize
    sent = {**hidden_fields(doc), "model": "article", "vocab": "ant,bee", "scores": "1,3"}
    response = client.get(url("/reset", **sent))
    assert response.status_code == 303
    after = page(client, **dict(parse_qsl(urlsplit(response.location).query, keep_blank_values=True)))
    assert [row.token for row in logits_rows(after)] == ["bee", "ant"]


def test_with_htmx_new_names_swap_the_table_and_the_fields(client):
    answer = parse(client.get(url("/reset", **{**ARTICLE, "vocab": "ant,bee,cow"}), headers=HTMX).data)
    assert answer.by_id("article-vocab").attrs["value"] == "ant,bee,cow"
    assert [row.token for row in logits_rows(answer)] == ["cow", "bee", "ant"]


@pytest.mark.parametrize(
    ("vocab", "reason"),
    [("cat,,dog", "name is missing"), ("cat,dog,", "name is missing"), ("cat dog,bird,fish", "without spaces"),
     ("cat,cat,dog", "differ"), ("cat", "2 to 8"), ("a,b,c,d,e,f,g,h,i", "2 to 8"),
     ("cat,dog", "one score per token")],
)
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_a_bad_list_of_names_is_a_400_that_says_why(client, vocab, reason, headers):
    response = client.get(url("/reset", **{**ARTICLE, "vocab": vocab}), headers=headers)
    assert response.status_code == 400
    doc = parse(response.data)
    shown = doc.by_id("error") if not headers else doc.find("p", "error-message")  # the page, or its error fragment
    assert reason in words(shown)


@pytest.mark.parametrize("lang", ["de", "es", "fr", "zh"])
def test_the_article_screen_speaks_the_page_s_language(client, lang):
    english = page(client, **ISSUE)
    doc = page(client, lang, **ISSUE)
    for name in ("prompt-intro", "tokens", "text", "model-description", "logits"):
        assert words(doc.by_id(name)) != words(english.by_id(name)), name
    label = next(label for label in doc.find_all("label") if label.attrs.get("for") == "article-vocab")
    assert words(label) != "Token names"


@pytest.mark.parametrize(("kind", "says"), [("probabilities", "3 tokens whose probabilities"),
                                            ("logits", "3 tokens whose logits")])
def test_the_model_s_description_counts_the_tokens_typed(client, kind, says):
    doc = page(client, **ARTICLE, scores_as=kind)
    assert says in words(doc.find("p", "model-description"))
    four = page(client, **{**ARTICLE, "vocab": "a,b,c,d", "scores": "1,1,1,1"}, scores_as=kind)
    assert says.replace("3", "4") in words(four.find("p", "model-description"))


def test_a_class_room_on_the_article_s_model_shows_its_tokens_only(app):
    origin = {"Origin": "http://localhost"}
    teacher = app.test_client()
    started = teacher.post("/room", data={"from": url("/", **ARTICLE, ids="1,2")}, headers=origin)
    assert started.status_code == 303
    teach = parse(teacher.get(started.location).data)
    assert teach.by_id("prompt") is None and "This model reads no text" in words(teach.by_id("prompt-intro"))
    student = app.test_client()
    code = started.location.split("/")[2]
    joined = student.post("/join", data={"code": code, "nickname": "Ada"}, headers=origin)
    follow = parse(student.get(joined.location).data)
    assert words(follow.by_id("text-now").find("p")) == "dog bird"
    assert "This model reads no text" in words(follow.by_id("prompt-intro"))
    assert not [phrase for phrase in CONTRADICTIONS if phrase in seen_words(follow.by_id("main"))]
