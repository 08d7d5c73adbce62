"""The lesson editor's server side: the stepper's "Add this screen to a lesson", the editor's page (with and
without JavaScript), and POST /lessons/read, which answers a file as the app reads it or says why it is none.

What the editor does in the browser (add, reorder, save, open, publish) is tests/e2e/test_lesson_editor.py.
"""

from __future__ import annotations

import doctest
import json
from io import BytesIO
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest

from webapp.inference import run_step_table
from webapp.lessons.bundled import every_bundled
from webapp.lessons.lesson import FORMAT, MAX_BYTES
from webapp.web.lessons import lesson_editor, lesson_view

from .markup import Element, hidden_fields, parse, query_of
from .seeded import BASE, PROMPT, SETTINGS, joined, page, url
from .test_every_string_marked import NAMES, Wrapped, unmarked

ORIGIN = {"Origin": "http://localhost"}
JSON = {"Accept": "application/json"}


def add_link(doc: Element, says: str = "Add this screen to a lesson") -> str:
    link = doc.by_id("add-to-lesson")
    assert link is not None and link.text().strip() == says
    return link.attrs["href"]


def sent_state(link: str) -> list[tuple[str, str]]:
    """The state an add link sends, key by key in its order."""
    return parse_qsl(query_of(link)["add"], keep_blank_values=True)


def editor(client, address: str, status: int = 200) -> Element:
    response = client.get(address)
    assert response.status_code == status, response.get_data(as_text=True)[:2000]
    return parse(response.data)


def added_state(doc: Element) -> list[tuple[str, str]]:
    return [tuple(pair) for pair in json.loads(doc.by_id("lesson-editor").attrs["data-add"])]


def test_the_worked_examples_are_true():
    for module in (lesson_editor, lesson_view):
        assert doctest.testmod(module).failed == 0


def test_the_share_panel_adds_the_screen_by_its_state_without_the_players_keys(client, three):
    doc = page(client, **BASE, ids=joined(three), present="1", temperature="0.7", lang="de", view="teacher",
               guide="1")
    link = add_link(doc, "Diesen Bildschirm zu einer Lektion hinzufügen")
    assert urlsplit(link).path == "/lessons/edit" and "step" not in query_of(link)
    assert query_of(link)["lang"] == "de", "the editor opens in the screen's language"
    sent = dict(sent_state(link))
    assert sent["prompt"] == PROMPT and sent["ids"] == joined(three) and sent["temperature"] == "0.7"
    assert sent["present"] == "1", "a screen may be meant for presenter mode"
    assert not {"lang", "view", "guide"} & set(sent), "the lesson's player decides these"


def test_the_editor_adds_the_screen_as_the_stepper_shows_it(client, three):
    link = add_link(page(client, **BASE, ids=joined(three), top_k="5"))
    doc = editor(client, link)
    assert added_state(doc) == sent_state(link)
    root = doc.by_id("lesson-editor")
    assert root.attrs["data-add-title"] == "… a truth universally acknowledged"
    assert query_of(root.attrs["data-add-url"])["ids"] == joined(three)



def test_an_article_screen_is_added_with_its_tokens_and_without_a_prompt(client):
    link = add_link(page(client, model="article", vocab="cat,dog,bird", range_order="vocabulary", ids="1"))
    doc = editor(client, link)
    kept = dict(added_state(doc))
    assert "prompt" not in kept, "the article's model reads no text: its screen holds none"
    assert kept["vocab"] == "cat,dog,bird" and kept["ids"] == "1" and kept["model"] == "article"
    assert doc.by_id("lesson-editor").attrs["data-add-title"] == ""

