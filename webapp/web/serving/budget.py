"""A bounded cost for every request: its work known before it starts, a deadline, and few heavy ones at once.

Each route declares where it is defined which forward passes a request to it may ask for (policy.py:
none, the step on screen, a new step, an action's new screen, every step again for an export, and
the extras its state adds: inside=1 the window again and the logit lens, surprise=1 every generated
token's step again, many=N the step's distribution sampled N times); a room's page names the room's
stored state to charge, a room's POST the stepper URL in its form; a page that scores sentences with
several models (a class model's perplexity) estimates its own work, which it bounds to fit. Before the
view runs, that work is estimated from the state alone (machinery/cost.py: the passes the KV cache runs, less what it
holds, x what each pass reads and computes):

- beyond WORK_BUDGET_SECONDS the request is refused with a 422 that says how much work it asked
  for and what to shorten (in the page: the error fragment; the screen stays as it was). An export
  is not refused: it stops at the last step that fits and says so (derived/export.py);
- beyond HEAVY_SECONDS it is heavy: at most HEAVY_REQUESTS of those run at once in a process, and
  one more gets a 503 with Retry-After at once, so a thread is always left for cheap requests
  (a cached screen, /healthz); a heavy request also has a deadline, DEADLINE_SECONDS of wall-clock
  time after it started: an export stops there and says which steps it left out.

Every answer says its time on the server in a Server-Timing header (wall and CPU milliseconds, and
the estimate where one was made), which bench/abuse.py and bench/bench_budget.py read. Answers from
the cache (cache.py) are looked up first and cost nothing here.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from flask import Flask, abort, current_app, g

from ...inference import InferenceError
from ...inference.machinery import cost
from ...inference.step import context_ids, encode_prompt
from ..i18n.filters import fixed, thousands
from ..i18n.translations import gettext as _
from ..i18n.translations import ngettext
from ..url.state import State, state_model
from .policy import Extra, Policy, Work, answers_with_screen, request_policy

WORK_BUDGET_SECONDS = 1.0  # estimated; the estimate is on the slow side, so a request takes less
HEAVY_SECONDS = 0.05  # a Step of the bundled models is a few milliseconds; one of SmolLM2 is heavy
HEAVY_REQUESTS = 1  # per process: one process computes on one core at a time anyway
DEADLINE_SECONDS = 1.0  # wall-clock: on a busy machine the same work takes longer; a step may follow it
RETRY_AFTER_SECONDS = 2


@dataclass(frozen=True)
class Budget:
    """The app's limits, from its config: WORK_BUDGET_SECONDS, HEAVY_SECONDS, DEADLINE_SECONDS."""

    seconds: float = WORK_BUDGET_SECONDS
    heavy_seconds: float = HEAVY_SECONDS
    deadline_seconds: float = DEADLINE_SECONDS


def screen_ids(state: State) -> tuple[int, ...]:
    """The generated ids the step on screen read: ids (5, 9, 2) -> (5, 9), the step that picked 2; none -> ()."""
    return state.ids if state.on_screen is None else state.ids[: state.on_screen]


def charged_state(policy: Policy) -> State | None:
    """The state whose passes the request runs: the route's own, or the screen its action moves to.

    None when it runs none: a route that reads no state, an action answered with a redirect.
    """
    state = policy.state() if policy.state is not None else None
    if state is None or policy.moves_to is None:
        return state
    moved = policy.moves_to(state)
    return moved if answers_with_screen(moved) else None  # a redirect: its page is charged when asked for


def extras_work(policy: Policy, state: State, model, ids: list[int], n_prompt: int, n_generated: int) -> cost.Work:
    """What the state adds to the step: the window again and the lens (inside=1), every generated token's step
    (surprise=1), the step's distribution sampled N times (many=N)."""
    work = cost.Work()
    if Extra.WINDOW in policy.extras or (Extra.INSIDE in policy.extras and state.inside):
        work = work + cost.inside_work(model, ids)
    if Extra.SURPRISE in policy.extras and state.surprise:
        work = sum(cost.steps_work(model, n_prompt, n_generated), work)
    if Extra.MANY in policy.extras and state.many:
        work = work + cost.draws_work(state.many)
    return work


