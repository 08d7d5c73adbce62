"""The decoding page as a class uses it: opened from the stepper's Share panel, searched again from its form, the
tree stepped one level at a time with every node's figure the JSON twin's; on the projector (1280x720) the steps
shown fit the screen in type the back row reads; on a phone in German without JavaScript it opens on the step
shown and its form still works."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

from playwright.sync_api import Browser, Page, expect

QUERY = {"prompt": "We had", "width": "2", "max_new_tokens": "3"}  # the guide's example, on the default model


def api_decode(page: Page, url: str) -> dict:
    """The JSON twin of a /decode page's search, through the context's request API."""
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items() if k != "level"}
    return page.request.get(f"/api/decode?{urlencode(query)}").json()


def tree_nodes(page: Page) -> list[tuple[str, str, str]]:
    """Each node of the tree: (its fate, its token, its total), in the page's order."""
    return page.locator(".decode-tree g.decode-node").evaluate_all(
        "gs => gs.map(g => [g.getAttribute('class').split(' ')[1],"
        " ...[...g.querySelectorAll('text')].map(t => t.textContent)])")


def test_the_page_from_the_stepper_searches_again_and_steps_its_tree_with_the_twins_figures(
    browser: Browser, app_url: str, save_screenshot
) -> None:
    context = browser.new_context(base_url=app_url, viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page = context.new_page()
    page.goto("/?" + urlencode({"prompt": "We had", "seed": "3"}))
    for n in range(1, 3):
        page.locator("#controls .buttons").get_by_role("button", name="Step", exact=True).click()
        expect(page.locator(".text-so-far .gen")).to_have_count(n)
    page.locator(".decode-link a").click()
    expect(page.locator("#decode-heading")).to_have_text("Greedy and beam search")
    expect(page.locator(".decode-table tbody tr")).to_have_count(1 + 4 + 1)  # greedy, four beams, the stepper's
    expect(page.locator(".decode-table tbody th").last).to_have_text("Sampled (the stepper's text)")

    page.get_by_label("Beam width").select_option("2")
    page.get_by_label("New tokens, at most").select_option("3")
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"width=2"))
    assert parse_qs(urlsplit(page.url).query)["ids"], "the stepper's text stays in the address"
    expect(page.locator("#tree-heading")).to_have_text("The tree of beams: step 3 of 3")
    twin = api_decode(page, page.url)

    for level in (3, 2, 1):
        expect(page.locator("#tree-heading")).to_have_text(f"The tree of beams: step {level} of 3")
        nodes = tree_nodes(page)
        assert nodes[0] == ["prompt", "the prompt", "0"]
        shown = nodes[1:]
        expected = [(c["fate"], c["total"]) for lvl in twin["levels"][:level] for c in lvl["candidates"]]
        assert [(fate, float(total)) for fate, _token, total in shown] == [
            (fate, round(total, 2)) for fate, total in expected]
        if level > 1:
            page.get_by_role("link", name="← Previous step").click()
    expect(page.get_by_role("link", name="← Previous step")).to_have_count(1)  # step 1 goes back to the prompt alone
    page.get_by_role("link", name="Next step →").click()
    expect(page.locator("#tree-heading")).to_have_text("The tree of beams: step 2 of 3")

    greedy, best = twin["greedy"], twin["beams"][0]
    assert best["ids"][0] != greedy["ids"][0] and best["total"] > greedy["total"]
    example = page.locator(".decode-example")
    expect(example).to_contain_text(f"= {greedy['total']:.3f}.")
    expect(example).to_contain_text(f"= {best['total']:.3f}.")
    save_screenshot(page, "decode-laptop")
    context.close()


def test_the_projector_fits_the_steps_shown_in_type_the_back_row_reads(
    browser: Browser, app_url: str, save_screenshot
) -> None:
    context = browser.new_context(base_url=app_url, viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    page = context.new_page()
    for query in ({**QUERY, "present": "1"}, {"prompt": "It is a truth", "present": "1", "level": "5"}):
        page.goto("/decode?" + urlencode(query))
        tree = page.locator(".decode-tree svg").bounding_box()
        assert tree["y"] + tree["height"] <= 720 and tree["x"] + tree["width"] <= 1280, "the tree fits the screen"
        scale = tree["width"] / float(page.locator(".decode-tree svg").get_attribute("width"))
        font = 13 * scale  # the SVG's type is 13 units
        assert font >= 18, f"the tree's type is {font:.1f} px"
        assert not page.locator(".decode-lead").is_visible()  # the projector keeps the figures
    page.keyboard.press("PageDown")  # what a presentation clicker sends
    expect(page.locator("#tree-heading")).to_have_text("The tree of beams: step 6 of 6")
    for level in (5, 4):
        page.keyboard.press("PageUp")
        expect(page.locator("#tree-heading")).to_have_text(f"The tree of beams: step {level} of 6")
    save_screenshot(page, "decode-projector")
    context.close()


def test_a_phone_in_german_without_javascript_opens_on_the_step_shown_and_its_form_works(
    browser: Browser, app_url: str, save_screenshot
) -> None:
    context = browser.new_context(base_url=app_url, viewport={"width": 390, "height": 844}, java_script_enabled=False,
                                  locale="de-DE", extra_http_headers={"Accept-Language": "de"})
    page = context.new_page()
    page.goto("/decode?" + urlencode({"prompt": "It is a truth", "level": "2"}))
    expect(page.locator("#decode-heading")).to_have_text("Greedy-Suche und Beam-Suche")
    box = page.locator(".decode-tree").bounding_box()
    last = page.locator(".decode-tree g.decode-node").last.bounding_box()
    assert box["x"] <= last["x"] and last["x"] + last["width"] <= box["x"] + box["width"], "the step shown is in view"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "only the tree's own box scrolls sideways"
    overlaps = page.locator(".decode-tree g.decode-node").evaluate_all("""gs => gs.filter(g => {
        const [label, total] = [...g.querySelectorAll('text')].map(t => t.getBoundingClientRect());
        return label.right > total.left - 2; }).length""")
    assert overlaps == 0, "a node's token runs into its total"
    page.get_by_label("Strahlbreite").select_option("3")
    page.get_by_role("button", name="Suchen").click()
    expect(page).to_have_url(re.compile(r"width=3"))
    expect(page.locator(".decode-table tbody tr")).to_have_count(1 + 3)
    expect(page.locator(".decode-example h2")).to_contain_text("wahrscheinlichste")
    save_screenshot(page, "decode-phone-de")
    context.close()