def test_a_hidden_pick_is_never_in_the_add_address_and_the_editor_takes_it_again(client, model, three):
    pick = run_step_table(model, PROMPT, three, SETTINGS).chosen.id
    doc = parse(client.get(url("/step", **BASE, ids=joined(three), predict="1")).data)
    assert hidden_fields(doc)["ids"] == joined([*three, pick])
    link = add_link(doc)
    sent = dict(sent_state(link))
    assert sent["ids"] == joined(three) and sent["predict"] == "1" and query_of(link)["step"] == "1"
    added = dict(added_state(editor(client, link)))
    assert added["ids"] == joined([*three, pick]) and added["predict"] == "1"
    back = editor(client, link).by_id("lesson-editor").attrs["data-add-url"]
    assert urlsplit(back).path == "/step" and query_of(back)["ids"] == joined(three), "its way back hides it too"


def test_a_typed_r_makes_the_same_hidden_pick_in_the_lesson(client, model, three):
    pick = run_step_table(model, PROMPT, three, SETTINGS, r=0.25).chosen.id
    link = add_link(page(client, **BASE, ids=joined([*three, pick]), src="s,s,s,0.25", predict="1"))
    assert dict(sent_state(link))["r"] == "0.25"
    added = dict(added_state(editor(client, link)))
    assert added["ids"] == joined([*three, pick]) and added["src"] == "s,s,s,0.25"


def test_a_screen_opened_from_the_editor_goes_to_its_public_address(client, model, three):
    pick = run_step_table(model, PROMPT, three, SETTINGS).chosen.id
    response = client.get(url("/lessons/screen", **BASE, ids=joined([*three, pick]), predict="1"))
    assert response.status_code == 303
    assert urlsplit(response.location).path == "/step" and query_of(response.location)["ids"] == joined(three)
    plain = client.get(url("/lessons/screen", **BASE, ids=joined(three)))
    assert urlsplit(plain.location).path == "/" and query_of(plain.location)["ids"] == joined(three)


def test_without_javascript_the_page_says_so_and_offers_the_upload_and_the_bundled_lessons(client):
    doc = editor(client, "/lessons/edit")
    note = doc.find("noscript")
    assert note is not None and "needs JavaScript" in note.text()
    form = note.find("form")
    assert (form.attrs["action"], form.attrs["method"], form.attrs["enctype"]) == (
        "/lessons/open", "post", "multipart/form-data")
    assert form.find("input").attrs["type"] == "file" and form.find("input").attrs["name"] == "file"
    assert "hidden" in doc.by_id("editor").attrs, "the editor shows only when its script runs"
    assert any(a.attrs.get("href", "").startswith("/lessons/article") for a in doc.find_all("a"))


def test_the_upload_form_opens_a_lesson_without_javascript(client):
    text = lesson_text()
    response = client.post("/lessons/open", data={"file": (bytes_of(text), "mine.lesson.json")}, headers=ORIGIN)
    assert response.status_code == 303 and response.location.startswith("/l/")
    kept = client.get(response.location.split("?")[0] + "/file")
    assert json.loads(kept.data)["title"] == "Étapes <b>pas</b> à pas"


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("/lessons/edit?add=model%3Dno-such-model", "no-such-model"),
        ("/lessons/edit?add=temperature%3Dhot", "temperature"),
        ("/lessons/edit?from=//elsewhere.example/l/abcdefghij/file", "not the address of a lesson file"),
        ("/lessons/edit?from=/lessons", "not the address of a lesson file"),
    ],
)
def test_an_address_the_editor_cannot_read_says_why_and_adds_nothing(client, address, says):
    doc = editor(client, address, status=400)
    assert says in doc.by_id("error").text()
    root = doc.by_id("lesson-editor")
    assert root.attrs["data-add"] == "" and root.attrs["data-from"] == ""


def test_edit_a_copy_names_a_lesson_file_of_this_site(client):
    doc = editor(client, "/lessons/edit?from=/lessons/article/file")
    assert doc.by_id("lesson-editor").attrs["data-from"] == "/lessons/article/file"


def test_every_word_of_the_editor_and_its_script_is_translated(app, monkeypatch):
    monkeypatch.setitem(app.extensions["catalogs"], "en", Wrapped())
    html = app.test_client().get("/lessons/edit").get_data(as_text=True)
    assert "data-label-added" in html
    lessons = {text for _name, lesson in every_bundled("en") for text in (lesson.title, lesson.about)}
    assert unmarked(html, NAMES | set(app.extensions["models"]) | lessons) == []


