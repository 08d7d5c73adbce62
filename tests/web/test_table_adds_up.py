"""Every screen agrees with itself: over random states, the rendered table adds up.

Each state is drawn at random (both Austen models; T at 0, small, 1 and large; top-k, top-p and
min-p on and off; picks beyond the table, tokens chosen by hand, presenter mode, earlier steps viewed
again, settings changed after the text was written), rendered through the test client, and read
back from its HTML only. For every screen:

- the token rows and the footer's count come to the vocabulary's size;
- the shown probabilities add up to 100 % within their rounding;
- no shown range reads empty;
- exactly one row is marked picked once a step is taken, none before;
- a row without a range is marked by one rule: 'cut' if a truncation rule cut it, 'p = 0' if its
  probability is zero; the footer divides its tokens by the same two words.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest

from webapp.inference import Settings, run_step_table

from .markup import logits_rows, parse, read_number, rest_row
from .models import BIGRAM_MODEL, TRANSFORMER
from .seeded import url

N_STATES = 200
PROMPTS = ("It is a truth universally acknowledged, that a single man", "Mr. Darcy said", "She looked at the", "")
TEMPERATURES = (0.0, 0.0, 0.05, 0.3, 1.0, 1.0, 1.5, 2.0, 5.0)  # 0, small, 1 and large
RANGE = re.compile(r"^\[(\d\.\d+), (\d\.\d+)(?: \+ (\d(?:\.\d)? × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?\)$")
PERCENT = re.compile(r"^(<)?(\d+(?:\.\d)?) %$")


@dataclass(frozen=True)
class Drawn:
    """A random state: its query, and what it must show."""

    params: dict[str, str]
    n_vocab: int
    taken: bool
    truncating: bool


def draw_settings(rnd: random.Random) -> Settings:
    return Settings(temperature=rnd.choice(TEMPERATURES),
                    top_k=rnd.choice((None, None, 1, 3, 10, 50)),
                    top_p=rnd.choice((None, None, 0.5, 0.9, 0.99)),
                    min_p=rnd.choice((None, None, 0.01, 0.05, 0.2)),
                    seed=rnd.randrange(2**31))


def query(model: str, prompt: str, settings: Settings) -> dict[str, str]:
    q = {"model": model, "prompt": prompt, "temperature": repr(settings.temperature), "seed": str(settings.seed)}
    q |= {name: repr(getattr(settings, name)) for name in ("top_k", "top_p", "min_p") if getattr(settings, name)}
    return q


def walk(model, prompt: str, settings: Settings, n: int, rnd: random.Random) -> tuple[list[int], list[str]]:
    """n generated ids with their sources: mostly picked by the seeded r, now and then chosen by hand,
    sometimes a token far down the ranking (so that the text's token ranks below the table)."""
    ids: list[int] = []
    sources: list[str] = []
    for _ in range(n):
        if rnd.random() < 0.15:
            ids.append(rnd.randrange(model.n_vocab))
            sources.append("f")
        else:
            ids.append(run_step_table(model, prompt, ids, settings).chosen.id)
            sources.append("s")
    return ids, sources


def draw(rnd: random.Random, models: dict) -> Drawn:
    name = rnd.choice([m for m in (BIGRAM_MODEL, TRANSFORMER) if m in models])
    model = models[name]
    prompt = rnd.choice(PROMPTS)
    written = draw_settings(rnd)
    shown = written if rnd.random() < 0.5 else draw_settings(rnd)  # settings changed after the text was written
    ids, sources = walk(model, prompt, written, rnd.choice((0, 1, 1, 2, 3)), rnd)
    params = query(name, prompt, shown)
    if ids:
        params["ids"] = ",".join(map(str, ids))
        params["src"] = ",".join(sources)
        if len(ids) > 1 and rnd.random() < 0.3:
            params["at"] = str(rnd.randrange(len(ids)))  # a step viewed again
    if rnd.random() < 0.3:
        params["present"] = "1"
    truncating = shown.top_k is not None or shown.top_p is not None or shown.min_p is not None
    return Drawn(params=params, n_vocab=model.n_vocab, taken=bool(ids), truncating=truncating)


def states(app) -> list[Drawn]:
    rnd = random.Random(20261130)
    models = app.extensions["models"]
    return [draw(rnd, models) for _ in range(N_STATES)]


def percent(text: str) -> tuple[float, float]:
    """The interval a shown probability stands for: '31.0 %' -> (30.95, 31.05); '<0.1 %' -> (0, 0.1); '0 %' -> 0."""
    if text == "0 %":
        return 0.0, 0.0
    match = PERCENT.match(text)
    assert match, f"a probability reads {text!r}"
    value = float(match.group(2))
    return (0.0, value) if match.group(1) else (max(0.0, value - 0.05), value + 0.05)


def non_empty(text: str) -> bool:
    """'[0.620, 0.910)' and '[1.000, 1.000 + 2.3 × 10⁻³⁰)' are non-empty; '[1.000, 1.000)' is not."""
    match = RANGE.match(text)
    assert match, f"a range reads {text!r}"
    lo, hi, width = match.groups()
    return float(hi) > float(lo) if width is None else read_number(width) > 0


def footer_parts(label: str) -> tuple[int, dict[str, int]]:
    """'4,980 other tokens (12 cut, 4,968 at p = 0)' -> (4980, {'cut': 12, 'at p = 0': 4968})."""
    match = re.match(r"^([\d,]+) other tokens(?: \((.*)\))?$", label)
    assert match, f"the footer reads {label!r}"
    parts = {}
    for part in (match.group(2) or "").split(", ") if match.group(2) else ():
        n, words = part.split(" ", 1)
        parts[words] = int(n.replace(",", ""))
    assert set(parts) <= {"cut", "at p = 0"}, label
    return int(match.group(1).replace(",", "")), parts


def check_screen(doc, drawn: Drawn) -> None:
    rows = logits_rows(doc)
    footer = rest_row(doc)
    count, parts = footer_parts(footer["label"])
    assert len(rows) + count == drawn.n_vocab, "token rows + the footer's count = the vocabulary"

    shown = [percent(row.prob) for row in rows] + [percent(footer["prob"])]
    low, high = sum(a for a, _ in shown), sum(b for _, b in shown)
    assert low - 1e-9 <= 100 <= high + 1e-9, f"the probabilities add up to between {low:.2f} and {high:.2f} %"

    pieces = [] if footer["range"] == "—" else footer["range"].split(" and ")
    for text in [row.range for row in rows if row.range != "—"] + pieces:
        assert non_empty(text), f"the range {text} reads empty"

    picked = [row for row in rows if "picked" in row.classes]
    assert len(picked) == (1 if drawn.taken else 0)
    marks_r = ("picked", "r lands here")  # "r lands here": the text has another token, picked before a change
    assert all(("picked" in row.classes) == any(b.endswith(marks_r) for b in row.badges) for row in rows)

    for row in rows:
        cut, zero = "cut" in row.badges, "p = 0" in row.badges
        assert ("cut" in row.classes, "zero" in row.classes) == (cut, zero), f"row {row.rank}: class and badge agree"
        assert (row.range == "—") == (cut or zero), f"row {row.rank}: a row without a range says why"
        assert zero == (row.prob == "0 %"), f"row {row.rank}: 'p = 0' exactly when its probability is 0"
        assert not (cut and not drawn.truncating), f"row {row.rank}: cut with no rule on"
    assert "cut" not in parts or drawn.truncating, "the footer counts cut tokens with no rule on"
    assert (footer["range"] == "—") == (sum(parts.values()) == count), "the footer's tokens without a range say why"


@pytest.fixture(scope="module")
def drawn_states(app) -> list[Drawn]:
    """The random states, drawn once (walking them asks the models for a few hundred steps)."""
    return states(app)


def test_the_states_cover_what_the_issue_lists(drawn_states):
    drawn = drawn_states
    params = [d.params for d in drawn]
    assert {p["model"] for p in params} >= {BIGRAM_MODEL} and len(drawn) >= 200
    assert {p["temperature"] for p in params} >= {"0.0", "0.05", "1.0", "5.0"}
    assert all(any(name in p for p in params) and any(name not in p for p in params)
               for name in ("top_k", "top_p", "min_p", "present", "at"))
    assert any(not d.taken for d in drawn) and any("f" in d.params.get("src", "") for d in drawn)


@pytest.mark.parametrize("i", range(N_STATES))
def test_every_screen_adds_up(client, drawn_states, i):
    drawn = drawn_states[i]
    response = client.get(url("/", **drawn.params))
    assert response.status_code == 200, response.get_data(as_text=True)[:400]
    check_screen(parse(response.data), drawn)


def test_a_pick_beyond_the_table_is_counted_once(app, client):
    """The issue's example: at T = 5 the seeded r picks far down the ranking; 21 rows + the rest = 5,000."""
    model = app.extensions["models"][BIGRAM_MODEL]
    settings = Settings(temperature=5.0, seed=0)
    pick = run_step_table(model, "It is a truth universally acknowledged", (), settings).chosen
    for present in ("", "1"):
        params = {**query(BIGRAM_MODEL, "It is a truth universally acknowledged", settings), "ids": str(pick.id)}
        if present:
            params["present"] = present
        doc = parse(client.get(url("/", **params)).data)
        rows = logits_rows(doc)
        assert rows[-1].rank == str(pick.rank) and "picked" in rows[-1].classes
        check_screen(doc, Drawn(params=params, n_vocab=model.n_vocab, taken=True, truncating=False))


@pytest.mark.parametrize(
    ("settings", "moved"),
    [
        ({}, False),
        ({"temperature": "0.5"}, False),
        ({"presence_penalty": "2", "frequency_penalty": "2"}, True),
        ({"presence_penalty": "0.5", "temperature": "0.7"}, True),
    ],
)
def test_the_scaled_column_says_whether_its_logits_are_the_models_or_the_penalised(client, settings, moved):
    """z / T when each row's figure is its logit over T; z′ / T (z′ after the penalties) when they moved any."""
    before = [3, 42]  # "Mr . Mr": '.' generated once, so the penalties reach it
    query = {"model": BIGRAM_MODEL, "prompt": "Mr", "seed": "1", **settings}
    twin = client.get(url("/api/step", **query, ids="3,42")).get_json()  # the step a page with one more id shows
    doc = parse(client.get(url("/", **query, ids=",".join(map(str, [*before, 7])))).data)
    heading = doc.find("table", "logits-table").find("thead").find_all("th")[4].text()
    t = float(settings.get("temperature", "1"))
    agrees = all(abs(row["scaled"] - row["logit"] / t) < 1e-9 for row in twin["rows"])
    assert heading.startswith("z′ /" if moved else "z /"), heading
    assert agrees != moved, "the rows' figures are the model's logits over T exactly when the heading says z"