def request_work(policy: Policy, budget: Budget) -> tuple[cost.Work, str] | None:
    """The work the view will do, and what it is in words; None if no forward pass (or the state is bad:
    the view will say why)."""
    if policy.work is Work.NONE:
        return None
    if policy.work in (Work.SCORE, Work.DECODE):
        return policy.estimate()
    try:
        state = charged_state(policy)
        if state is None:
            return None
        model = state_model(current_app.extensions["models"], state)
        prompt_ids = context_ids(model, encode_prompt(model, state.prompt))  # an empty prompt's start token too
    except InferenceError:
        return None
    if policy.work is Work.EXPORT:
        works = cost.steps_work(model, len(prompt_ids), len(state.ids))
        total = sum((w for w in works), cost.Work())
        return cost.Work(total.positions, total.passes, min(total.seconds, budget.seconds)), _("export")
    new_step = policy.work is Work.STEP
    ids = [*prompt_ids, *(state.ids if new_step else screen_ids(state))]  # what the step's forward pass is given
    work = cost.step_work(model, ids)
    if work.seconds > budget.heavy_seconds:  # worth asking what the KV cache holds
        work = cost.step_work(model, ids, cost.cached_positions(model, ids))
    work = work + extras_work(policy, state, model, ids, len(prompt_ids), len(state.ids) + new_step)
    work = work + cost.counting_work(model)  # a class model's counting, 0 for the others
    return work, ngettext("%(num)s position of %(model)s", "%(num)s positions of %(model)s", work.positions,
                          model=model.name)


def describe(seconds: float) -> str:
    """'about 0.3 s', 'about 12 s', 'about 3 min' (in the page's language and number format)."""
    if seconds >= 120:
        return _("about %(n)s min", n=thousands(math.ceil(seconds / 60)))
    return _("about %(n)s s", n=fixed(seconds, 1) if seconds < 10 else thousands(round(seconds)))


def refuse(work: cost.Work, what: str, budget: Budget, search: bool = False) -> None:
    """A 422 that says what the request asked for, and what to change (a search: its width and length)."""
    if search:
        abort(422, description=_(
            "This screen would run %(what)s, %(work)s of computing; the server's limit for one request is %(limit)s. "
            "Ask for fewer new tokens or a narrower beam, or choose a smaller model.",
            what=what, work=describe(work.seconds), limit=describe(budget.seconds)))
    abort(422, description=_(
        "This screen would run %(what)s, %(work)s of computing; the server's limit for one request is %(limit)s. "
        "Shorten the prompt or the text (Back), or choose a smaller model.",
        what=what, work=describe(work.seconds), limit=describe(budget.seconds)))


def within_deadline() -> bool:
    """Whether a heavy request may go on (asked between an export's steps). Once it may not, its answer
    is cut short, and not kept by the cache: the same request on a quiet server gets all of it."""
    deadline = g.get("deadline")
    if deadline is not None and time.monotonic() > deadline:
        g.cut_short = True
        return False
    return True


def budget_seconds() -> float:
    return current_app.extensions["budget"].seconds


def time_requests(app: Flask) -> None:
    """Say each answer's time on the server. Register before the cache, so its hook runs after the
    answer is kept: a kept answer does not carry the time of the request that made it."""

    @app.before_request
    def start_clock():
        g.started = (time.perf_counter(), time.thread_time())

    @app.after_request
    def server_timing(response):
        wall, cpu = g.get("started", (time.perf_counter(), time.thread_time()))
        timing = f"app;dur={(time.perf_counter() - wall) * 1000:.1f}, cpu;dur={(time.thread_time() - cpu) * 1000:.1f}"
        if "estimate" in g:  # what the budget expected, beside what it took (bench/bench_budget.py)
            timing += f", est;dur={g.estimate * 1000:.1f}"
        response.headers["Server-Timing"] = timing
        return response


def register(app: Flask) -> None:
    """Charge each request that computes before its view runs. Register after the cache."""
    slots = app.extensions["heavy_slots"] = threading.BoundedSemaphore(int(app.config.get("HEAVY_REQUESTS",
                                                                                         HEAVY_REQUESTS)))
    budget = app.extensions["budget"] = Budget(
        seconds=float(app.config.get("WORK_BUDGET_SECONDS", WORK_BUDGET_SECONDS)),
        heavy_seconds=float(app.config.get("HEAVY_SECONDS", HEAVY_SECONDS)),
        deadline_seconds=float(app.config.get("DEADLINE_SECONDS", DEADLINE_SECONDS)))

    @app.before_request
    def charge():
        policy = request_policy()
        if policy is None:
            return
        estimate = request_work(policy, budget)
        if estimate is None:
            return
        work, what = estimate
        g.estimate = work.seconds
        if work.seconds > budget.seconds:
            refuse(work, what, budget, search=policy.work is Work.DECODE)
        if work.seconds > budget.heavy_seconds:
            if not slots.acquire(blocking=False):
                abort(503, description=_("The server is busy with another long computation; try again in a moment."))
            g.heavy_slot = True
            g.deadline = time.monotonic() + budget.deadline_seconds

    @app.teardown_request
    def release(_error):
        if g.pop("heavy_slot", False):
            slots.release()

    @app.after_request
    def retry_after(response):
        if response.status_code == 503:
            response.headers.setdefault("Retry-After", str(RETRY_AFTER_SECONDS))
        return response
