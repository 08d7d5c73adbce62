"""A vote left open in a real browser: the teacher presses the Left arrow by accident (Back) and Step, and the round
comes back as it was, the votes counted on the projector and each phone saying its own vote again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from room_helpers import Server, join, new_context, start_room, step

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("room-server")
    server = Server(f"sqlite:///{folder / 'rooms.sqlite3'}", folder).start()
    yield server
    server.stop()


def test_back_by_accident_and_step_bring_the_vote_back_on_the_phones(browser: Browser, room_server: Server) -> None:
    url = room_server.url
    teacher, code = start_room(new_context(browser, url, viewport=PROJECTOR), url)
    anna = join(new_context(browser, url, viewport=PHONE), url, code, "Anna")
    teacher.get_by_role("button", name="Class votes: off").click()
    expect(teacher.get_by_role("button", name="Class votes: on")).to_be_visible()
    step(teacher)
    choice = anna.locator("#ballot button.ballot-token").first
    token = choice.inner_text().strip()
    choice.click()
    expect(anna.locator(".my-vote")).to_contain_text("Your vote on this step")
    expect(teacher.locator(".room-votes")).to_have_text("1")

    with anna.expect_response(lambda response: response.url.endswith("/me"), timeout=10_000):  # the phone asks
        teacher.locator("body").press("ArrowLeft")  # Back, by accident: the vote closes on the phones
    expect(anna.locator("#ballot button.ballot-token")).to_have_count(0)
    expect(anna.locator(".my-vote")).not_to_contain_text("Your vote")
    step(teacher)
    expect(teacher.locator(".room-votes")).to_have_text("1")
    expect(anna.locator(".my-vote")).to_contain_text("Your vote on this step")
    expect(anna.locator(".my-vote")).to_contain_text(token)
    rounds = teacher.context.request.get(f"/room/{code}/results.json").json()
    assert (rounds["round"], rounds["round_open"], rounds["open_votes"]) == (1, True, 1)
