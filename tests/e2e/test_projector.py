"""Presenter mode read from the back row: 20 px figures, no sideways scrolling at browser zoom, AA contrast.

Browser zoom on a 1280x720 screen is emulated as Chromium does it: at 125 % the page sees a
1024x576 CSS-pixel viewport drawn at device scale factor 1.25; at 150 %, 853x480 at 1.5.
The colours are measured from the browser's computed styles, never taken from the stylesheet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from on_screen import click_step
from playwright.sync_api import Browser, Page, expect
from stepping import state_url

ZOOMS = {
    100: ({"width": 1280, "height": 720}, 1.0),
    125: ({"width": 1024, "height": 576}, 1.25),
    150: ({"width": 853, "height": 480}, 1.5),
}
FIGURES = {  # what a class reads off the projector: each must be at least 20 CSS px
    "the table's cells": "#logits table th, #logits table td",
    "the chart's labels": "#chart svg.bar-chart text",
    "the r sentence": "#pick-sentence",
    "the text so far": "#text .text-so-far, #text .text-so-far .gen",
}
SCREENS = {  # presenter screens whose colours differ: a plain step, cut rows, a token chosen and an r typed
    "stepped": {},
    "top-k": {"top_k": "3", "temperature": "1.3"},
    "chosen-typed": {"src": "s,f,0.999", "at": "1", "temperature": "0"},
}

# Shared by the checks below: colours as [r, g, b, a], WCAG's relative luminance and contrast ratio,
# and the colour behind an element (its own and its ancestors' backgrounds, composited; white below).
COLOUR_JS = """
const rgba = (css) => {
  const m = /rgba?\\(([^)]*)\\)/.exec(css || "");
  if (!m) return null;
  const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, below) => {
  const a = top[3] + below[3] * (1 - top[3]);
  return [0, 1, 2].map((i) => (top[i] * top[3] + below[i] * below[3] * (1 - top[3])) / a).concat(a);
};
const luminance = (c) => {
  const linear = (v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const [r, g, b] = c.slice(0, 3).map(linear);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const backdrop = (el) => {
  const layers = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c && c[3] > 0) layers.push(c);
    if (c && c[3] === 1) break;
  }
  return layers.reverse().reduce((below, top) => over(top, below), [255, 255, 255, 1]);
};
const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden"
  && !el.closest(".visually-hidden") && el.getBoundingClientRect().width > 1;
