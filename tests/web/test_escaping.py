"""User text is escaped everywhere it comes back: page, fragments, error page, error fragment."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from .markup import HTMX, parse

PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(1)</script>",
    "{{7*7}}",
    '"><svg onload=alert(1)>',
    "' onmouseover='alert(1)",
    "</textarea><b>bold</b>",
    "{% for x in range(3) %}loop{% endfor %}",
]
RAW = [p for p in PAYLOADS if "<" in p or '"' in p]


def assert_inert(html: str, payload: str, echoed: bool = True) -> None:
    """The payload is there only as text: no new elements, no event-handler attributes, no template run."""
    if "<" in payload:
        assert payload not in html, "raw markup from the user"
    doc = parse(html)
    for element in doc.iter():
        assert not any(name.startswith("on") for name in element.attrs), f"<{element.tag} {element.attrs}>"
        ours = element.tag == "img" and element.attrs.get("alt") == "QR code"  # the page's own QR image
        assert ours or element.tag not in {"img", "b", "iframe"}, f"a <{element.tag}> from the user"
        if element.tag == "script":
            assert element.attrs.get("src") and not element.text().strip(), "an inline script"
    assert "looplooploop" not in html
    if echoed:
        assert payload in doc.text(), "the text comes back as typed, not run as a template"


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("path", ["/", "/step", "/back", "/reset"])
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_prompt_is_escaped(client, payload, path, headers):
    response = client.get(f"{path}?{urlencode({'prompt': payload})}", headers=headers, follow_redirects=True)
    assert response.status_code == 200
    assert_inert(response.get_data(as_text=True), payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_prompt_comes_back_as_typed(client, payload):
    """Escaped, not mangled: the text box and the text so far read exactly the prompt."""
    doc = parse(client.get(f"/?{urlencode({'prompt': payload})}").data)
    assert doc.by_id("prompt").text() == payload
    assert doc.by_id("text").find("span", "prompt-text").text() == payload
    for chip in doc.by_id("tokens").find_all("li", "chip-unk"):
        source = chip.find("span", "chip-source").text()
        assert source in payload
        assert chip.attrs["title"] == f"not in the vocabulary: {source}"


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("name", ["model", "temperature", "top_k", "seed", "ids"])
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_bad_values_are_escaped_in_the_error(client, payload, name, headers):
    response = client.get(f"/step?{urlencode({name: payload})}", headers=headers)
    assert response.status_code == 400
    assert_inert(response.get_data(as_text=True), payload, echoed=name != "ids")


@pytest.mark.parametrize("payload", RAW)
def test_api_error_is_json_not_html(client, payload):
    response = client.get(f"/api/step?{urlencode({'model': payload})}")
    assert response.status_code == 400
    assert response.mimetype == "application/json"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert payload in response.json["error"], "JSON carries the text as data"


def test_api_carries_the_prompt_as_data(client):
    payload = PAYLOADS[0]
    step = client.get(f"/api/step?{urlencode({'prompt': payload})}").json
    assert step["prompt"] == payload
    assert step["text"] == payload


def test_push_url_is_encoded(client):
    response = client.get(f"/step?{urlencode({'prompt': PAYLOADS[1]})}", headers=HTMX)
    pushed = response.headers["HX-Push-Url"]
    assert "<" not in pushed and " " not in pushed and '"' not in pushed
