"""Hostile input at every endpoint: never a 5xx, and every 4xx says what was wrong in words.

Hypothesis builds whole requests: a path (every rule of the app's URL map, static files included,
plus unknown ones), a method, a raw query string (percent-encoded or not, invalid UTF-8, broken
escapes, repeated parameters, forged id lists, NaN, infinities, huge and negative numbers, control
characters, very long text), htmx headers and sometimes a body. The same strategies drive
bench/fuzz_run.py, which sends 10,000 and more.
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .markup import parse

MAX_EXAMPLES = 1200  # about 20 s on a 2-core machine; bench/fuzz_run.py runs the same strategies at 10,000+

# Every query parameter some endpoint reads (unknown ones must be ignored), and a few that none does.
PARAMS = ["prompt", "model", "temperature", "top_k", "top_p", "min_p", "seed", "ids", "full", "src", "at", "r",
          "predict", "reveal", "present", "token", "q", "step", "x", "", "ids[]", "prompt\x00", "__class__"]
STATIC_FILES = ["css/app.css", "js/pick.js", "vendor/htmx.min.js", "favicon.svg", "nope.js", "../README.md",
                "..%2f..%2fetc%2fpasswd", "/etc/passwd", "css/", "%00", "vendor/../../webapp/__init__.py",
                "a" * 300]
METHODS = ["GET"] * 8 + ["HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]
SECURITY_HEADERS = ["Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"]

def long_id_list(size_and_seed: tuple[int, int]) -> str:
    """A valid-looking list of ids, too many of them: drawn outside Hypothesis, which is slow at 1,000 draws."""
    size, seed = size_and_seed
    return ",".join(map(str, random.Random(seed).choices(range(5000), k=size)))


# Numbers too large for a float or a C integer: "1" and 309 zeros was a 500 in a template once.
HUGE = ["1" + "0" * 309, "-1" + "0" * 309, "1" + "0" * 4000, "9" * 4300, "1e309", str(2**64), str(2**63)]
NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(HUGE),
    st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e400", "-1e400", "1e-400", "0x10", "1_000",
                     " 1 ", "+1", "-0", "-0.0", "0.1.2", "١٢", "½", "1e", "e", ".", "9" * 400, "1/0", "None",
                     "true", "[]", "{}", "0" * 50 + "1"]),
)
IDS = st.one_of(
    st.lists(st.integers(min_value=-10, max_value=6000), max_size=40).map(lambda xs: ",".join(map(str, xs))),
    st.tuples(st.integers(1000, 1100), st.integers(0, 2**32)).map(long_id_list),  # at and over the limit
    st.sampled_from(["1,,2", ",", "1,", ",1", "1;2", "1 2", " 1 , 2 ", "1,x", str(10**30), "-0", "0x1", "1.0",
                     "٣", "1," * 2000, "9" * 5000]),
)
TEXT = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
    st.text(alphabet=st.sampled_from(string.printable + "\x00\x01\x1b\x7f\u2028\u202e\ufeff<>\"'&{}%"), max_size=80),
    st.sampled_from(["<img src=x onerror=alert(1)>", "</script><script>alert(1)</script>", "{{7*7}}",
                     "{% for x in range(3) %}x{% endfor %}", "\r\n\r\n", "\n\n\n", "javascript:alert(1)",
                     "austen-bigram", "austen-transformer", "../models/austen-bigram", "s,f,0.5", "f"]),
    st.integers(min_value=2001, max_value=30_000).map(lambda n: "word " * (n // 5)),
)
VALUES = st.one_of(NUMBERS, IDS, TEXT)


@dataclass
class FuzzRequest:
    """One request, raw: method, path, the query string's exact bytes, headers and body."""

    method: str
    path: str
    query: bytes
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def __repr__(self) -> str:
        return f"{self.method} {self.path}?{self.query[:300]!r} headers={self.headers} body={len(self.body)} bytes"