const name = (el) => (el.textContent || el.tagName).trim().replace(/\\s+/g, " ").slice(0, 40);
"""

TEXT_CONTRAST = (
    "() => {"
    + COLOUR_JS
    + """
  // SVG text reads against the shape drawn under it (a range's rect), else against the page behind the chart.
  const behindSvgText = (t) => {
    const box = t.getBoundingClientRect();
    const under = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2)
      .find((e) => e !== t && e instanceof SVGGeometryElement && rgba(getComputedStyle(e).fill));
    const page = backdrop(t.ownerSVGElement);
    if (!under) return page;
    const style = getComputedStyle(under), fill = rgba(style.fill);
    fill[3] *= parseFloat(style.fillOpacity) * parseFloat(style.opacity);
    return over(fill, page);
  };
  const pairs = [];
  document.querySelectorAll("main *").forEach((el) => {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !shown(el) || el.closest("svg") && !(el instanceof SVGTextElement)) return;
    const style = getComputedStyle(el), svg = el instanceof SVGTextElement;
    const fg = rgba(svg ? style.fill : style.color), bg = svg ? behindSvgText(el) : backdrop(el);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    pairs.push({text: name(el), ratio: ratio(over(fg, bg), bg), needs: large ? 3 : 4.5});
  });
  return pairs;
}"""
)

MARK_CONTRAST = (
    "() => {"
    + COLOUR_JS
    + """
  // A mark stands out by its fill, or by an outline at least 1 px wide (a range among others).
  const marks = [];
  document.querySelectorAll("svg.bar-chart rect, svg.range-svg rect, svg.range-svg .marker *").forEach((m) => {
    if (!shown(m)) return;
    const style = getComputedStyle(m), page = backdrop(m.ownerSVGElement), alpha = parseFloat(style.opacity);
    const fill = rgba(style.fill), stroke = rgba(style.stroke);
    const fillAlpha = alpha * parseFloat(style.fillOpacity);
    const byFill = fill ? ratio(over([...fill.slice(0, 3), fill[3] * fillAlpha], page), page) : 0;
    const byStroke = stroke && parseFloat(style.strokeWidth) >= 1
      ? ratio(over([...stroke.slice(0, 3), stroke[3] * alpha], page), page) : 0;
    const group = m.closest(".kept-ranges, .rest-ranges") || m.parentElement;  // a range: named by its group
    marks.push({mark: group.getAttribute("class") + " " + (m.getAttribute("class") || m.tagName),
                ratio: Math.max(byFill, byStroke)});
  });
  return marks;
}"""
)

SIDEWAYS = """() => {
  const problems = [], page = document.scrollingElement;
  if (page.scrollWidth > page.clientWidth) problems.push("the page scrolls sideways: " + page.scrollWidth);
  const visible = (el) => el.getClientRects().length > 0 && !el.closest(".visually-hidden, .field-label");
  document.querySelectorAll("main .panel").forEach((panel) => {
    const frame = panel.getBoundingClientRect();
    if (!visible(panel)) return;
    if (frame.left < -0.5 || frame.right > page.clientWidth + 0.5) problems.push(panel.id + " is cut off");
    panel.querySelectorAll("*").forEach((el) => {
      if (!visible(el) || el.closest("svg") && el.tagName !== "svg" && el.tagName !== "text") return;
      const box = el.getBoundingClientRect(), style = getComputedStyle(el);
      if (box.width > 0 && (box.left < frame.left - 0.5 || box.right > frame.right + 0.5)) {
        const what = (el.textContent || el.tagName).trim().slice(0, 30);
        problems.push(panel.id + ": '" + what + "' is wider than its panel");
      }
      if (/auto|scroll|hidden/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
        problems.push(panel.id + ": " + el.className + " scrolls or cuts sideways");
      }
    });
  });
  return problems;
}"""

# The labels a translation lengthens (not the tokens and figures), and a script that makes each of
# their words a third longer, as "Reset" becomes "Zurücksetzen" or "Range" "Bereich".
LABELS = "main h2, main .buttons button, main .mode-links > *, main label, main thead th, main .badge, main .rest-label"
LENGTHEN = """els => els.forEach(el => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    n.textContent = n.textContent.replace(/[A-Za-z]{2,}/g, (w) => w + "e".repeat(Math.ceil(w.length / 3)));
  }
})"""


@pytest.fixture
def projector(browser: Browser, base_url: str) -> Iterator[Callable[[int], Page]]:
    """open(zoom): a page on a 1280x720 screen at that browser zoom, in its own context."""
    contexts = []

    def open_at(zoom: int) -> Page:
        viewport, scale = ZOOMS[zoom]
        context = browser.new_context(
            base_url=base_url, viewport=viewport, device_scale_factor=scale, reduced_motion="reduce"
        )
        contexts.append(context)
        return context.new_page()

    yield open_at
    for context in contexts:
        context.close()


def two_steps_presented(page: Page, **params: str) -> None:
    page.goto(state_url([], present="1", **params))
    click_step(page, 0)
    click_step(page, 1)


def presented(page: Page, ids: list[int], **params: str) -> None:
    page.goto(state_url(ids, present="1", **params))
    expect(page.locator("#range-bar")).to_have_attribute("data-state", "done")


def font_sizes(page: Page, selector: str) -> list[float]:
    return [
        float(size[:-2])
        for size in page.locator(selector).evaluate_all(
            "els => els.filter(e => e.getClientRects().length).map(e => getComputedStyle(e).fontSize)"
        )
    ]


@pytest.mark.parametrize("figure", FIGURES)
def test_presenter_mode_shows_the_figures_at_20_css_px_or_more(projector, figure: str) -> None:
    page = projector(100)
    two_steps_presented(page)
    sizes = font_sizes(page, FIGURES[figure])
    assert sizes, f"no {figure} on screen"
    assert min(sizes) >= 20, f"{figure}: {sorted(set(sizes))} px"


@pytest.mark.parametrize("zoom", ZOOMS)
def test_presenter_mode_reflows_at_browser_zoom_without_sideways_scrolling(
    projector, zoom: int, save_screenshot: Callable
) -> None:
    page = projector(zoom)
    two_steps_presented(page)
    save_screenshot(page, f"presenter-zoom-{zoom}")
    problems = page.evaluate(SIDEWAYS)
    assert not problems, "\n".join(problems)
    if zoom == 100:  # the loop on one screen; zoomed in, it scrolls down
        expect(page.locator("html")).to_have_js_property("scrollHeight", 720)


@pytest.mark.parametrize("zoom", ZOOMS)
def test_presenter_mode_tolerates_labels_a_third_longer(projector, zoom: int, save_screenshot: Callable) -> None:
    """German and French words run up to a third longer than English ones: the panels reflow, never sideways.

    Every label here grows, the short column headers too, beyond what a real catalog does: the loop
    may then need to scroll down at 100 % (a real language's fit is test_presenter's, in that language).
    """
    page = projector(zoom)
    two_steps_presented(page)
    page.locator(LABELS).evaluate_all(LENGTHEN)
    save_screenshot(page, f"presenter-long-labels-{zoom}")
    problems = page.evaluate(SIDEWAYS)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("screen", SCREENS)
def test_presenter_text_meets_wcag_aa_contrast(projector, expected_ids, screen: str) -> None:
    page = projector(100)
    presented(page, expected_ids, **SCREENS[screen])
    pairs = page.evaluate(TEXT_CONTRAST)
    assert len(pairs) > 20, pairs
    failing = [f"'{p['text']}' {p['ratio']:.2f}:1 < {p['needs']}:1" for p in pairs if p["ratio"] < p["needs"]]
    assert not failing, "\n".join(failing)


@pytest.mark.parametrize("screen", SCREENS)
def test_presenter_chart_marks_stand_out_3_to_1(projector, expected_ids, screen: str) -> None:
    page = projector(100)
    presented(page, expected_ids, **SCREENS[screen])
    marks = page.evaluate(MARK_CONTRAST)
    assert any("kept-ranges" in m["mark"] for m in marks) and any("bar" in m["mark"] for m in marks), marks
    failing = [f"{m['mark']} {m['ratio']:.2f}:1" for m in marks if m["ratio"] < 3]
    assert not failing, "\n".join(failing)


def test_presenter_start_a_class_room_sits_clear_of_the_loopback_notice(projector) -> None:
    page = projector(100)
    page.goto(state_url([], present="1"))
    notice = page.locator("#loopback-warning").bounding_box()
    button = page.get_by_role("button", name="Start a class room").bounding_box()
    assert notice and button, "the test server is on 127.0.0.1: the notice shows"
    apart = (
        button["y"] >= notice["y"] + notice["height"]
        or button["x"] >= notice["x"] + notice["width"]
        or notice["y"] >= button["y"] + button["height"]
        or notice["x"] >= button["x"] + button["width"]
    )
    assert apart, f"the button {button} overlaps the notice {notice}"


@pytest.mark.parametrize("zoom", ZOOMS)
def test_the_class_rooms_presenter_screen_reflows_at_browser_zoom(
    projector, zoom: int, save_screenshot: Callable
) -> None:
    page = projector(zoom)
    page.goto(state_url([], present="1"))
    page.get_by_role("button", name="Start a class room").click()
    expect(page.locator("main.room-teach")).to_be_visible()
    page.goto(page.url.split("?")[0] + "?present=1")
    expect(page.locator("main.room-teach.present")).to_be_visible()
    save_screenshot(page, f"room-presenter-zoom-{zoom}")
    problems = page.evaluate(SIDEWAYS)
    assert not problems, "\n".join(problems)
