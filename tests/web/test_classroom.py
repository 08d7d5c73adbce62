"""The classroom features through the Flask test client: the state's new parameters, choose, teacher's r,
predict and reveal, presenter mode, the exports, and the share link with its QR code.
"""

from __future__ import annotations

import csv
import io
import json
import re
from urllib.parse import urlencode

import pytest
import segno

from webapp.inference import Settings, run_step
from webapp.inference.derived.export import CSV_COLUMNS, trace_to_dict
from webapp.web.screen import PRESENTER_ROWS
from webapp.web.state import State, parse_state

from .markup import HTMX, Element, ids_of, label, logits_rows, num, parse, pct, query_of, rest_row, span

PROMPT = "It is a truth universally acknowledged"
BASE = {"prompt": PROMPT, "seed": "7"}
SETTINGS = Settings(temperature=1.0, seed=7)
LAN = "192.168.1.20:8000"


def url(path: str, **params) -> str:
    return f"{path}?{urlencode(params, safe=',')}" if params else path


@pytest.fixture(scope="module")
def model(app):
    return app.extensions["models"][app.config["DEFAULT_MODEL"]]


@pytest.fixture(scope="module")
def three(model) -> list[int]:
    """Three ids picked by the seeded r with BASE's settings."""
    ids: list[int] = []
    for _ in range(3):
        ids.append(run_step(model, PROMPT, ids, SETTINGS).chosen.id)
    return ids


def other_than(model, ids: list[int], step: int) -> int:
    """A token of step `step`'s table that the seeded r did not pick: one to choose instead."""
    result = run_step(model, PROMPT, ids[:step], SETTINGS)
    return next(row.id for row in result.rows[1:] if row.id != result.chosen.id)


def joined(ids) -> str:
    return ",".join(map(str, ids))


def error_text(response) -> str:
    return " ".join(parse(response.data).by_id("error").text().split())


def page(client, **params) -> Element:
    response = client.get(url("/", **params))
    assert response.status_code == 200, error_text(response)
    return parse(response.data)


# --- reading the state --------------------------------------------------------------------------


def read(app, **params) -> State:
    return parse_state(params, app.extensions["models"], app.config["DEFAULT_MODEL"])


def test_src_at_r_and_the_flags_are_read(app, three):
    state = read(app, **BASE, ids=joined(three), src="s, f,0.25", at="1", r="0.5", predict="1", reveal="on",
                 present="true")
    assert state.sources == ("s", "f", 0.25)
    assert (state.at, state.next_r) == (1, 0.5)
    assert (state.predict, state.revealed, state.present) == (True, True, True)
    assert state.shown == 1
    assert state.given_r(2) == 0.25 and state.given_r(0) is None


def test_defaults_are_seeded_sources_and_no_flags(app, three):
    state = read(app, **BASE, ids=joined(three))
    assert state.sources == ("s", "s", "s")
    assert (state.at, state.next_r, state.predict, state.revealed, state.present) == (None, None, False, False, False)
    assert state.shown == 2


@pytest.mark.parametrize("value", ["", "0", "false", "FALSE", " 0 "])
def test_flags_can_be_switched_off(app, value):
    state = read(app, **BASE, predict=value, reveal=value, present=value)
    assert (state.predict, state.revealed, state.present) == (False, False, False)


@pytest.mark.parametrize(
    "state",
    [
        pytest.param({"src": "s,f,0.999", "at": "0", "r": "0.25"}, id="typed-forced-at-r"),
        pytest.param({"src": "f,f,f", "predict": "1", "reveal": "1", "present": "1"}, id="flags"),
        pytest.param({"src": "0.1,0.30000000000000004,1e-05"}, id="awkward-floats"),
        pytest.param({"r": "0.999999"}, id="r-only"),
    ],
)
def test_the_state_survives_its_own_url(app, three, state):
    first = read(app, **BASE, ids=joined(three), **state)
    again = read(app, **first.query())
    assert again == first


