"""What each route may cost and how its answer may be kept, declared where the route is defined.

Every view says, right under its route, which forward passes a request to it may ask for and
whether its answer may be shared from the answer cache:

    @bp.get("/step")
    @costs(Work.STEP, cache=Cache.SHARED, reads=("shown",))
    def step(): ...

The work budget (budget.py) and the answer cache (cache.py) read the declaration of the view a
request goes to (`current_app.view_functions[request.endpoint]`), and nothing else: there is no
list of views anywhere besides the views themselves. A route that declares nothing is an error:
`check_declared` refuses to build such an app, and a request to one added later gets a 500.

The state a request is charged for comes from its query string, unless the route names a function
that finds it (a room's pages: the room's stored state; a room's POST: the stepper URL in its form).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, Flag, auto

from flask import Flask, Response, current_app, g, request

from ...inference.machinery import cost
from ..url.parse import parse_state
from ..url.state import State
from .htmx import is_htmx

ATTRIBUTE = "policy"  # the view function's attribute that holds its declaration


class Undeclared(RuntimeError):
    """A route whose view does not say what it costs and how it is cached."""


class Work(Enum):
    """The forward passes a request may ask for, besides the extras its state adds (Extra)."""

    NONE = "no forward pass"
    SCREEN = "the step the state shows, which reads the ids before it"
    STEP = "a new step, which reads every id"
    ACTION = "Back, Reset or Choose: the screen of the state it moves to for htmx, else a redirect (no pass)"
    EXPORT = "every generated token's step again"
    SCORE = "sentences scored token by token by several models: the route's own estimate (`estimate`)"
    DECODE = "greedy and beam search from the prompt: width x steps forward passes, the route's own estimate"


class Extra(Flag):
    """What a state may add to the passes of a route that shows it."""

    NONE = 0
    INSIDE = auto()  # inside=1: the window again, whole, its insides kept, and the logit lens
    SURPRISE = auto()  # surprise=1: every generated token's step again
    MANY = auto()  # many=N: the step's distribution sampled N times
    WINDOW = auto()  # the inside panel's numbers whatever the state says (as data: /api/inside)
    SCREEN = INSIDE | SURPRISE | MANY  # what a rendered screen adds


class Cache(Enum):
    """Whether the answer cache may keep a route's answers and give them to anyone asking the same URL."""

    SHARED = "a pure function of the URL: kept by the answer cache"
    PRIVATE = "never kept: it reads a store or cookies, or changes something"


def from_query() -> State:
    """The state in the query string, checked once per request: the cache, the budget and the view share it."""
    state = g.get("checked_state")
    if state is None:
        state = g.checked_state = parse_state(request.args, current_app.extensions["models"],
                                              current_app.config["DEFAULT_MODEL"])
    return state


@dataclass(frozen=True)
class Policy:
    """A route's declaration: its work, the extras charged, how it is cached, and where its state comes from."""

    work: Work
    extras: Extra
    cache: Cache
    reads: tuple[str, ...]  # query parameters besides the state that its answer depends on
    state: Callable[[], State] | None  # finds the state to charge; None: the route reads none
    moves_to: Callable[[State], State] | None  # an action's new state, from the state it is taken from
    estimate: Callable[[], tuple[cost.Work, str] | None] | None = None  # SCORE: its work, and what it is in words


def costs(work: Work, *, extras: Extra | None = None, cache: Cache = Cache.PRIVATE, reads: tuple[str, ...] = (),
          state: Callable[[], State] | None = from_query,
          moves_to: Callable[[State], State] | None = None,
          estimate: Callable[[], tuple[cost.Work, str] | None] | None = None) -> Callable:
    """Declare on the view what a request to it may cost and how its answer may be cached.

    `extras` defaults to what a screen adds for a route that shows one (SCREEN, STEP, ACTION), else none;
    `state` finds the state the request is charged for (None: the route reads no state).
    """
    if (work is Work.ACTION) != (moves_to is not None):
        raise ValueError("an action, and only an action, names the state it moves to")
    if cache is Cache.SHARED and state not in (from_query, None):
        raise ValueError("a shared answer is a function of its URL: its state comes from the query string")
    if extras is None:
        extras = Extra.SCREEN if work in (Work.SCREEN, Work.STEP, Work.ACTION) else Extra.NONE
    policy = Policy(work=work, extras=extras, cache=cache, reads=tuple(reads), state=state, moves_to=moves_to,
                    estimate=estimate)

    def declare(view: Callable) -> Callable:
        setattr(view, ATTRIBUTE, policy)
        return view

    return declare


def declared(view: Callable) -> Policy | None:
    """The view's declaration, if it has one."""
    return getattr(view, ATTRIBUTE, None)


def is_static(endpoint: str) -> bool:
    """Flask's own route for the static files: no view of ours, no forward pass, its own caching headers."""
    return endpoint == "static"


def undeclared(app: Flask) -> list[str]:
    """The endpoints of app.url_map whose views declare nothing (Flask's static files aside)."""
    endpoints = dict.fromkeys(rule.endpoint for rule in app.url_map.iter_rules())
    return [e for e in endpoints if not is_static(e) and declared(app.view_functions[e]) is None]


def check_declared(app: Flask) -> None:
    """Refuse an app with a route that does not declare what it costs and how it is cached."""
    missing = undeclared(app)
    if missing:
        raise Undeclared(f"these views declare no policy (@costs): {', '.join(missing)}")


def answered_policy() -> Policy | None:
    """The declaration of the view answering this request, if it has one (an undeclared view has its 500)."""
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    return declared(view) if view is not None else None


def request_policy() -> Policy | None:
    """The declaration of the view this request goes to; None for one no view of ours answers (404, static)."""
    endpoint = request.endpoint
    if endpoint is None or is_static(endpoint):
        return None
    policy = declared(current_app.view_functions[endpoint])
    if policy is None:
        raise Undeclared(f"the view {endpoint} declares no policy (@costs)")
    return policy


def keep_private(app: Flask) -> None:
    """A private answer (a teacher's page, a student's own) is stored by no browser cache or proxy,
    unless its view said how it may be kept (a room's poll revalidates by its ETag)."""

    @app.after_request
    def private_answers(response: Response) -> Response:
        policy = answered_policy()
        if policy is not None and policy.cache is Cache.PRIVATE and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "private, no-store"
        return response


def answers_with_screen(state: State) -> bool:
    """Whether an action answers with the screen of its new state rather than a redirect to its URL.

    htmx swaps the panels in; a hidden pick is shown where it was taken: its own address would give it away.
    """
    return is_htmx() or state.pick_hidden
