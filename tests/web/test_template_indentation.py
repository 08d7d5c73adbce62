"""The templates' indentation is dropped when they compile: the HTML is smaller, what it shows is not."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from jinja2 import DictLoader, Environment
from jinja2.ext import babel_extract

from webapp.web import asset_dir
from webapp.web.serving.indent import StripIndent, strip_indent

from .markup import HTMX

KEYWORDS = ("_", "gettext", "ngettext")
EXTENSION = f"{StripIndent.__module__}.{StripIndent.__name__}"
PROTECTED = re.compile(r"<(pre|textarea|script)\b.*?</\1>", re.S | re.I)


def render(source: str, **context) -> str:
    env = Environment(loader=DictLoader({"t.html": source}), extensions=[StripIndent], autoescape=True)
    return env.get_template("t.html").render(**context)


def test_each_lines_indentation_is_dropped_and_its_newline_kept():
    assert render("<ul>\n    <li>a</li>\n\t<li>b</li>\n  </ul>") == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"


def test_two_words_on_two_lines_stay_two_words():
    assert render("<p>one\n      two {{ x }}\n      three</p>", x="and") == "<p>one\ntwo and\nthree</p>"


def test_the_first_line_loses_its_indentation_too():
    assert render("   <p>a</p>") == "<p>a</p>"


@pytest.mark.parametrize("tag", ["pre", "textarea", "script", "PRE"])
def test_whitespace_inside_pre_textarea_and_script_is_kept(tag):
    source = f"<div>\n  <{tag} class=x>\n    a\n      b {{{{ x }}}}\n  c</{tag}>\n  </div>"
    assert render(source, x="y") == f"<div>\n<{tag} class=x>\n    a\n      b y\n  c</{tag}>\n</div>"


def test_expressions_and_their_strings_are_left_as_written():
    source = '<p>\n  {{ "a\n     b" }}\n  {% set s = "c\n   d" %}{{ s }}</p>'
    assert render(source) == "<p>\na\n     b\nc\n   d</p>"


def test_whitespace_control_works_as_before():
    assert render("<p>\n  {%- if x %}\n    yes\n  {%- endif %}\n</p>", x=True) == "<p>\nyes\n</p>"


def test_a_protected_element_can_span_the_texts_between_tags():
    text, inside = strip_indent("<pre>\n  a", None)
    assert (text, inside) == ("<pre>\n  a", "pre")
    text, inside = strip_indent("  b</pre>\n  <p>", inside)
    assert (text, inside) == ("  b</pre>\n<p>", None)


def test_every_message_reads_the_same_as_the_catalogs_have_it():
    """A message extracted with the extension is the one pybabel extracts without it (the catalogs' msgid)."""
    templates = sorted(Path(asset_dir("templates")).rglob("*.html"))
    assert templates
    for path in templates:
        source = path.read_bytes()
        plain = list(babel_extract(io.BytesIO(source), KEYWORDS, [], {}))
        stripped = list(babel_extract(io.BytesIO(source), KEYWORDS, [], {"extensions": EXTENSION}))
        assert [m[1:3] for m in stripped] == [m[1:3] for m in plain], path.name


def outside_protected(html: str) -> str:
    return PROTECTED.sub("", html)


@pytest.mark.parametrize("address", ["/?prompt=It+is+a+truth&present=1", "/vocab"])
def test_a_page_has_no_indented_line_outside_its_textarea(client, address):
    html = client.get(address).get_data(as_text=True)
    assert "</html>" in html
    assert not re.search(r"\n[ \t]+", outside_protected(html))


def test_the_prompts_own_spaces_and_newlines_reach_the_textarea_and_the_text(client):
    html = client.get("/?prompt=a%0A%20%20b").get_data(as_text=True)
    assert re.search(r"<textarea[^>]*>a\n  b</textarea>", html)
    assert '<span class="prompt-text">a\n  b</span>' in html


def test_a_steps_fragments_have_no_indented_line(client):
    html = client.get("/step?prompt=It+is+a+truth", headers=HTMX).get_data(as_text=True)
    assert "hx-swap-oob" in html
    assert not re.search(r"\n[ \t]+", outside_protected(html))