def test_all_seeded_sources_stay_out_of_the_url(app, three):
    assert "src" not in read(app, **BASE, ids=joined(three), src="s,s,s").query()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"src": "s,f"}, "src must have one entry per generated id (3), not 2"),
        ({"src": "s,f,s,s"}, "src must have one entry per generated id (3), not 4"),
        ({"src": "s,x,s"}, "each src entry must be s (seeded), f (forced) or an r in [0, 1), not 'x'"),
        ({"src": "s,S,s"}, "not 'S'"),
        ({"src": "s,1,s"}, "not '1'"),
        ({"src": "s,-0.1,s"}, "not '-0.1'"),
        ({"src": "s,nan,s"}, "not 'nan'"),
        ({"src": "s,,s"}, "not ''"),
        ({"at": "3"}, "at must be the index of a generated token, from 0 to 2; not 3"),
        ({"at": "-1"}, "at must be the index of a generated token, from 0 to 2; not -1"),
        ({"at": "one"}, "at must be a number, not 'one'"),
        ({"at": "1.5"}, "at must be a number, not '1.5'"),
        ({"r": "1"}, "r must be a number in [0, 1), not 1"),
        ({"r": "-0.5"}, "r must be a number in [0, 1), not -0.5"),
        ({"r": "nan"}, "r must be a finite number, not 'nan'"),
        ({"r": "inf"}, "r must be a finite number, not 'inf'"),
        ({"r": "half"}, "r must be a number, not 'half'"),
        ({"predict": "yes"}, "predict must be 1 or 0, not 'yes'"),
        ({"reveal": "2"}, "reveal must be 1 or 0, not '2'"),
        ({"present": "maybe"}, "present must be 1 or 0, not 'maybe'"),
    ],
)
@pytest.mark.parametrize("path", ["/", "/step", "/back", "/reset", "/choose", "/export.json", "/export.csv", "/qr.svg"])
def test_bad_state_values_get_a_400_with_a_message(client, three, params, message, path):
    extra = {"token": "5"} if path == "/choose" else {}
    response = client.get(url(path, **BASE, ids=joined(three), **params, **extra))
    assert response.status_code == 400
    assert message in error_text(response)
    htmx = client.get(url(path, **BASE, ids=joined(three), **params, **extra), headers=HTMX)
    assert htmx.status_code == 400
    assert message in " ".join(parse(htmx.data).text().split())


def test_at_without_generated_tokens_is_refused(client):
    response = client.get(url("/", **BASE, at="0"))
    assert response.status_code == 400
    assert "at must be the index of a generated token" in error_text(response)


# --- choose, step with r, back, reset -----------------------------------------------------------


def test_choose_forces_the_token_at_the_shown_step_and_drops_the_later_ones(client, model, three):
    token = other_than(model, three, 1)
    response = client.get(url("/choose", **BASE, ids=joined(three), at="1", token=str(token)))
    assert response.status_code == 303
    q = query_of(response.headers["Location"])
    assert ids_of(response.headers["Location"]) == [three[0], token]
    assert q["src"] == "s,f"
    assert "at" not in q and "r" not in q


def test_choose_without_at_replaces_the_last_token(client, model, three):
    token = other_than(model, three, 2)
    location = client.get(url("/choose", **BASE, ids=joined(three), src="0.5,s,s", token=str(token))).headers[
        "Location"]
    assert ids_of(location) == [*three[:2], token]
    assert query_of(location)["src"] == "0.5,s,f"


def test_choose_before_any_step_appends(client, model):
    token = other_than(model, [], 0)
    location = client.get(url("/choose", **BASE, token=str(token))).headers["Location"]
    assert ids_of(location) == [token]
    assert query_of(location)["src"] == "f"


def test_a_forced_token_is_shown_as_chosen(client, model, three):
    token = other_than(model, three, 2)
    doc = parse(client.get(url("/choose", **BASE, ids=joined(three), token=str(token)), follow_redirects=True).data)
    pick = run_step(model, PROMPT, three[:2], SETTINGS).chosen

    rows = {row.id: row for row in logits_rows(doc)}
    assert "forced" in rows[str(token)].classes and "chosen" in rows[str(token)].badges
    assert "picked" in rows[str(pick.id)].classes and "r picked" in rows[str(pick.id)].badges
    last = doc.by_id("text").find_all("a", "gen")[-1]
    assert {"gen-forced", "gen-shown", "gen-new"} <= last.classes
    assert last.attrs["aria-current"] == "step"
    assert "chosen by hand" in last.attrs["title"]
    token_text = label(model.tokenizer.token_text(token))
    assert f"The teacher chose '{token_text}' instead of the pick" in " ".join(doc.by_id("ranges").text().split())
    assert f"; the teacher chose '{token_text}' instead" in doc.by_id("announce").text()
    # no "choose" button on the row the text already has
    buttons = [b.attrs["aria-label"] for b in doc.find("table", "logits-table").find_all("button", "choose")]
    assert f"Choose '{token_text}' instead" not in buttons
    assert f"Choose '{label(pick.token)}' instead" in buttons


