"""Hostile input at every endpoint: never a 5xx, and every 4xx says what was wrong in words.

Hypothesis builds whole requests: a path (every rule of the app's URL map, static files included,
plus unknown ones), a method, a raw query string (percent-encoded or not, invalid UTF-8, broken
escapes, repeated parameters, forged id lists, NaN, infinities, huge and negative numbers, control
characters, very long text), htmx headers and sometimes a body. The class room's routes get rooms
that exist (and codes that do not), the teacher's and a student's cookies (right, wrong, forged),
an Origin (this site's, another's, none, one that does not parse) and forms of any of their fields.
No answer is a 5xx, but a 503 the app means (busy, full: it says when to try again); none that says
it is JSON is not strict JSON. The same strategies drive bench/fuzz_run.py, which sends 10,000 and more.
"""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from webapp.web import create_app

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
    """What is wrong with the answer to req: a 5xx (but a 503 that says when to try again), a missing header,
    a 4xx without a readable message, JSON that is not strict JSON."""
    found = []
    status = response.status_code
    if status >= 500 and not (status == 503 and response.headers.get("Retry-After")):
        found.append(f"{status}")
    for name in SECURITY_HEADERS if status != 304 else ():  # a 304 has no body: the kept answer's headers hold
        if name not in response.headers:
            found.append(f"no {name}")
    if response.is_json and req.method != "HEAD" and not strict_json(response.get_data()):
        found.append(f"{status} with JSON that does not parse strictly")
    if 400 <= status < 500 and req.method != "HEAD":
        message = error_message(response)
        if not message or not message.strip():
            found.append(f"{status} without a message")
        elif "Traceback" in message or 'File "' in message or len(message) > 400:
            found.append(f"{status} with a dump: {message[:200]!r}")
    return found


def strict_json(body: bytes) -> bool:
    """Whether body is JSON every parser reads: no NaN or Infinity, valid UTF-8."""

    def refuse(name: str):
        raise ValueError(f"{name} is not JSON")

    try:
        json.loads(body.decode("utf-8"), parse_constant=refuse)
    except ValueError:
        return False
    return True


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


# --- the class room -----------------------------------------------------------------------------

# The room's routes (test_room_rules_are_the_app_s checks them against the app's URL map).
ROOM_RULES = ["/join", "/room", "/room/<code>", "/room/<code>/end", "/room/<code>/lesson", "/room/<code>/lesson/go",
              "/room/<code>/live", "/room/<code>/me",
              "/room/<code>/panel", "/room/<code>/qr.svg", "/room/<code>/remove", "/room/<code>/results.json",
              "/room/<code>/roster", "/room/<code>/screen", "/room/<code>/settings", "/room/<code>/state",
              "/room/<code>/teach", "/room/<code>/vote", "/room/<code>/vote/restart",
              "/room/<code>/sentence", "/room/<code>/sentences", "/room/<code>/sentences.csv",
              "/room/<code>/sentences/open", "/room/<code>/sentences/close", "/room/<code>/sentences/remove",
              "/room/<code>/sentences/clear", "/room/<code>/build"]
ROOM_FIELDS = ["code", "nickname", "round", "token", "text", "url", "from", "action", "votes_on", "leaderboard",
               "present", "tally_shown", "student", "lesson", "link", "to", "stop"]
ROOM_EXAMPLES = 500
# Rooms that exist are named by stand-ins, filled in when a request is sent (send_to_room), so that a request
# the fuzzer found can be pinned with @example: ROOMS[i] is open room i, KEYS[i] its teacher's key, STUDENTS[i]
# the id of a student in it.
ROOMS, KEYS, STUDENTS = ["{room0}", "{room1}"], ["{key0}", "{key1}"], ["{student0}", "{student1}"]
UNKNOWN_CODES = ["ABCD2345", "abcd2345", "ABCD-2345", "", "ABC", "A" * 9, "0OIL0OIL", "%00%00%00%00", "../../..",
                 "ABCD234\u0665", "ＡＢＣＤ２３４５"]
ORIGINS = [None, "http://localhost", "http://localhost", "http://localhost/room", "null", "http://evil.example",
           "http://localhost:99999", "http://[::1", "http://[::1]:8000", "https://localhost", "//localhost", "",
           "javascript:alert(1)", "http://localhost\x00", "http://" + "a" * 300]
