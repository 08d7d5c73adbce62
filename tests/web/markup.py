"""Read the app's HTML back into a small tree (standard library only), and the figures it shows.

The tests compare what the page shows with what the JSON twin returns, so this module
turns the logits table, the rest row and the pick sentence back into strings, cell by cell.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HTMX = {"HX-Request": "true"}
# the worked examples: <details id="worked-NAME">
WORKED = ("encode", "logits", "softmax", "sampling", "uncertainty", "decode")


@dataclass
class Element:
    """One element: its tag, attributes and children (elements and text)."""

    tag: str
    attrs: dict[str, str | None]
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        """All the text inside, as the browser would read it (entities decoded)."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def own_text(self) -> str:
        """The text directly inside, leaving out child elements: '<td>3 % <span>x</span></td>' -> '3 % '."""
        return "".join(c for c in self.children if isinstance(c, str))

    def iter(self) -> Iterator[Element]:
        """This element and every element inside it, in document order."""
        yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]

    def find(self, tag: str | None = None, cls: str | None = None) -> Element | None:
        found = self.find_all(tag, cls)
        return found[0] if found else None

    def by_id(self, id_: str) -> Element | None:
        return next((e for e in self.iter() if e.attrs.get("id") == id_), None)

    def top_level(self) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element)]


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str | bytes) -> Element:
    """Parse a page or a fragment into a tree rooted at a '#document' element."""
    builder = _TreeBuilder()
    builder.feed(html.decode() if isinstance(html, bytes) else html)
    builder.close()
    return builder.root


def words(element: Element | None) -> str:
    """The element's text with runs of white space as one space."""
    assert element is not None
    return " ".join(element.text().split())


def read_text(element: Element) -> str:
    """The text a reader sees before hovering: the glossary's definitions (span.term-def) left out."""
    if "term-def" in element.classes:
        return ""
    return "".join(c if isinstance(c, str) else read_text(c) for c in element.children)


def seen_words(element: Element | None) -> str:
    """words(), without the glossary's definitions."""
    assert element is not None
    return " ".join(read_text(element).split())


def unfold(client, doc: Element) -> Element:
    """Open every fold of the page as its link does without JavaScript, in place: each folded <details>
    gets the body that the link's page shows for it (webapp/web/stages/folds.py)."""
    for details in doc.find_all("details"):
        link = details.find("a", "fold-link")
        if "data-fold" not in details.attrs or link is None:
            continue
        response = client.get(link.attrs["href"])
        assert response.status_code == 200, response.get_data(as_text=True)
        opened = parse(response.data).by_id(details.attrs["id"])
        assert opened is not None and "open" in opened.attrs
        details.children = opened.children
    return doc


def query_of(url: str) -> dict[str, str]:
    """'/?prompt=a+b&ids=1,2' -> {'prompt': 'a b', 'ids': '1,2'}."""
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def ids_of(url: str) -> list[int]:
    """The generated ids in a state URL: '/?ids=4,2' -> [4, 2]; none -> []."""
    text = query_of(url).get("ids", "")
    return [int(i) for i in text.split(",")] if text else []


def hidden_fields(doc: Element) -> dict[str, str]:
    """The state the controls form sends in hidden inputs: {'ids': '4,2', 'at': '0'}."""
    fields = doc.by_id("state-fields")
    assert fields is not None, "no state fields"
    return {e.attrs["name"]: e.attrs["value"] for e in fields.find_all("input") if e.attrs.get("name")}


# What the page should show for a figure, written independently of webapp.web.i18n.filters.


def pct(p: float) -> str:
    """0.31049 -> '31.0 %'; 0 < p < 0.05 % -> '<0.1 %'; exactly 0 -> '0 %'."""
    if p == 0:
        return "0 %"
    return "<0.1 %" if p < 0.0005 else f"{100 * p:.1f} %"


def num(x: float | None) -> str:
    """-2.18521 -> '−2.185' with a true minus; None (z/T at T = 0) -> '—'."""
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.3f}".replace("-", "\N{MINUS SIGN}")


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
POWER = re.compile(r"^(?P<mantissa>\S+) × 10(?P<exponent>[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$")