def test_a_step_after_a_forced_token_continues_from_it(client, model, three):
    token = other_than(model, three, 1)
    location = client.get(url("/step", **BASE, ids=joined([three[0], token]), src="s,f")).headers["Location"]
    expected = run_step(model, PROMPT, [three[0], token], SETTINGS).chosen.id
    assert ids_of(location) == [three[0], token, expected]
    assert query_of(location)["src"] == "s,f,s"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "token must be a token id, not ''"),
        ("abc", "token must be a token id, not 'abc'"),
        ("-1", "token must be a token id, not '-1'"),
        ("1.5", "token must be a token id, not '1.5'"),
        ("5000", "token id 5000 is not in the vocabulary (0 to 4999)"),
        ("99999999999999999999", "is not in the vocabulary"),
        ("\N{SUPERSCRIPT TWO}", "token must be a token id"),
    ],
)
def test_choose_refuses_a_bad_token(client, three, token, message):
    response = client.get(url("/choose", **BASE, ids=joined(three), token=token))
    assert response.status_code == 400
    assert message in error_text(response)


def test_step_with_teachers_r_uses_it_and_records_it(client, model, three):
    response = client.get(url("/step", **BASE, ids=joined(three), r="0.999"))
    location = response.headers["Location"]
    expected = run_step(model, PROMPT, three, SETTINGS, r=0.999).chosen.id
    assert ids_of(location) == [*three, expected]
    q = query_of(location)
    assert q["src"] == "s,s,s,0.999"
    assert "r" not in q  # the typed r is for one step only

    doc = page(client, **q)
    sentence = " ".join(doc.by_id("pick-sentence").text().split())
    assert "The teacher typed r." in sentence and "r = 0.999 falls in" in sentence
    assert "default_rng" not in sentence
    assert doc.by_id("next-r").attrs["value"] == ""
    assert "gen-typed" in doc.by_id("text").find_all("a", "gen")[-1].classes
    assert "r = 0.999, picked" in doc.by_id("announce").text()


def test_the_json_twin_takes_the_teachers_r_too(client, model, three):
    twin = client.get(url("/api/step", **BASE, ids=joined(three), r="0.999")).get_json()
    expected = run_step(model, PROMPT, three, SETTINGS, r=0.999)
    assert (twin["r"], twin["r_source"], twin["chosen"]["id"]) == (0.999, "given", expected.chosen.id)


def test_teachers_r_stays_with_its_step(client, model, three):
    """The typed r belongs to step 3: stepping on draws seeded r's, going back to it shows the typed one."""
    ids = [*three, run_step(model, PROMPT, three, SETTINGS, r=0.999).chosen.id]
    location = client.get(url("/step", **BASE, ids=joined(ids), src="s,s,s,0.999")).headers["Location"]
    assert query_of(location)["src"] == "s,s,s,0.999,s"
    doc = page(client, **query_of(location), at="3")
    assert "r = 0.999 falls in" in " ".join(doc.by_id("pick-sentence").text().split())


def test_the_teachers_r_field_keeps_a_value_not_yet_used(client, three):
    doc = page(client, **BASE, ids=joined(three), r="0.25")
    assert doc.by_id("next-r").attrs["value"] == "0.25"


@pytest.mark.parametrize(
    ("path", "keep"),
    [("/back", 2), ("/reset", 0)],
)
def test_back_and_reset_keep_src_aligned(client, three, path, keep):
    location = client.get(url(path, **BASE, ids=joined(three), src="f,0.5,s", at="1")).headers["Location"]
    q = query_of(location)
    assert ids_of(location) == three[:keep]
    assert q.get("src") == ("f,0.5" if keep == 2 else None)
    assert "at" not in q
    assert client.get(location).status_code == 200


def test_back_to_only_seeded_tokens_drops_src(client, three):
    location = client.get(url("/back", **BASE, ids=joined(three), src="s,s,f")).headers["Location"]
    assert ids_of(location) == three[:2] and "src" not in query_of(location)