# What a room's forms hold when a browser sends them: the fuzzer starts from these half of the time.
GOOD_FORMS = {
    "/join": {"code": "{code}", "nickname": "Ada"},
    "/room": {"from": "/?prompt=The+girl&seed=3"},
    "/room/<code>/lesson": {"lesson": "article"},
    "/room/<code>/lesson/go": {"to": "1"},
    "/room/<code>/state": {"url": "/step?prompt=The+girl&seed=3&predict=1", "action": "step"},
    "/room/<code>/settings": {"votes_on": "1", "leaderboard": "1", "tally_shown": "1", "present": "1"},
    "/room/<code>/remove": {"student": "0123456789abcdef"},
    "/room/<code>/vote": {"round": "1", "token": "5"},
    "/room/<code>/sentences/open": {"topic": "school lunch"},
    "/room/<code>/sentences/remove": {"n": "1"},
    "/room/<code>/sentence": {"text": "We like lunch ."},
    "/room/<code>/build": {"mix": "0.7"},
}


@dataclass
class RoomRequest:
    """A request to a room's route: who sends it (their cookies), from which page (Origin), with what form.

    "{room0}", "{key0}" and "{student0}" anywhere in it stand for open room 0, its teacher's key and its student.
    """

    method: str
    path: str
    query: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (value, path)
    form: dict[str, str] = field(default_factory=dict)


@st.composite
def stepper_urls(draw) -> str:
    """A stepper address, as a room's form holds one: a screen, a Step, or not one at all."""
    query = draw(query_strings()).decode("latin-1")
    start = draw(st.sampled_from(["/?", "/step?", "/back?", "//evil.example/?", "http://[::1/?", "", "?", "/?x&"]))
    return start + query


FORM_VALUES = st.one_of(VALUES, stepper_urls(), st.integers(-3, 3).map(str),
                        st.sampled_from(["0", "1", "step", "show", "back", "choose", "article", "l:aaaaaaaaaa",
                                         "http://localhost/l/aaaaaaaaaa", "99"]))


@st.composite
def room_requests(draw) -> RoomRequest:
    """A hostile request to one of the room's routes. Half of them are what a browser in the room sends (a room
    that exists, its cookies, this site's Origin, a good form) with one thing or more changed; the rest anything."""
    rule = draw(st.sampled_from(ROOM_RULES))
    i = draw(st.sampled_from(range(len(ROOMS))))  # whose cookies the sender holds
    aimed = draw(st.booleans())
    code = ROOMS[i] if aimed else draw(st.sampled_from(ROOMS + UNKNOWN_CODES))
    cookies = {}
    if aimed or draw(st.booleans()):
        key = KEYS[i] if aimed else draw(st.sampled_from([KEYS[i], "x" * 43, "", "\x00"]))
        cookies["tbt_teacher"] = (key, f"/room/{ROOMS[i]}")
    if aimed or draw(st.booleans()):
        student = STUDENTS[i] if aimed else draw(st.sampled_from([STUDENTS[i], "y" * 43, "é" * 43]))
        cookies[f"tbt_student_{ROOMS[i]}"] = (student, "/")
    headers = {"Origin": "http://localhost"} if aimed else {}
    origin = draw(st.sampled_from(ORIGINS))
    if not aimed and origin is not None:
        headers[draw(st.sampled_from(["Origin", "Origin", "Referer"]))] = origin
    if draw(st.booleans()):
        headers["HX-Request"] = "true"
    if draw(st.integers(0, 3)) == 0:
        headers["If-None-Match"] = draw(st.sampled_from([f'"{code}-1"', f'"{code}-2"', "*", '"x"', "\x01"]))
    form = {k: v.replace("{code}", code) for k, v in GOOD_FORMS.get(rule, {}).items()} if aimed else {}
    for name in draw(st.lists(st.sampled_from(ROOM_FIELDS), min_size=1 if aimed else 0, max_size=4, unique=True)):
        form[name] = draw(FORM_VALUES)
    queries = [b"lang=de", b"present=1", b"lang=xx", b"code=" + code.encode("utf-8")]
    query = draw(st.one_of(st.just(b""), st.sampled_from(queries), *(() if aimed else (query_strings(),))))
    method = draw(st.sampled_from(["GET", "POST"] if aimed else ["GET", "POST", "POST", "HEAD", "PUT", "DELETE"]))
    return RoomRequest(method, rule.replace("<code>", code), query, headers, cookies, form)


