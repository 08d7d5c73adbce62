"""A class builds its own model: the teacher opens a writing round, four students write sentences (one without
JavaScript, one in German), the teacher builds the model mixed with Austen's bigram and steps three tokens. Each
step's probabilities are the counts recomputed from the sentences mixed with Austen's, as the page's formula says."""

from __future__ import annotations

import math
import re

import pytest
from class_counts import austen_probs, class_probs, ids_of, step_probs, vocabulary_of
from playwright.sync_api import Browser, Page, expect
from room_helpers import Server, join, join_in_german, new_context, start_room, step

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}
W = 0.5
WRITTEN = {  # each student's sentences, punctuation spaced so that str.split is the tokenizer
    "Ana": ["We like school lunch .", "Lunch is the best part of the day !"],
    "Ben": ["We eat lunch at noon .", "The soup is hot ."],
    "Jonas": ["We like the soup ."],
    "quiet": ["School lunch is good .", "We like it ."],
}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("class-room")
    server = Server(f"sqlite:///{folder / 'rooms.sqlite3'}", folder).start()
    yield server
    server.stop()


def write(student: Page, text: str) -> None:
    student.locator("#write-text").fill(text)
    student.locator("#room-write").get_by_role("button", name=re.compile("Send|Senden")).click()
    expect(student.locator("#me .my-sentences")).to_contain_text(text)


def test_a_class_writes_sentences_builds_its_model_and_steps_through_its_counts(
    browser: Browser, room_server: Server, save_screenshot
) -> None:
    url = room_server.url
    laptop = new_context(browser, url, viewport=PROJECTOR)
    teacher, code = start_room(laptop, url)
    teacher.goto(f"{url}/room/{code}/teach")
    teacher.locator("#room-sentences summary").click()
    teacher.locator("#sentences-topic").fill("School lunch")
    teacher.get_by_role("button", name="Write sentences").click()
    projector = laptop.new_page()
    projector.goto(f"{url}/room/{code}/teach?present=1")

    phones = {name: join(new_context(browser, url, viewport=PHONE), url, code, name) for name in ("Ana", "Ben")}
    phones["Jonas"] = join_in_german(new_context(browser, url, viewport=PHONE, locale="de-DE"), url, code)
    quiet = join(new_context(browser, url, java_script_enabled=False), url, code, "quiet")
    expect(phones["Jonas"].locator("#room-write")).to_contain_text("School lunch")
    sentences = []
    for name, page in phones.items():
        for text in WRITTEN[name]:
            write(page, text)
            sentences.append(text)
    save_screenshot(phones["Jonas"], "class-room-phone-writing-de")
    for text in WRITTEN["quiet"]:
        quiet.locator("#write-text").fill(text)
        quiet.locator("#room-write button[type=submit]").click()
        expect(quiet.locator("#me .my-sentences")).to_contain_text(text)
        sentences.append(text)
    n = len(sentences)
    expect(projector.locator("#room-sentences .sentences-counts")).to_contain_text(f"{n} sentences")
    expect(projector.locator("#room-sentences .sentence-text")).to_have_count(n)
    assert not projector.locator("#room-sentences").get_by_text("Ana").count(), "no names without the leaderboard"
    save_screenshot(projector, "class-room-projector-sentences")

    teacher.reload()
    teacher.locator("#sentences-mix").fill(str(W))
    teacher.get_by_role("button", name="Build our model").click()
    expect(teacher.locator("#model-description")).to_contain_text(f"Counted from our {n} sentences")
    model = teacher.locator("#model").input_value()
    assert re.fullmatch(r"class:[a-z0-9]{10}", model)
    for _ in range(3):
        step(teacher)
    ids = teacher.locator('#controls input[name="ids"]').input_value().split(",")
    assert len(ids) == 3
    token_ids = ids_of(url, model, vocabulary_of(sentences))
    for i in range(3):  # the step that picked ids[i]: the class's counts and Austen's, mixed at W
        query = {"model": model, "prompt": "", "ids": ",".join(ids[:i]), "mix": str(W)}
        probs, prev = step_probs(url, query, token_ids)
        ours = class_probs(sentences, prev)
        hers = austen_probs(url, list(ours), prev)
        assert set(probs) == set(ours)
        for token, p in probs.items():
            assert math.isclose(p, W * ours[token] + (1 - W) * hers[token], rel_tol=1e-9), (i, prev, token)
    text = teacher.locator(".text-so-far").inner_text()
    for page in phones.values():
        expect(page.locator(".text-so-far")).to_have_text(text)
    quiet.reload()
    expect(quiet.locator(".text-so-far")).to_have_text(text)
    save_screenshot(teacher, "class-room-step")

    with teacher.expect_response(re.compile(r"/room/[A-Z0-9]{8}/state$")):
        teacher.get_by_role("link", name="Open the forward pass").click()
    projector.goto(f"{url}/room/{code}/teach?present=1")
    heat = projector.locator("#inside table").first
    expect(heat).to_be_visible()
    heat.scroll_into_view_if_needed()
    save_screenshot(projector, "class-room-count-table")
    save_screenshot(phones["Jonas"], "class-room-phone-de")