def encode_pair(name: str, value: str, how: str) -> bytes:
    """One name=value pair as raw query bytes: percent-encoded, left raw, or partly broken."""
    if how == "quoted":
        return f"{quote(name, safe='')}={quote(value, safe='')}".encode()
    if how == "plus":
        return f"{quote(name)}={quote(value, safe=',').replace('%20', '+')}".encode()
    if how == "raw":  # what a careless client sends: spaces, & and # unescaped, non-ASCII as UTF-8
        return f"{name}={value}".encode("utf-8", "surrogatepass")
    return f"{quote(name, safe='')}={quote(value, safe='')}".encode() + how.encode("latin-1")


BROKEN = ["%", "%G1", "%FF%FE", "%ED%A0%80", "%C0%AF", "%00", "%E2%82", "%%", "%2", "\xff", "\x80abc"]


# A valid screen to start from half of the time, so that hostile text also reaches the rendering.
VALID = st.fixed_dictionaries({
    "prompt": TEXT,
    "temperature": st.sampled_from(["0", "0.05", "0.7", "1", "1.0", "2", "5", "1e-300"]),
    "seed": st.integers(0, 2**63 - 1).map(str),
    "ids": st.lists(st.integers(0, 1999), max_size=30).map(lambda xs: ",".join(map(str, xs))),
}, optional={
    "top_k": st.integers(1, 6000).map(str),
    "top_p": st.sampled_from(["0.01", "0.5", "0.9", "1"]),
    "min_p": st.sampled_from(["0", "0.05", "1"]),
})


@st.composite
def query_strings(draw) -> bytes:
    pairs = draw(st.lists(st.tuples(st.sampled_from(PARAMS), VALUES), max_size=8))
    if pairs and draw(st.booleans()):  # the same parameter again, with another value
        pairs.append((pairs[0][0], draw(VALUES)))
    how = st.sampled_from(["quoted"] * 4 + ["plus", "raw"] + BROKEN)
    parts = [encode_pair(name, value, draw(how)) for name, value in pairs]
    if draw(st.booleans()):  # a good screen, well encoded, with none to two hostile pairs
        good = [encode_pair(name, value, draw(st.sampled_from(["quoted", "plus"])))
                for name, value in draw(VALID).items()]
        parts = good + parts[: draw(st.integers(0, 2))]
    if draw(st.integers(0, 9)) == 0:
        parts.append(draw(st.sampled_from([b"&&&", b"=", b"==", b"ids", b"prompt", b"a" * 20_000])))
    return b"&".join(parts)


@st.composite
def fuzz_requests(draw, paths: list[str]) -> FuzzRequest:
    """A hostile request to one of `paths` (the app's routes; <...> parts filled in)."""
    path = draw(st.sampled_from(paths))
    if "<" in path:
        path = path.split("<", 1)[0] + draw(st.sampled_from(STATIC_FILES))
    if draw(st.integers(0, 19)) == 0:
        path = draw(st.sampled_from(["/nowhere", "/api/", "/api/step/", "//step", "/step%00", "/%2e%2e/", "/STEP",
                                     "/" + "x" * 5000]))
    headers = {}
    if draw(st.booleans()):
        headers["HX-Request"] = draw(st.sampled_from(["true", "false", "TRUE", "", "1", "true\x00"]))
    if draw(st.integers(0, 5)) == 0:
        headers["HX-History-Restore-Request"] = "true"
    method = draw(st.sampled_from(METHODS))
    body = b""
    if method in ("POST", "PUT", "PATCH") and draw(st.booleans()):
        body = draw(st.sampled_from([b"prompt=x", b"\xff\xfe" * 10, b"{}", b"a" * 70_000]))
    return FuzzRequest(method, path, draw(query_strings()), headers, body)


def route_paths(app) -> list[str]:
    """Every route of the app (static included), each once."""
    return sorted({rule.rule for rule in app.url_map.iter_rules()})


def send(client, req: FuzzRequest):
    """Send req as a WSGI server would hand it over: the query string as raw bytes (latin-1 in environ)."""
    return client.open(req.path, method=req.method, headers=req.headers, data=req.body,
                       environ_overrides={"QUERY_STRING": req.query.decode("latin-1")})


