"""One lesson, start to end, as a class lives it: a teacher in presenter mode on a 1280x720 projector and four
phones (one without JavaScript, one in German, one 360 px wide) join, vote on three steps with a Back in the
middle of one, a student is taken out, the server restarts, and the teacher ends the lesson. At each point: the
counts the teacher sees, the secret (no student's browser holds the pick of an open vote), and that the
projector's counts and results are large enough for the back row and fit its screen; and no page's console
reports anything its Content Security Policy blocked.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

from playwright.sync_api import Browser, Page, expect
from room_helpers import Server, new_context
from stepping import state_url
from test_room_projector import LEGIBILITY, PROJECTOR, expect_presenting, font_px

PUBLISHED = re.compile(r"/room/[A-Z0-9]{8}/state(?:\?|$)")
PHONE = {"width": 390, "height": 844}


def watched(page: Page, seen: list[str]) -> Page:
    """The page, its console's complaints about the Content Security Policy gathered in `seen`."""
    page.on("console", lambda message: seen.append(f"{page.url}: {message.text[:60]} {message.location}")
            if "Content Security Policy" in message.text else None)
    return page


def join(browser: Browser, url: str, code: str, nickname: str, seen: list[str], **options) -> Page:
    """A phone joins by the form, in whatever language it speaks and with or without JavaScript."""
    page = watched(new_context(browser, url, viewport=options.pop("viewport", PHONE), **options).new_page(), seen)
    page.goto(f"{url}/join?code={code}")
    page.locator("#nickname").fill(nickname)
    page.locator(".join-form button[type=submit]").click()
    expect(page).to_have_url(f"{url}/room/{code}")
    return page


def press(teacher: Page, control: str) -> None:
    """Step, Back or Reveal on the projector, waiting until the room has the new screen."""
    with teacher.expect_response(PUBLISHED) as published:
        if control == "reveal":
            teacher.locator("#ranges button[name=reveal]").click()
        else:
            teacher.locator(f"#controls [data-control={control}]").click()
    assert published.value.ok


def data(teacher: Page, code: str) -> dict:
    return teacher.request.get(f"/room/{code}/results.json").json()


def pick_hidden_from(students: list[Page], teacher: Page, code: str) -> None:
    """While a vote is open, no student's page holds the ids with the pick: the room's state names them."""
    state = data(teacher, code)
    assert state["round_open"]
    ids = parse_qs(state["state"])["ids"][0]
    for student in students:
        html = student.content()
        for written in (ids, ids.replace(",", "%2C")):  # in a link, a form's field, the page's data
            assert not re.search(rf"ids={re.escape(written)}(?![\d%,])", html), written
            assert not re.search(rf'name="ids" value="{re.escape(written)}"', html), written
        expect(student.locator(".text-so-far")).to_contain_text("?")


def legible(teacher: Page) -> None:
    """The projector: presenter mode, the counts at 20 px or more, nothing below the screen's edge."""
    expect_presenting(teacher)
    assert font_px(teacher, ".room-live") >= 20
    assert teacher.evaluate("document.documentElement.scrollHeight") <= PROJECTOR["height"]


def vote(student: Page, n: int, javascript: bool = True) -> None:
    """The student taps the n-th token of the ballot; a phone without JavaScript sends the form and reloads."""
    student.locator("#ballot button.ballot-token").nth(n).click()
    if javascript:
        expect(student.locator(".my-vote")).to_have_attribute("data-token", re.compile(r"\d+"))
    else:
        expect(student.locator('#ballot button.ballot-token[aria-pressed="true"]')).to_have_count(1)


def catch_up(student: Page, teacher: Page, javascript: bool = True) -> None:
    """The student's screen shows the teacher's text (reloaded by hand without JavaScript)."""
    if not javascript:
        student.reload()
    expect(student.locator(".text-so-far")).to_have_text(teacher.locator(".text-so-far").inner_text())


