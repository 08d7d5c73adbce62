"""Templates without their indentation: each line's leading spaces are dropped when a template compiles.

The templates are indented for people to read; a browser collapses the indentation, yet it was
about one byte in seven of a Step's HTML. The Jinja extension here removes the spaces and tabs
that follow a newline in the templates' text, once, when a template is compiled (nothing is done
per request). Only the templates' text is touched (what lies between the tags), never an
expression, a string in one or a message: "{{ _('a b') }}" stays as it is. The newline itself is
kept, so two words on two lines never run together, and whitespace control (`{%-`, `-%}`) works as
before. Inside <pre>, <textarea> and <script>, where whitespace is content, nothing is dropped.

    '<ul>\\n    <li>a</li>\\n  </ul>' -> '<ul>\\n<li>a</li>\\n</ul>'
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

PROTECTED = ("pre", "textarea", "script")  # elements whose whitespace the browser shows or runs
_TAG = re.compile(r"<(/?)(" + "|".join(PROTECTED) + r")\b", re.IGNORECASE)
_INDENT = re.compile(r"\n[ \t]+")


def strip_indent(text: str, inside: str | None = None) -> tuple[str, str | None]:
    """Drop the indentation after each newline of text, outside protected elements.

    `inside` is the protected element the text starts in (None: none), and the second value the one
    it ends in: ('<pre>\\n  a', None) -> ('<pre>\\n  a', 'pre'); ('b</pre>\\n  c', 'pre') -> ('b</pre>\\nc', None).
    """
    pieces = []
    at = 0
    for tag in _TAG.finditer(text):
        closing, name = tag.group(1) == "/", tag.group(2).lower()
        if inside is None and not closing:
            pieces.append(_INDENT.sub("\n", text[at : tag.start()]))
            at, inside = tag.start(), name
        elif inside == name and closing:
            pieces.append(text[at : tag.end()])
            at, inside = tag.end(), None
    rest = text[at:]
    pieces.append(rest if inside else _INDENT.sub("\n", rest))
    return "".join(pieces), inside


class StripIndent(Extension):
    """A Jinja extension: the templates' text without each line's indentation (see the module's docstring)."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        inside = None
        at_start = True  # the template's first line has no newline before it
        for token in stream:
            if token.type == "data":
                value = token.value.lstrip(" \t") if at_start and inside is None else token.value
                value, inside = strip_indent(value, inside)
                token = Token(token.lineno, token.type, value)
            at_start = False
            yield token