def problems(req: FuzzRequest, response) -> list[str]:
    """What is wrong with the answer to req: a 5xx, a missing header, a 4xx without a readable message."""
    found = []
    status = response.status_code
    if status >= 500:
        found.append(f"{status}")
    for name in SECURITY_HEADERS:
        if name not in response.headers:
            found.append(f"no {name}")
    if 400 <= status < 500 and req.method != "HEAD":
        message = error_message(response)
        if not message or not message.strip():
            found.append(f"{status} without a message")
        elif "Traceback" in message or 'File "' in message or len(message) > 400:
            found.append(f"{status} with a dump: {message[:200]!r}")
    return found


def error_message(response) -> str | None:
    """The message of a 4xx: the JSON "error", the error fragment's or error page's text."""
    body = response.get_data()
    if response.is_json:
        try:
            return json.loads(body).get("error")
        except (ValueError, AttributeError):
            return None
    doc = parse(body.decode("utf-8", "replace"))
    region = doc.find("p", "error-message")
    return region.text() if region is not None else None


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])
@given(data=st.data())
def test_hostile_requests_never_get_a_5xx_and_4xx_are_explained(app, data):
    req = data.draw(fuzz_requests(route_paths(app)))
    response = send(app.test_client(), req)
    try:
        assert problems(req, response) == [], repr(req)
    finally:
        response.close()


@given(query=query_strings())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_api_answers_any_query_with_json(app, query):
    response = send(app.test_client(), FuzzRequest("GET", "/api/step", query))
    assert response.status_code in (200, 400, 414), repr(query)
    body = response.get_json()
    assert isinstance(body, dict)
    if response.status_code != 200:
        assert set(body) == {"error"} and body["error"]


def test_route_paths_cover_the_endpoints(app):
    """The fuzzer reaches every page, fragment, API and static route the app has."""
    paths = route_paths(app)
    for path in ["/", "/step", "/back", "/reset", "/api/step", "/api/models", "/healthz", "/static/<path:filename>"]:
        assert path in paths


# Each route and the numeric parameters it reads: a huge number in any of them is a 4xx with a message.
STATE_NUMBERS = ["temperature", "top_k", "top_p", "min_p", "seed", "ids", "src", "at", "r", "many", "set_many",
                 "repetition_penalty", "presence_penalty", "frequency_penalty"]
NUMERIC_READS = {path: STATE_NUMBERS for path in ("/", "/step", "/back", "/reset", "/export.json", "/export.csv",
                                                   "/export-chain.csv", "/qr.svg", "/api/step", "/api/inside")}
NUMERIC_READS["/choose"] = [*STATE_NUMBERS, "token"]


@pytest.mark.parametrize("huge", HUGE)
@pytest.mark.parametrize(("path", "name"), [(p, n) for p, names in NUMERIC_READS.items() for n in names])
@pytest.mark.parametrize("headers", [{}, {"HX-Request": "true"}], ids=["page", "htmx"])
def test_a_huge_number_in_any_parameter_on_any_route_is_a_4xx(app, path, name, huge, headers):
    query = {"prompt": "Mr. Darcy said", "ids": "5,6", "token": "7", name: huge}
    req = FuzzRequest("GET", path, "&".join(f"{k}={quote(v)}" for k, v in query.items()).encode(), headers)
    response = send(app.test_client(), req)
    assert 400 <= response.status_code < 500, repr(req)
    assert problems(req, response) == [], repr(req)


@pytest.mark.parametrize("path", ["/", "//step", "/api/step", "/healthz"])
@pytest.mark.parametrize("raw", ["prompt=a\rb", "prompt=\n", "x=\x00", "prompt=a\x7f"])
def test_a_raw_control_character_in_the_address_is_a_400(app, path, raw):
    """Browsers escape them (%0D); raw, '//step' would be redirected with a Location no header may hold."""
    req = FuzzRequest("GET", path, raw.encode())
    response = send(app.test_client(), req)
    assert response.status_code == 400
    assert problems(req, response) == []
