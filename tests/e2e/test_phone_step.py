"""One Step on one phone screen, and controls that stay put.

On a phone the panels stack: the step bar at the bottom of the screen shows the pick and its range beside Step, so
that nobody scrolls to see what was picked. The temperature's marks sit under the thumb at their values, the logits
table keeps its tokens in view as it scrolls sideways, and neither Play becoming Pause nor the temperature's note
moves the slider or the speed menu.
"""

from __future__ import annotations

import pytest
from on_screen import expect_step_done, picked_token, step_button
from pixels import columns_of, png_pixels
from playwright.sync_api import Locator, Page, expect
from stepping import START, state_url

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "reduced_motion": "reduce"}
LAPTOP = {"viewport": {"width": 1366, "height": 768}, "reduced_motion": "reduce"}
THUMB = (0x0B, 0x4F, 0x8A)  # the slider's thumb: --accent in app.css


def dismiss_guide(page: Page) -> None:
    """Close the first-visit guide, if this build shows one."""
    dismiss = page.get_by_role("button", name="Don't show again")
    if dismiss.count() and dismiss.is_visible():
        dismiss.click()
        expect(dismiss).to_be_hidden()


def on_screen(locator: Locator, width: int, height: int) -> None:
    box = locator.bounding_box()
    assert box is not None and box["width"] > 0, locator
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= width + 0.5, f"{locator}: {box}"
    assert box["y"] >= -0.5 and box["y"] + box["height"] <= height + 0.5, f"{locator}: {box}"


@pytest.mark.browser_context_args(**PHONE)
def test_each_step_on_a_phone_shows_its_word_range_and_step_button_on_one_screen(page: Page) -> None:
    page.goto(START)
    dismiss_guide(page)
    bar = page.locator("#step-bar")
    expect(bar).to_contain_text("Press Step to pick the next token.")
    on_screen(step_button(page), 390, 844)
    scrolled = page.evaluate("scrollY")
    for i in range(3):
        step_button(page).click()
        expect_step_done(page, i)
        expect(bar).to_have_attribute("data-step", str(i))
        word = picked_token(page)
        expect(bar.locator(".step-bar-pick")).to_contain_text(f"'{word}'")
        for part in (".step-bar-pick", "rect.picked", ".ends", "[data-control=step]"):
            on_screen(bar.locator(part), 390, 844)
        assert page.evaluate("scrollY") == scrolled, "a Step scrolls nothing"
        picked = bar.locator("rect.picked").bounding_box()
        assert picked["width"] >= 0.39 * bar.locator("svg.step-bar-zoom").bounding_box()["width"], "readable"


@pytest.mark.parametrize("context", [LAPTOP, PHONE], ids=["1366x768", "390x844"])
def test_each_mark_under_the_temperature_slider_is_centred_on_the_thumb_at_its_value(new_context, context) -> None:
    page = new_context(**context).new_page()
    page.goto(START)
    dismiss_guide(page)
    slider = page.get_by_label("Temperature", exact=True)
    marks = page.locator(".scale-labels > span")  # 0 to 5, each with its number (.mark)
    expect(marks).to_have_count(6)
    for i in range(marks.count()):
        slider.fill(str(i))
        expect(page.locator("#temperature-value")).to_contain_text(f"T = {i}.00")
        box = slider.bounding_box()
        pixels = png_pixels(slider.screenshot())
        thumb = columns_of(pixels, THUMB)
        assert thumb.size, f"no thumb at T = {i}"
        scale = pixels.shape[1] / box["width"]
        thumb_x = box["x"] + (thumb.min() + thumb.max() + 1) / 2 / scale
        number = marks.nth(i).locator(".mark")
        mark = (number if number.count() else marks.nth(i)).bounding_box()
        assert abs(mark["x"] + mark["width"] / 2 - thumb_x) <= 2, f"T = {i}: mark at {mark}, thumb at {thumb_x}"


@pytest.mark.browser_context_args(
    viewport={"width": 640, "height": 900}, is_mobile=True, has_touch=True, reduced_motion="reduce"
)
def test_the_logits_table_keeps_its_token_column_as_it_scrolls_sideways(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1], lang="de"))  # German's headings are the widest
    expect_step_done(page, 0)
    scroller = page.locator("#logits .table-scroll")
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth"), "the table scrolls sideways at this width"
    scroller.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    left = scroller.bounding_box()["x"]
    for cell in (page.locator("#logits thead th").nth(1), page.locator("#logits tbody tr").first.locator("td").nth(1)):
        assert abs(cell.bounding_box()["x"] - left) <= 1, "the Token column stays at the table's left edge"
    token = page.locator("#logits tr.picked .tok").bounding_box()
    assert token["x"] >= left, "the picked token is in view, not under the column scrolled past"


def boxes(page: Page) -> list[dict]:
    """The slider's and the speed menu's boxes, from the controls panel's top."""
    top = page.locator("#controls-panel").bounding_box()["y"]
    found = [page.get_by_label("Temperature", exact=True).bounding_box(), page.locator("#speed").bounding_box()]
    return [{**box, "y": round(box["y"] - top, 1)} for box in found]


@pytest.mark.parametrize("context", [LAPTOP, PHONE], ids=["1366x768", "390x844"])
def test_play_becoming_pause_and_the_temperatures_note_move_nothing(new_context, context) -> None:
    page = new_context(**context).new_page()
    page.clock.install()  # auto-play's next step waits for run_for(): only the first is taken
    page.goto(START)
    dismiss_guide(page)
    before = boxes(page)
    page.locator("#play").click()
    expect(page.locator("#play")).to_have_text("Pause")
    expect_step_done(page, 0)
    assert boxes(page) == before, "Pause is where Play was, and nothing after it moved"
    page.locator("#play").click()
    expect(page.locator("#play")).to_have_text("Play")
    for value, note in (("1.5", "(flatter)"), ("0", "(greedy)"), ("1", "")):
        page.get_by_label("Temperature", exact=True).fill(value)
        expect(page.locator("#temperature-value")).to_have_text(f"T = {float(value):.2f} {note}".strip())
        assert boxes(page) == before, f"T = {value}: the note beside the value moved the slider"