@pytest.mark.parametrize("path", ["/step", "/back", "/reset", "/choose"])
def test_htmx_actions_push_the_url_the_redirect_names(client, model, three, path):
    params = {**BASE, "ids": joined(three), "src": "s,f,0.5"}
    if path == "/choose":
        params["token"] = str(other_than(model, three, 2))
    plain = client.get(url(path, **params))
    htmx = client.get(url(path, **params), headers=HTMX)
    assert htmx.status_code == 200
    assert htmx.headers["HX-Push-Url"] == plain.headers["Location"]
    announce = parse(htmx.data).by_id("announce")
    assert announce is not None and announce.attrs["hx-swap-oob"] == "innerHTML"


# --- history, predict, presenter, compare, announce --------------------------------------------


def test_at_shows_an_earlier_step(client, model, three):
    doc = page(client, **BASE, ids=joined(three), at="1")
    step1 = run_step(model, PROMPT, three[:1], SETTINGS)
    assert doc.by_id("range-bar").attrs["data-step"] == "1"
    assert [row.id for row in logits_rows(doc)][: len(step1.rows)] == [str(r.id) for r in step1.rows]
    links = doc.by_id("text").find_all("a", "gen")
    assert [a.attrs.get("aria-current") for a in links] == [None, "step", None]
    assert "gen-shown" in links[1].classes
    assert [query_of(a.attrs["href"]).get("at") for a in links] == ["0", "1", "2"]
    assert all(ids_of(a.attrs["href"]) == three for a in links)


def test_predict_hides_the_numbers_and_the_pick_until_reveal(client, three):
    doc = page(client, **BASE, ids=joined(three), predict="1")
    assert doc.find("table", "logits-table") is None
    assert doc.by_id("range-bar") is None
    assert doc.by_id("chart").find("svg") is None and doc.by_id("compare") is None
    assert doc.by_id("announce").text().strip() == ""
    reveal = [b for b in doc.find_all("button") if b.text().strip() == "Reveal"]
    assert len(reveal) == 1 and reveal[0].attrs["name"] == "reveal" and reveal[0].attrs["value"] == "1"
    assert doc.by_id("text").find_all("a", "gen")[-1].text() == "?"
    assert doc.by_id("tokens").find_all("li", "chip-generated")[-1].text().strip() == "?"
    assert "Hidden until Reveal" in doc.by_id("chart").text()

    shown = page(client, **BASE, ids=joined(three), predict="1", reveal="1")
    assert shown.find("table", "logits-table") is not None
    assert shown.by_id("range-bar") is not None
    assert "picked" in shown.by_id("announce").text()
    assert shown.by_id("text").find_all("a", "gen")[-1].text() != "?"


def test_a_step_in_predict_mode_hides_the_new_pick_again(client, three):
    location = client.get(url("/step", **BASE, ids=joined(three), predict="1", reveal="1")).headers["Location"]
    q = query_of(location)
    assert q.get("predict") == "1" and "reveal" not in q


def test_presenter_mode_marks_the_page_and_shows_fewer_rows(client, three):
    doc = page(client, **BASE, ids=joined(three), present="1")
    assert "present" in doc.find("main").classes
    assert len([r for r in logits_rows(doc) if "beyond" not in r.classes]) == PRESENTER_ROWS
    leave = next(a for a in doc.find_all("a") if a.text().strip() == "Leave presenter mode")
    assert "present" not in query_of(leave.attrs["href"]) and ids_of(leave.attrs["href"]) == three

    normal = page(client, **BASE, ids=joined(three))
    assert "present" not in normal.find("main").classes
    enter = next(a for a in normal.find_all("a") if a.text().strip() == "Presenter mode")
    assert query_of(enter.attrs["href"])["present"] == "1" and ids_of(enter.attrs["href"]) == three


@pytest.mark.parametrize(("temperature", "columns"), [("1", ["0.5", "1", "1.5"]), ("0.7", ["0.5", "0.7", "1", "1.5"]),
                                                      ("0", ["0", "0.5", "1", "1.5"])])
def test_the_compare_table_has_the_three_temperatures_and_the_chosen_one(client, model, three, temperature, columns):
    doc = page(client, **BASE, ids=joined(three), temperature=temperature)
    table = doc.by_id("compare").find("table")
    heads = table.find("thead").find_all("th")[1:]
    assert [" ".join(th.own_text().split()) for th in heads] == [f"T = {c}" for c in columns]
    current = [th for th in heads if "current" in th.classes]
    assert len(current) == 1 and current[0].own_text().strip() == f"T = {temperature}"
    assert "(chosen)" in current[0].text()
    result = run_step(model, PROMPT, three[:2], Settings(temperature=float(temperature), seed=7))
    body = table.find("tbody").find_all("tr")
    assert [tr.find("th").text() for tr in body] == [label(r.token) for r in result.rows[:5]]
    k = columns.index(temperature)
    for tr, row in zip(body, result.rows[:5], strict=True):
        cells = tr.find_all("td")
        assert len(cells) == len(columns)
        assert cells[k].text() == pct(row.prob) and "current" in cells[k].classes