@dataclass
class RoomWorld:
    """Rooms that exist, for the stand-ins of a RoomRequest: each one's code, teacher's key and a student's id."""

    codes: list[str]
    keys: list[str]
    students: list[str]

    def fill(self, text: str) -> str:
        for i, code in enumerate(self.codes):
            text = text.replace(ROOMS[i], code).replace(KEYS[i], self.keys[i]).replace(STUDENTS[i], self.students[i])
        return text


def open_rooms(app) -> RoomWorld:
    """Start a room for each stand-in and join a student to it, as browsers do."""
    world = RoomWorld([], [], [])
    page = {"Origin": "http://localhost"}
    for i in range(len(ROOMS)):
        answer = app.test_client().post("/room", data={"from": f"/?prompt=The+girl&seed={i}"}, headers=page)
        code = answer.headers["Location"].split("/")[2]
        joined = app.test_client().post("/join", data={"code": code, "nickname": f"S{i}"}, headers=page)
        world.codes.append(code)
        world.keys.append(re.search(r"tbt_teacher=([^;]+)", answer.headers["Set-Cookie"]).group(1))
        world.students.append(re.search(rf"tbt_student_{code}=([^;]+)", joined.headers["Set-Cookie"]).group(1))
    return world


def send_to_room(app, world: RoomWorld, req: RoomRequest):
    """Send req from a new browser holding its cookies, the stand-ins filled in; the form as a browser encodes
    it (UTF-8, escaped). Returns the answer and the request as sent (FuzzRequest, for problems())."""
    client = app.test_client()
    for name, (value, path) in req.cookies.items():
        client.set_cookie(world.fill(name), world.fill(value), path=world.fill(path))
    form = {k: world.fill(v).encode("utf-8", "surrogatepass").decode("utf-8", "replace") for k, v in req.form.items()}
    headers = {k: world.fill(v) for k, v in req.headers.items()}
    sent = FuzzRequest(req.method, world.fill(req.path), world.fill(req.query.decode("latin-1")).encode("latin-1"),
                       headers)
    response = client.open(sent.path, method=sent.method, headers=headers, data=form if req.method != "GET" else None,
                           environ_overrides={"QUERY_STRING": sent.query.decode("latin-1")})
    return response, sent


@pytest.fixture(scope="module")
def room_app(app, tmp_path_factory):
    """The app on a room store of its own, with rooms open and a student in each."""
    store = f"sqlite:///{tmp_path_factory.mktemp('fuzz-rooms') / 'rooms.sqlite3'}"
    rooms = create_app({"TESTING": True, "MODELS": app.extensions["models"], "ROOM_STORE": store})
    return rooms, open_rooms(rooms)


PAGE = {"Origin": "http://localhost"}


@settings(max_examples=ROOM_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.data_too_large])
@given(req=room_requests())
@example(req=RoomRequest("POST", "/room", form={"from": "http://[::1/?x"}, headers=PAGE))  # a 500: urlsplit
@example(req=RoomRequest("POST", "/room/{room0}/state", form={"url": "http://[::1/step?", "action": "step"},
                         headers=PAGE, cookies={"tbt_teacher": ("{key0}", "/room/{room0}")}))
@example(req=RoomRequest("POST", "/join", form={"code": "{room0}"}, headers={"Origin": "http://[::1"}))
def test_hostile_requests_to_the_class_room_never_get_a_5xx(room_app, req):
    app, world = room_app
    response, sent = send_to_room(app, world, req)
    try:
        assert problems(sent, response) == [], repr(req)
    finally:
        response.close()


def test_room_rules_are_the_app_s(app):
    """The fuzzer reaches every route of the class room."""
    assert sorted(ROOM_RULES) == sorted(p for p in route_paths(app) if p.startswith(("/room", "/join")))