# ---- POST /lessons/read ----

def lesson_text(**changes) -> str:
    """A lesson file as a person might write it by hand: keys in any order, numbers in the state, one line."""
    raw = {"screens": [{"notes": "Ask first.", "state": {"temperature": 0.5, "model": "austen-bigram"},
                        "title": "One", "vote": True}],
           "title": "Étapes <b>pas</b> à pas", "version": 1, "format": FORMAT}
    raw.update(changes)
    return json.dumps(raw, ensure_ascii=False)


def bytes_of(text: str) -> BytesIO:
    return BytesIO(text.encode("utf-8"))


# Written out by hand: the file format's docstring (webapp/lessons/lesson.py), one key per line, in its order.
CANONICAL = """{
  "format": "token-by-token lesson",
  "version": 1,
  "title": "Étapes <b>pas</b> à pas",
  "lang": "",
  "about": "",
  "screens": [
    {
      "title": "One",
      "state": {
        "temperature": "0.5",
        "model": "austen-bigram"
      },
      "question": "",
      "vote": true,
      "notes": "Ask first."
    }
  ]
}
"""


@pytest.mark.parametrize("field", ["text", "file"])
def test_read_answers_the_lesson_as_the_app_reads_it(client, field):
    text = lesson_text()
    sent = {"text": text} if field == "text" else {"file": (bytes_of(text), "x.json")}
    response = client.post("/lessons/read", data=sent, headers=JSON)
    assert response.status_code == 200
    assert response.get_data(as_text=True) == CANONICAL
    assert response.mimetype == "application/json"
    disposition = response.headers["Content-Disposition"]
    assert unquote(disposition.split("filename*=UTF-8''")[1]) == "étapes-b-pas-b-à-pas.lesson.json"
    again = client.post("/lessons/read", data={"text": CANONICAL}, headers=JSON)
    assert again.get_data(as_text=True) == CANONICAL, "a file read twice does not change"


def test_a_published_lesson_with_any_letters_in_its_title_downloads(client):
    opened = client.post("/lessons/open", data={"text": lesson_text(title="温度 と Température")}, headers=ORIGIN)
    response = client.get(opened.location.split("?")[0] + "/file")
    assert response.status_code == 200
    assert unquote(response.headers["Content-Disposition"].split("''")[1]) == "温度-と-température.lesson.json"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("x" * (MAX_BYTES + 100), "at most 60 KB"),
        ("[" * 30 + "]" * 30, "nested deeper"),
        ('{"format": "token-by-token lesson", "screens": [{"state": {"a": [[[1]]]}}]}', "nested deeper"),
        ("{ not json", "not JSON"),
        ('{"title": "slides"}', "not a lesson file"),
        (lesson_text(screens=[]), "1 to 40 screens"),
        ('{"format": "token-by-token lesson", "version": 1, "title": "\\ud800", "screens": [{}]}', None),
        ("", "choose a lesson file"),
    ],
)
def test_read_refuses_what_is_not_a_lesson_with_a_message(client, text, says):
    response = client.post("/lessons/read", data={"text": text}, headers=JSON)
    if says is None:
        assert response.status_code == 200 and json.loads(response.data)["title"] == "?"
        return
    assert response.status_code == 400
    assert says in response.get_json()["error"]


def test_read_refuses_a_body_too_large_for_any_lesson_in_json_too(client):
    response = client.post("/lessons/read", data={"text": "x" * 70_000}, headers=JSON)
    assert response.status_code == 413 and "too large" in response.get_json()["error"]


def test_a_page_that_asks_for_html_gets_the_refusal_as_a_page(client):
    response = client.post("/lessons/read", data={"text": "{ not json"})
    assert response.status_code == 400 and response.mimetype == "text/html"
    assert "not JSON" in parse(response.data).by_id("error").text()