def test_the_announcement_matches_the_pick(client, model, three):
    doc = page(client, **BASE, ids=joined(three))
    pick = run_step(model, PROMPT, three[:2], SETTINGS)
    assert doc.by_id("announce").attrs["aria-live"] == "polite"
    text = doc.by_id("announce").text().strip()
    assert re.fullmatch(r"r = \d\.\d{3}, picked '.+', \d+ %", text), text
    assert text.startswith(f"r = {pick.r:.3f}, picked '{label(pick.chosen.token)}', ")
    assert page(client, **BASE).by_id("announce").text().strip() == ""  # nothing picked yet


# --- exports ------------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [
    pytest.param({}, id="seeded"),
    pytest.param({"src": "s,f,0.999"}, id="forced-and-typed"),
    pytest.param({"src": "0.5,s,s", "temperature": "0.6", "top_k": "8", "at": "1", "present": "1"}, id="settings"),
])
def test_export_json_is_the_trace(client, model, three, params):
    response = client.get(url("/export.json", **BASE, ids=joined(three), **params))
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == 'attachment; filename="trace.json"'
    state = parse_state({**BASE, "ids": joined(three), **params}, client.application.extensions["models"],
                        client.application.config["DEFAULT_MODEL"])
    expected = trace_to_dict(model, PROMPT, state.ids, state.sources, state.settings)
    assert response.get_json() == json.loads(json.dumps(expected))
    assert len(response.get_json()["steps"]) == len(three)


def test_export_json_before_any_step_has_no_steps(client):
    assert client.get(url("/export.json", **BASE)).get_json()["steps"] == []


def csv_row_on_screen(d: dict[str, str]) -> tuple:
    """A CSV line as the page writes it: '0.0312...' -> '3.1 %' and so on."""
    value = {k: (None if v == "" else v) for k, v in d.items()}
    scaled = None if value["scaled"] is None else float(value["scaled"])
    lo = None if value["lo"] is None else float(value["lo"])
    hi = None if value["hi"] is None else float(value["hi"])
    return (value["rank"], label(value["token"]), value["id"], num(float(value["logit"])), num(scaled),
            pct(float(value["prob"])), span(lo, hi))


@pytest.mark.parametrize("params", [
    pytest.param({}, id="last-step"),
    pytest.param({"at": "0"}, id="at"),
    pytest.param({"temperature": "0"}, id="greedy"),
    pytest.param({"top_k": "5", "top_p": "0.9"}, id="truncation"),
    pytest.param({"present": "1"}, id="presenter"),
    pytest.param({"src": "s,s,f"}, id="forced"),
])
def test_export_csv_is_the_table_on_screen(client, three, params):
    state = {**BASE, "ids": joined(three), **params}
    response = client.get(url("/export.csv", **state))
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    step = params.get("at", "2")
    assert response.headers["Content-Disposition"] == f'attachment; filename="logits-step-{step}.csv"'
    lines = list(csv.reader(io.StringIO(response.data.decode())))
    assert tuple(lines[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, line, strict=True)) for line in lines[1:-1]]

    doc = page(client, **state)
    on_screen = [(r.rank, r.token, r.id, r.logit, r.scaled, r.prob, r.range) for r in logits_rows(doc)]
    assert [csv_row_on_screen(d) for d in body] == on_screen[: len(body)]
    assert len(on_screen) - len(body) <= 2  # the page may add the pick's and the text's rows below
    rest = dict(zip(CSV_COLUMNS, lines[-1], strict=True))
    shown_rest = rest_row(doc)
    assert shown_rest["label"].startswith(f"{int(rest['token'].split()[0]):,} other tokens")
    assert shown_rest["prob"] == pct(float(rest["prob"]))


# --- share and QR -------------------------------------------------------------------------------