def read_number(text: str) -> float:
    """A number as the page writes it for a pupil, back to a float: '336,418', '601.8', '3.364 × 10⁻⁷'."""
    m = POWER.match(text)
    if m:
        exponent = m["exponent"].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        return float(m["mantissa"].replace("\N{MINUS SIGN}", "-")) * 10 ** int(exponent)
    return float(text.replace(",", "").replace("\N{MINUS SIGN}", "-"))


def label(token: str) -> str:
    return "¶" if token == "<p>" else token


def span(lo: float | None, hi: float | None, digits: int = 3, width: float | None = None) -> str:
    """[0.62, 0.91) -> '[0.620, 0.910)'; a range too narrow for the digits: '[1.000, 1.000 + 2.3 × 10⁻³⁰)'."""
    if lo is None:
        return "—"
    low, high = f"{lo:.{digits}f}", f"{hi:.{digits}f}"
    if low != high:
        return f"[{low}, {high})"
    mantissa, exponent = f"{(hi - lo if width is None else width):.1e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")  # '7.0' reads '7'
    return f"[{low}, {low} + {mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)})"


def digits(step: dict, taken: bool) -> int:
    """The digits the page gives ranges: the fewest from 3 to 4 that keep every shown range (kept rows,
    the rest's pieces) from reading empty."""
    spans = [(row["lo"], row["hi"]) for row in step["rows"] if row["kept"]] + [tuple(p) for p in step["rest"]["ranges"]]
    wide = [(lo, hi) for lo, hi in spans if hi - lo >= 1e-4]  # narrower ones show their width
    return next((d for d in range(3, 5) if all(f"{lo:.{d}f}" != f"{hi:.{d}f}" for lo, hi in wide)), 4)


def pick_digits(step: dict) -> int:
    """The digits of the pick sentence: the table's, or more (up to 8) until r reads inside its range."""
    chosen = step["chosen"]
    for d in range(digits(step, True), 9):
        lo, hi, r = (f"{x:.{d}f}" for x in (chosen["lo"], chosen["hi"], step["r"]))
        if lo <= r < hi:
            return d
    return 8


@dataclass(frozen=True)
class TableRow:
    """One row of the rendered logits table, as the strings on screen."""

    classes: frozenset[str]
    rank: str
    token: str
    badges: tuple[str, ...]
    id: str
    logit: str
    scaled: str
    prob: str
    prob_kept: str | None  # the 'kept: x %' note, if shown
    range: str


def logits_rows(doc: Element) -> list[TableRow]:
    """Read the body rows of the logits table."""
    table = doc.find("table", "logits-table")
    assert table is not None, "no logits table"
    rows = []
    for tr in table.find("tbody").find_all("tr"):
        cells = tr.find_all("td")
        assert len(cells) == 8, f"a row with {len(cells)} cells"  # the last holds the "choose" button
        note = cells[5].find("span", "renorm")
        rows.append(
            TableRow(
                classes=frozenset(tr.classes),
                rank=cells[0].text().strip(),
                token=cells[1].find("span", "tok").text(),
                badges=tuple(b.text() for b in cells[1].find_all("span", "badge")),
                id=cells[2].text().strip(),
                logit=cells[3].text().strip(),
                scaled=cells[4].text().strip(),
                prob=cells[5].own_text().strip(),
                prob_kept=note.text().strip() if note else None,
                range=cells[6].text().strip(),
            )
        )
    return rows


def rest_row(doc: Element) -> dict[str, str]:
    """Read the last row: '4,980 other tokens (4,975 cut)', its probability and its range."""
    tr = doc.find("table", "logits-table").find("tfoot").find("tr", "rest")
    cells = [c for c in tr.top_level() if c.tag in ("td", "th")]
    assert len(cells) == 8, f"the last row has {len(cells)} cells"  # the table's columns (logits_rows)
    return {
        "label": " ".join(cells[1].text().split()),
        "prob": cells[5].text().strip(),
        "range": " ".join(" ".join(cells[6].text().split()).replace(")and ", ") and ").split()),
    }


PICK = re.compile(r"r = (\d\.\d+) falls in (\[\d\.\d+, [^)]+\)): '(.*)'")


def pick_sentence(doc: Element) -> tuple[str, str, str] | None:
    """'r = 0.734 falls in [0.620, 0.910): 'girl'' -> ('0.734', '[0.620, 0.910)', 'girl'); None before a pick."""
    match = PICK.search(" ".join(doc.by_id("pick-sentence").text().split()))
    return match.groups() if match else None
