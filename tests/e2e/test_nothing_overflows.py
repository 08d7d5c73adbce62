"""No text spills out of its place: table cells, the chart's labels, the prompt box, the chips and the text.

Checked in presenter mode on a 1280x720 projector and on a phone, for the screens where it once
did: T = 0 (a long footer label beside '0 %' cells), top-k, a pick far below the table, a long text.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from on_screen import tables_on_screen
from playwright.sync_api import Page, expect
from stepping import state_url

LONG_PROMPT = ("It is a truth universally acknowledged, that a single man in possession of a good fortune "
               "must be in want of a wife")

# Each check returns what overflows, as sentences; an empty list is a pass.
OVERFLOWS = """() => {
  const problems = [];
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const inside = (inner, outer) => inner.left >= outer.left - 1 && inner.right <= outer.right + 1 &&
                                   inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
  const textBox = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return range.getBoundingClientRect();
  };
  document.querySelectorAll("#logits table td, #logits table th").forEach((cell) => {
    const hidden = Array.from(cell.querySelectorAll(".visually-hidden")).map((e) => e.textContent).join("");
    if (!visible(cell) || cell.textContent.trim() === hidden.trim()) return;  // empty, or for screen readers only
    if (!inside(textBox(cell), cell.getBoundingClientRect())) {
      problems.push("cell '" + cell.textContent.trim() + "' spills out");
    }
    const scroller = cell.closest(".present .table-scroll");  // a projector cannot scroll sideways; a phone can
    if (scroller && !inside(cell.getBoundingClientRect(), scroller.getBoundingClientRect())) {
      problems.push("cell '" + cell.textContent.trim() + "' is cut off by the table's frame");
    }
  });
  document.querySelectorAll("svg.bar-chart").forEach((svg) => {
    const box = svg.getBoundingClientRect();
    svg.querySelectorAll("text").forEach((t) => {
      if (!inside(t.getBoundingClientRect(), box)) problems.push("chart text '" + t.textContent + "' is cut");
    });
  });
  const wholeLines = (el, what) => {
    if (!visible(el)) return;
    const style = getComputedStyle(el);
    const line = parseFloat(style.lineHeight);
    const inner = el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    if (el.scrollHeight > el.clientHeight + 1 && Math.abs(inner / line - Math.round(inner / line)) > 0.08) {
      problems.push(what + " shows " + (inner / line).toFixed(2) + " lines");
    }
  };
  document.querySelectorAll("#prompt, .text-so-far").forEach((el) => wholeLines(el, el.id || el.className));
  document.querySelectorAll(".chips").forEach((chips) => {
    if (!visible(chips) || chips.scrollHeight <= chips.clientHeight + 1) return;
    const box = chips.getBoundingClientRect();
    chips.querySelectorAll(".chip").forEach((chip) => {
      const b = chip.getBoundingClientRect();
      const overlap = Math.min(b.bottom, box.bottom) - Math.max(b.top, box.top);
      if (overlap > 1 && overlap < b.height - 1) problems.push("chip '" + chip.textContent.trim() + "' is cut");
    });
  });
  return problems;
}"""

SCREENS = {
    "beyond": {"temperature": "1.5", "seed": "0", "present": "1", "model": "austen-bigram",
               "prompt": "It is a truth universally acknowledged"},
    "greedy": {"temperature": "0", "present": "1"},
    "greedy-top-k": {"temperature": "0", "top_k": "3", "present": "1"},
    "top-k": {"temperature": "1.3", "top_k": "3", "present": "1"},
    "long-text": {"temperature": "0", "present": "1", "prompt": LONG_PROMPT},
}
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 740}
# The logits table's headers on a phone, each over its figures: rank, token, z and p; under them "choose" (its
# header for screen readers only) and the range.
PHONE_HEADERS = {"en": ["#", "Token", "Logit z", "p", "Range"], "de": ["#", "Token", "Logit z", "p", "Bereich"],
                 "fr": ["#", "Token", "Logit z", "p", "Intervalle"]}


def overflows(page: Page) -> list[str]:
    expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
    return page.evaluate(OVERFLOWS)


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
@pytest.mark.parametrize("name", list(SCREENS))
def test_presenter_mode_keeps_every_text_in_its_place(page: Page, expected_ids, name, save_screenshot: Callable):
    ids = {"long-text": expected_ids * 4, "beyond": [2825]}.get(name, expected_ids)  # 2825: rank 2,827 at T = 1.5
    page.goto(state_url(ids, **SCREENS[name]))
    assert overflows(page) == []
    save_screenshot(page, f"presenter-{name}")


@pytest.mark.browser_context_args(viewport=PHONE, reduced_motion="reduce", is_mobile=True, has_touch=True)
@pytest.mark.parametrize("name", ["greedy", "greedy-top-k", "top-k", "beyond"])
def test_a_phone_keeps_every_text_in_its_place(page: Page, expected_ids, name, save_screenshot: Callable):
    params = {k: v for k, v in SCREENS[name].items() if k != "present"}
    page.goto(state_url([2825] if name == "beyond" else expected_ids, **params))
    assert overflows(page) == []
    save_screenshot(page, f"phone-{name}")


@pytest.mark.browser_context_args(viewport=SMALL_PHONE, reduced_motion="reduce", is_mobile=True, has_touch=True)
@pytest.mark.parametrize("lang", list(PHONE_HEADERS))
@pytest.mark.parametrize("name", ["top-k", "beyond"])
def test_a_360_px_phone_shows_every_column_of_every_table(page: Page, expected_ids, name, lang, save_screenshot):
    """Top-k: 'kept' under each probability, cut badges; beyond: a pick at rank 2,827 and a range in two parts.
    The text coloured by surprise adds its table; the inside of the forward pass its heads and the logit lens (top-k:
    the bigram model of `beyond` has no inside)."""
    params = {k: v for k, v in SCREENS[name].items() if k != "present"}
    page.goto(state_url([2825] if name == "beyond" else expected_ids, lang=lang, surprise="1", inside="1", **params))
    expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")
    problems, headers = tables_on_screen(page, SMALL_PHONE["width"])
    assert problems == []
    assert headers["logits-table"] == PHONE_HEADERS[lang]
    assert {"logits-table", "surprise-table"} <= set(headers)
    expect(page.locator("html")).to_have_js_property("scrollWidth", SMALL_PHONE["width"])
    save_screenshot(page, f"phone-360-{name}-{lang}")


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
def test_presenter_mode_says_when_r_now_lands_on_another_token(page: Page, expected_ids) -> None:
    """After T changes, the "r lands here" badge is on a token the text does not have: the note says so."""
    page.goto(state_url(expected_ids, present="1", temperature="0"))
    picked = page.locator("#logits tr.picked .tok").inner_text()
    in_text = page.locator(".text-so-far .gen").last.inner_text()
    assert picked != in_text, "greedy picks another token than the seeded r did"
    note = page.locator("#ranges .pick-moved")
    expect(note).to_be_visible()
    expect(note).to_contain_text(f"The text has '{in_text}' here")