def test_a_whole_lesson(browser: Browser, tmp_path, save_screenshot) -> None:
    server = Server(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", tmp_path).start()
    url = server.url
    blocked: list[str] = []  # what the pages' Content Security Policy blocked: nothing, all through the lesson
    try:
        # The teacher starts the room from presenter mode: the join screen is up, large.
        teacher = watched(new_context(browser, url, viewport=PROJECTOR).new_page(), blocked)
        teacher.goto(state_url([], present="1"))
        teacher.locator("form.start-room button").click()
        expect(teacher).to_have_url(re.compile(r"/room/[A-Z0-9]{8}/teach\?"))
        teacher.wait_for_load_state()
        code = teacher.url.split("/room/")[1].split("/")[0]
        assert font_px(teacher, "#room-code") >= 64
        assert teacher.locator("img.room-qr").bounding_box()["height"] >= PROJECTOR["height"] / 3

        anna = join(browser, url, code, "Anna", blocked)
        ben = join(browser, url, code, "Ben", blocked, locale="de-DE")  # a German phone
        cleo = join(browser, url, code, "Cleo", blocked, java_script_enabled=False)
        dev = join(browser, url, code, "Dev", blocked, viewport={"width": 360, "height": 740})
        expect(ben.locator("html")).to_have_attribute("lang", "de")
        expect(teacher.locator(".room-count")).to_have_text("4")
        save_screenshot(teacher, "lesson-1-join-screen")

        teacher.locator("#join-hide").click()
        teacher.locator('.room-settings button[name="votes_on"]').click()
        expect(teacher.locator('.room-settings button[name="votes_on"][aria-pressed="true"]')).to_be_visible()
        legible(teacher)
        phones = [anna, ben, cleo, dev]
        with_js = [anna, ben, dev]

        # Round 1: everyone votes; the count rises on the projector; Reveal shows the class beside the model.
        press(teacher, "step")
        for phone in with_js:
            catch_up(phone, teacher)
        catch_up(cleo, teacher, javascript=False)
        pick_hidden_from(phones, teacher, code)
        for n, phone in enumerate(phones):
            vote(phone, n % 3, javascript=phone is not cleo)
        expect(teacher.locator(".room-votes")).to_have_text("4")
        expect(teacher.locator("#room-live")).to_contain_text("4 of 4 voted")
        legible(teacher)
        save_screenshot(teacher, "lesson-2-vote-open")
        press(teacher, "reveal")
        expect(teacher.locator(".share-picked")).to_contain_text("of 4")
        seen = teacher.evaluate(LEGIBILITY, "#room-results")
        assert not seen["small"] and not seen["cut"] and not seen["outside"], seen
        legible(teacher)
        save_screenshot(teacher, "lesson-3-revealed")
        expect(ben.locator(".my-record")).to_be_visible()

        # Round 2: two votes, then Back by mistake: the vote is kept with its two votes and comes back with Step.
        press(teacher, "step")
        catch_up(anna, teacher)
        catch_up(ben, teacher)
        pick_hidden_from([anna, ben], teacher, code)
        vote(anna, 0)
        vote(ben, 1)
        expect(teacher.locator(".room-votes")).to_have_text("2")
        round_2 = data(teacher, code)["round"]
        press(teacher, "back")
        expect(teacher.locator("#room-kept")).to_contain_text("kept with its 2 votes")
        legible(teacher)
        press(teacher, "step")
        expect(teacher.locator(".room-votes")).to_have_text("2")
        assert data(teacher, code)["round"] == round_2
        expect(anna.locator(".my-vote")).to_have_attribute("data-token", re.compile(r"\d+"))  # her vote stands
        catch_up(dev, teacher)
        pick_hidden_from([dev], teacher, code)
        vote(dev, 2)
        expect(teacher.locator(".room-votes")).to_have_text("3")

        # Dev's nickname was rude: the teacher takes Dev out on the laptop's page (names never on the projector).
        assert teacher.locator("#room-roster").count() == 0
        teacher.goto(f"/room/{code}/teach")
        entry = teacher.locator(".roster-entry", has_text="Dev")
        expect(entry).to_have_class(re.compile(r"\bvoted\b"))
        entry.locator(".roster-remove").click()
        expect(teacher.locator(".roster-entry", has_text="Dev")).to_have_count(0)
        expect(teacher.locator(".room-votes")).to_have_text("2")  # Dev's vote left the tally
        expect(teacher.locator(".room-count")).to_have_text("3")
        expect(dev.locator(".room-removed")).to_be_visible()  # Dev's phone says so, on the join form
        teacher.get_by_role("link", name="Presenter mode").click()
        press(teacher, "reveal")
        expect(teacher.locator(".share-picked")).to_contain_text("of 2")
        legible(teacher)

        # The server restarts between two steps: the room, the class and the teacher's control are all still there.
        server.stop()
        server.start()
        press(teacher, "step")
        for phone in (anna, ben):
            catch_up(phone, teacher)
        catch_up(cleo, teacher, javascript=False)
        pick_hidden_from([anna, ben, cleo], teacher, code)
        for n, phone in enumerate((anna, ben, cleo)):
            vote(phone, n, javascript=phone is not cleo)
        expect(teacher.locator(".room-votes")).to_have_text("3")
        expect(teacher.locator("#room-live")).to_contain_text("3 of 3 voted")
        press(teacher, "reveal")
        expect(teacher.locator(".share-picked")).to_contain_text("of 3")
        legible(teacher)
        summary = data(teacher, code)
        assert [r["n_votes"] for r in summary["rounds"]] == [4, 2, 3] and summary["kept"] == []

        # The end: the teacher ends the lesson; every phone says so, in its language, and offers to explore.
        teacher.goto(f"/room/{code}/teach")
        teacher.locator(".room-end summary").click()
        teacher.locator("#end-lesson").click()
        expect(teacher.locator("#room-ended")).to_be_visible()
        expect(anna.locator("#room-status")).to_contain_text("The lesson has ended.")
        expect(ben.locator("#room-status")).to_contain_text("Die Stunde ist beendet.")
        cleo.reload()
        expect(cleo.locator("#room-status")).to_contain_text("The lesson has ended.")
        for phone in (anna, ben, cleo):
            expect(phone.locator("#ballot button.ballot-token")).to_have_count(0)
        save_screenshot(ben, "lesson-4-ended-de")
        ben.locator("#room-status .room-explore").click()
        expect(ben).to_have_url(re.compile(r"/(?:step)?\?"))  # exploring on the ordinary stepper
        assert blocked == []
    finally:
        server.stop()
