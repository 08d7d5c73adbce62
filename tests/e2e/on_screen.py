"""What the browser tests read off the stepper page and its address bar, and how they step.

Locators go by role, label and text; `expect` does the waiting (the page's CSP forbids eval, so no test
evaluates JavaScript in the page). Every test but the animation's own runs with reduced motion
(`no_animation`), so that a step ends at once in `#range-bar[data-state="done"]`.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, quote_plus, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

PANELS = ("#prompt-panel", "#controls-panel", "#logits", "#chart", "#ranges", "#text", "#share")

no_animation = pytest.mark.browser_context_args(reduced_motion="reduce")


def url_query(page: Page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def url_ids(page: Page) -> list[int]:
    return [int(part) for part in url_query(page).get("ids", "").split(",") if part]


def expect_url_param(page: Page, name: str, value: str) -> None:
    """Wait until the address bar has name=value, each character as typed or percent-encoded."""
    forms = ("|".join(sorted({re.escape(c), re.escape(quote(c, safe="")), re.escape(quote_plus(c))})) for c in value)
    pattern = "".join(f"(?:{alternatives})" for alternatives in forms)
    expect(page).to_have_url(re.compile(rf"[?&]{re.escape(name)}={pattern}(?:&|$)"))


def ids_pattern(ids: list[int], more: bool = False) -> re.Pattern:
    """The address bar's ids=... for these ids; with more=True, any ids may follow them."""
    joined = "(?:%2C|,)".join(map(str, ids))
    tail = r"(?:(?:%2C|,)\d+)*" if more else ""
    return re.compile(rf"[?&]ids={joined}{tail}(?:&|$)")


def expect_url_ids(page: Page, ids: list[int], more: bool = False) -> None:
    """Wait until the address bar holds these ids (htmx pushes the URL as it swaps the panels in)."""
    expect(page).to_have_url(ids_pattern(ids, more))


def expect_no_url_param(page: Page, name: str) -> None:
    expect(page).not_to_have_url(re.compile(rf"[?&]{name}="))


def range_bar(page: Page) -> Locator:
    return page.locator("#range-bar")


def generated(page: Page) -> Locator:
    """The generated tokens in the text panel (buttons that show their step)."""
    return page.locator("#text .text-so-far button.gen")


def step_button(page: Page) -> Locator:
    return page.get_by_role("button", name="Step", exact=True)


def expect_step_done(page: Page, step_index: int) -> None:
    expect(range_bar(page)).to_have_attribute("data-step", str(step_index))
    expect(range_bar(page)).to_have_attribute("data-state", "done")


def click_step(page: Page, step_index: int) -> None:
    step_button(page).click()
    expect_step_done(page, step_index)


def picked_token(page: Page) -> str:
    return page.locator("#pick-sentence strong.tok").inner_text().strip().strip("'")


def not_picked_row_token(page: Page) -> str:
    """The token of the best-ranked table row that r did not pick: one to choose instead."""
    row = page.locator("#logits tbody tr:not(.picked):not(.cut)").first
    return row.locator(".tok").inner_text().strip()


INNER = "table:visible, svg.range-svg:visible, svg.bar-chart:visible, button:visible, .table-scroll:visible"

# Each table on screen, as the problems a reader would meet: a box that scrolls sideways (a column out of view),
# a cell past the screen's edge or whose text spills out of it. And the headers a reader sees, table by table.
TABLES_CUT = """(width) => {
  const problems = [], headers = {};
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const seen = (th) => Array.from(th.childNodes).filter((n) => n.nodeType === 3 || (shown(n) &&
    !n.classList.contains("visually-hidden"))).map((n) => n.textContent).join("").trim();
  document.querySelectorAll("table").forEach((table) => {
    if (!shown(table) || table.closest(".visually-hidden")) return;
    const name = table.className || table.closest("[id]").id, box = table.parentElement;
    if (box.scrollWidth > box.clientWidth + 1) {
      problems.push(name + " is " + box.scrollWidth + " px wide in a box of " + box.clientWidth + " px");
    }
    table.querySelectorAll("th, td").forEach((cell) => {
      if (!shown(cell)) return;
      const r = cell.getBoundingClientRect(), text = cell.textContent.trim().replace(/\\s+/g, " ");
      if (r.left < -0.5 || r.right > width + 0.5) problems.push(name + ": '" + text + "' reaches " + r.right + " px");
      if (cell.scrollWidth > cell.clientWidth + 1) problems.push(name + ": '" + text + "' spills out of its cell");
    });
    headers[name] = Array.from(table.querySelectorAll("thead th")).filter(shown).map(seen).filter(Boolean);
  });
  return [problems, headers];
}"""


def tables_on_screen(page: Page, width: int) -> tuple[list[str], dict[str, list[str]]]:
    """What is cut off or spills in the tables on screen (a pass: none), and each table's visible headers."""
    problems, headers = page.evaluate(TABLES_CUT, width)
    return problems, headers


def assert_fits_width(page: Page, width: int, inner: str = INNER) -> None:
    """Every panel, and every table, chart and button in it, lies within 0..width: nothing cut off."""
    for selector in PANELS:
        panel = page.locator(selector)
        expect(panel).to_be_visible()
        box = panel.bounding_box()
        assert box is not None, selector
        assert box["x"] >= -0.5 and box["x"] + box["width"] <= width + 0.5, f"{selector} spans {box}"
        for element in panel.locator(inner).all():
            b = element.bounding_box()
            if b and b["width"] > 0:
                assert b["x"] >= box["x"] - 0.5 and b["x"] + b["width"] <= box["x"] + box["width"] + 0.5, (
                    f"{selector}: an element spans {b}, beyond the panel's {box}")


def table_rows(page: Page) -> list[tuple[str, str, str]]:
    """(rank, token, id) of each row of the logits table on screen."""
    rows = []
    for tr in page.locator("#logits tbody tr").all():
        cells = tr.locator("td")
        rows.append((cells.nth(0).inner_text().strip(), tr.locator(".tok").inner_text().strip(),
                     cells.nth(2).text_content().strip()))
    return rows


def open_more(page: Page) -> None:
    """Open "More" under the controls, as a student does to reach the seed, the penalties or the classroom controls
    (the teacher's view, view=teacher, has it open already)."""
    more = page.locator("details#more")
    if more.get_attribute("open") is None:
        more.locator("summary").click()
    expect(more).to_have_attribute("open", "")
