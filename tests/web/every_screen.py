"""Every screen a person can see, rendered through the Flask test client: name -> HTML.

The translation tests walk these: the stepper in each model, mode and panel, the vocabulary page,
the error page and fragments, and the class room's teacher, join and follow pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

from .markup import HTMX

ORIGIN = {"Origin": "http://localhost"}
PROMPT = "It is a truth universally acknowledged"
MODELS = ("austen-transformer", "austen-bigram", "article")


def url(path: str = "/", **params) -> str:
    return f"{path}?{urlencode(params, safe=',')}" if params else path


def stepped(client, n: int = 2, **params) -> str:
    """The URL after n Steps from the screen with params (the redirects a browser without htmx follows)."""
    address = url("/", **params)
    for _ in range(n):
        answer = client.get(address.replace("/?", "/step?", 1))
        assert answer.status_code == 303, answer.status_code
        address = answer.headers["Location"]
    return address


def get(client, address: str, **kwargs) -> str:
    return client.get(address, **kwargs).get_data(as_text=True)


def stepper_screens(client) -> Iterator[tuple[str, str]]:
    """The stepper: each model, each mode and each panel that opens."""
    base = {"prompt": PROMPT, "seed": "7"}
    yield "default", get(client, "/")
    yield "empty prompt", get(client, url(prompt="", seed="7"))
    for model in MODELS:
        yield f"{model}, two steps", get(client, stepped(client, model=model, **base))
    two = stepped(client, **base)
    yield "two steps, fragments", get(client, two.replace("/?", "/step?", 1), headers=HTMX)
    yield "guided", get(client, two + "&guide=1")
    yield "presenter", get(client, two + "&present=1")
    yield "the earlier step", get(client, two + "&at=0")
    yield "surprise", get(client, two + "&surprise=1")
    yield "many samples", get(client, two + "&many=100")
    for model in MODELS[:2]:
        yield f"{model}, inside", get(client, stepped(client, model=model, inside="1", **base))
    yield "inside, before a step", get(client, url(inside="1", **base))
    yield "predict", get(client, url("/step", predict="1", **base))  # a hidden pick is shown where it was taken
    yield "revealed", get(client, stepped(client, 1, **base) + "&predict=1&reveal=1")
    yield "teacher's r", get(client, stepped(client, 1, r="0.5", **base))
    chosen = two.replace("/?", "/choose?", 1) + "&token=3"
    yield "chosen by hand", get(client, client.get(chosen).headers["Location"])
    yield from setting_screens(client, base)


def setting_screens(client, base: dict) -> Iterator[tuple[str, str]]:
    """The settings' sentences: greedy, sharper, flatter, truncation, penalties, chain orders."""
    for t in ("0", "0.5", "1.5"):
        yield f"T = {t}", get(client, stepped(client, temperature=t, **base))
    truncated = {
        "top_k": "3",
        "top_p": "0.9",
        "min_p": "0.05",
        "repetition_penalty": "1.3",
        "presence_penalty": "0.5",
        "frequency_penalty": "0.5",
    }
    yield "truncation and penalties", get(client, stepped(client, **truncated, **base))
    yield (
        "llama.cpp chain",
        get(
            client,
            stepped(client, chain="penalties,top_k,top_p,min_p,temperature", temperature="0.7", top_k="5", **base),
        ),
    )
    yield "chain without temperature", get(client, stepped(client, chain="top_k", top_k="1", **base))
    yield "vocabulary order", get(client, stepped(client, range_order="vocabulary", top_p="0.5", **base))
    yield (
        "unknown words",
        get(client, stepped(client, 1, model="austen-bigram", prompt="The zorblax wibbled", seed="7")),
    )
    yield "past the window", get(client, stepped(client, 1, model="austen-bigram", prompt=PROMPT + " and more"))
    article = {"model": "article", "vocab": "cat,dog,fish", "scores": "0.5,0.2,0.2", "scores_as": "probabilities"}
    yield "article, scores not adding up", get(client, stepped(client, 1, **article))


def other_screens(client) -> Iterator[tuple[str, str]]:
    """The vocabulary page, and the error page and fragment."""
    for model in MODELS[:2]:
        yield f"vocabulary of {model}", get(client, url("/vocab", model=model))
    yield "vocabulary search", get(client, url("/vocab", model="austen-bigram", q="the"))
    yield "vocabulary, nothing found", get(client, url("/vocab", q="zzzzqq"))
    yield "error page", get(client, url(temperature="hot"))
    yield "error fragment", get(client, url(temperature="hot"), headers=HTMX)
    yield "not found", get(client, "/no-such-page")


def room_screens(app) -> Iterator[tuple[str, str]]:
    """The class room: the teacher before and after a vote, the join form, a student following."""
    teacher = app.test_client()
    start = teacher.post("/room", data={"from": url(prompt=PROMPT, seed="7")}, headers=ORIGIN)
    code = start.headers["Location"].split("/")[2]
    yield "join form", get(app.test_client(), url("/join", code=code))
    wrong = app.test_client().post("/join", data={"code": "ZZZZZZZZ"}, headers=ORIGIN)
    yield "join, no such room", wrong.get_data(as_text=True)
    yield "teacher", get(teacher, f"/room/{code}/teach")
    teacher.post(f"/room/{code}/settings", data={"votes_on": "1", "leaderboard": "1"}, headers=ORIGIN)
    student = app.test_client()
    student.post("/join", data={"code": code, "nickname": "Ada"}, headers=ORIGIN)
    yield "student, before a step", get(student, f"/room/{code}")
    first = teacher.get(url("/step", prompt=PROMPT, seed="7", predict="1"), headers=HTMX).headers["HX-Push-Url"]
    teacher.post(f"/room/{code}/state", data={"url": first, "action": "step"}, headers=ORIGIN)
    yield "teacher, vote open", get(teacher, f"/room/{code}/teach")
    yield "student, vote open", get(student, f"/room/{code}")
    student.post(f"/room/{code}/vote", data={"round": "1", "token": "3"}, headers=ORIGIN)
    yield "student, voted", get(student, f"/room/{code}")
    state = teacher.get(f"/room/{code}/results.json").get_json()["state"]
    revealed = teacher.get(f"/?{state}&reveal=1", headers=HTMX).headers["HX-Push-Url"]
    teacher.post(f"/room/{code}/state", data={"url": revealed, "action": "show"}, headers=ORIGIN)
    yield "teacher, results", get(teacher, f"/room/{code}/teach")
    yield "teacher, presenter", get(teacher, f"/room/{code}/teach?present=1")
    yield "student, after the reveal", get(student, f"/room/{code}")
    yield "student, record", get(student, f"/room/{code}/me")


def every_screen(app) -> dict[str, str]:
    client = app.test_client()
    return dict([*stepper_screens(client), *other_screens(client), *room_screens(app)])
