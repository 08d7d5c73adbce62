"""Share: a QR code and the link of this screen, copied with one click."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from on_screen import click_step
from playwright.sync_api import Page, expect
from stepping import state_url


def same_screen(link: str, url: str) -> bool:
    """Tell whether a share link opens the screen at url: same host, and the same state once defaults are filled."""
    a, b = urlsplit(link), urlsplit(url)
    qa, qb = ({k: v[0] for k, v in parse_qs(x.query).items() if k != "guide"} for x in (a, b))  # guide=0: students
    # the link names the sender's language too (English: these browsers ask for it) and opens in it anywhere
    defaults = {"model": qa.get("model"), "temperature": qa.get("temperature"), "lang": "en"}
    return a.netloc == b.netloc and a.path == b.path == "/" and qa == {**defaults, **qb}


@pytest.mark.browser_context_args(reduced_motion="reduce", permissions=["clipboard-read", "clipboard-write"])
def test_share_shows_a_qr_code_and_the_link_of_this_screen(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:2]))
    qr = page.get_by_role("img", name="QR code")
    link = page.get_by_label("Link to this screen")

    expect(qr).to_be_visible()
    qr.scroll_into_view_if_needed()  # fetched when it comes into view (loading="lazy")
    expect(qr).to_have_js_property("complete", True)
    expect(qr).not_to_have_js_property("naturalWidth", 0)  # the SVG loaded and drew
    assert same_screen(link.input_value(), page.url)

    click_step(page, 2)
    expect(link).to_have_value(re.compile(r"[?&]ids=\d+,\d+,\d+(?:&|$)"))  # follows the screen
    assert same_screen(link.input_value(), page.url)
    expect(qr).to_have_attribute("src", re.compile(r"/qr\.svg\?.*ids=\d+(?:%2C|,)\d+(?:%2C|,)\d+"))
    qr.scroll_into_view_if_needed()
    expect(qr).not_to_have_js_property("naturalWidth", 0)

    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#copy-status")).to_have_text("Link copied.")


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
def test_on_127_0_0_1_a_warning_beside_the_qr_code_says_how_to_serve_the_room(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids[:1]))
    qr = page.get_by_role("img", name="QR code")
    warning = page.locator("#share #loopback-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Phones cannot open this link yet")
    expect(warning.locator("code")).to_have_text(
        "token-by-token --host 0.0.0.0"
        + ("" if urlsplit(page.url).port == 8000 else f" --port {urlsplit(page.url).port}")
    )
    a, b = qr.bounding_box(), warning.bounding_box()
    assert abs(a["y"] - b["y"]) < 40 and b["x"] > a["x"] + a["width"], "beside the QR code, not below the fold"
    address = warning.locator(".address")
    if address.count():
        expect(address).to_have_text(re.compile(r"^http://\d+\.\d+\.\d+\.\d+:\d+/$"))