def qr_modules(svg: bytes) -> list[list[bool]]:
    """Read segno's SVG path ('M2 2.5h7m2 0h2...': runs of dark modules) back into a matrix, border cut off."""
    text = svg.decode()
    path = re.search(r'<path[^>]* d="([^"]+)"', text).group(1)
    size = int(re.search(r'<svg[^>]* width="(\d+)"', text).group(1))
    scale = float(re.search(r'scale\(([\d.]+)\)', text).group(1))
    n = round(size / scale)  # modules with the border
    grid = [[False] * n for _ in range(n)]
    x = y = 0.0
    for cmd, a, b in re.findall(r"([MmHh])\s*(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if cmd == "M":
            x, y = float(a), float(b)
        elif cmd == "m":
            x, y = x + float(a), y + float(b)
        else:  # h: a run of dark modules on row y - 0.5
            run = float(a)
            for col in range(round(x), round(x + run)):
                grid[int(y)][col] = True
            x += run
    dark_rows = [i for i, row in enumerate(grid) if any(row)]
    border = dark_rows[0]
    return [row[border : n - border] for row in grid[border : n - border]]


def expected_modules(link: str) -> list[list[bool]]:
    return [[bool(m) for m in row] for row in segno.make(link, error="l").matrix]


def share_link(doc: Element) -> str:
    return doc.by_id("share-link").attrs["value"]


def test_the_qr_code_is_an_svg_of_the_share_link(client, three):
    params = {**BASE, "ids": joined(three), "src": "s,f,0.5"}
    doc = page(client, **params)
    link = share_link(doc)
    assert link.startswith("http://localhost/?")
    assert ids_of(link) == three
    assert {k: query_of(link)[k] for k in ("prompt", "seed", "src")} == {**BASE, "src": "s,f,0.5"}
    img = doc.by_id("share").find("img")
    assert img.attrs["alt"] == "QR code"
    response = client.get(img.attrs["src"])
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.data.lstrip().startswith(b"<svg")
    assert qr_modules(response.data) == expected_modules(link)


def test_the_share_link_uses_the_lan_address_the_page_was_reached_by(client, three):
    doc = parse(client.get(url("/", **BASE, ids=joined(three)), headers={"Host": LAN}).data)
    link = share_link(doc)
    assert link.startswith(f"http://{LAN}/?")
    assert ids_of(link) == three
    qr = client.get(doc.by_id("share").find("img").attrs["src"], headers={"Host": LAN})
    assert qr_modules(qr.data) == expected_modules(link)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
def test_on_localhost_the_share_link_uses_lan_url(app, client, monkeypatch, three, host):
    monkeypatch.setitem(app.config, "LAN_URL", f"http://{LAN}/")
    doc = parse(client.get(url("/", **BASE, ids=joined(three)), headers={"Host": host}).data)
    link = share_link(doc)
    assert link.startswith(f"http://{LAN}/?") and "//" not in link.removeprefix("http://")
    qr = client.get(url("/qr.svg", **BASE, ids=joined(three)), headers={"Host": host})
    assert qr_modules(qr.data) == expected_modules(link)


def test_lan_url_does_not_override_a_real_host(app, client, monkeypatch):
    monkeypatch.setitem(app.config, "LAN_URL", "http://10.0.0.9:8000")
    link = share_link(parse(client.get(url("/", **BASE), headers={"Host": LAN}).data))
    assert link.startswith(f"http://{LAN}/?")


def test_serving_on_all_interfaces_shares_the_lan_address(monkeypatch):
    """The teacher opens the 127.0.0.1 link the server prints; the QR code must still name the LAN address."""
    import waitress

    from webapp import serve as serve_module

    served = {}
    monkeypatch.setattr(serve_module, "lan_address", lambda: "192.168.1.20")
    monkeypatch.setattr(waitress, "serve", lambda app, **kwargs: served.setdefault("app", app))
    serve_module.serve(host="0.0.0.0", port=8000, threads=1)

    response = served["app"].test_client().get(url("/", **BASE), headers={"Host": "127.0.0.1:8000"})
    assert share_link(parse(response.data)).startswith(f"http://{LAN}/?")


def test_a_link_too_long_for_a_qr_code_gets_a_400(client):
    params = {"prompt": "é" * 2000}  # 12,000 characters once percent-encoded
    response = client.get(url("/qr.svg", **params))
    assert response.status_code == 400
    assert "too long for a QR code" in error_text(response)
    assert client.get(url("/", **params)).status_code == 200  # the page itself still works
