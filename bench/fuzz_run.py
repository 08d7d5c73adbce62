"""A long fuzz run: 10,000+ hostile requests from the test suite's strategies, through the Flask test client.

    .venv/bin/python bench/fuzz_run.py                 # 10,000 requests, and 10,000 to the class room
    .venv/bin/python bench/fuzz_run.py --requests 50000 --room-requests 20000

The requests come from tests/web/test_fuzz.py (every route, raw query strings with broken
encodings, NaN and huge numbers, forged ids, repeated parameters, wrong methods, bodies; and the
class room's routes with rooms that exist, the teacher's and students' cookies, Origins and forms
of any of their fields). The app is built as the server builds it (no TESTING flag), on a room
store of its own in a temporary folder. Prints the count, a histogram of status codes (overall and
per route), and every request that got a 5xx (but a 503 with Retry-After), an unexplained 4xx or
JSON that does not parse strictly. Exits 1 if any did.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.web.test_fuzz import (  # noqa: E402
    ROOM_RULES,
    fuzz_requests,
    open_rooms,
    problems,
    room_requests,
    route_paths,
    send,
    send_to_room,
)
from webapp.web import create_app  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--room-requests", type=int, default=10_000)
    opts = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="fuzz-rooms-") as folder:
        app = create_app({"ROOM_STORE": f"sqlite:///{folder}/rooms.sqlite3"})
        app.logger.disabled = True  # a 5xx is reported below, once, not as a traceback per request
        client = app.test_client()
        paths = route_paths(app)
        world = open_rooms(app)
        statuses: Counter[int] = Counter()
        by_route: Counter[tuple[str, int]] = Counter()
        bad: list[tuple[str, list[str]]] = []

        def record(req, route: str, response) -> None:
            statuses[response.status_code] += 1
            by_route[(route, response.status_code)] += 1
            if found := problems(req, response):
                bad.append((repr(req)[:400], found))
            response.close()

        @settings(max_examples=opts.requests, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(data=st.data())
        def run(data):
            req = data.draw(fuzz_requests(paths))
            route = req.path if req.path in paths else ("/static/..." if req.path.startswith("/static/") else "other")
            record(req, route, send(client, req))

        @settings(max_examples=opts.room_requests, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(req=room_requests())
        def run_room(req):
            response, sent = send_to_room(app, world, req)
            route = next((rule for rule in ROOM_RULES if rule.replace("<code>", "") == req.path.replace(
                req.path.split("/")[2] if req.path.startswith("/room/") else "", "")), "room: other")
            record(sent, f"{req.method} {route}", response)

        start = time.perf_counter()
        run()
        run_room()
        seconds = time.perf_counter() - start
    total = sum(statuses.values())
    print(f"{total:,} requests in {seconds:.0f} s ({total / seconds:.0f}/s), {len(paths)} routes: {', '.join(paths)}")
    print("status codes: " + ", ".join(f"{code}: {n:,}" for code, n in sorted(statuses.items())))
    for route in sorted({r for r, _ in by_route}):
        counts = ", ".join(f"{code}: {n:,}" for (r, code), n in sorted(by_route.items()) if r == route)
        print(f"  {route:32} {counts}")
    fives = sum(n for code, n in statuses.items() if code >= 500)
    print(f"5xx: {fives} (503 with Retry-After: the server busy or full, as it says); requests with a problem "
          f"(another 5xx, a missing header, a 4xx without a readable message, JSON that does not parse): {len(bad)}")
    for req, found in bad[:20]:
        print(f"  {found}: {req}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
