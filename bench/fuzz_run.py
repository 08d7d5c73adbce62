"""A long fuzz run: 10,000+ hostile requests from the test suite's strategies, through the Flask test client.

    .venv/bin/python bench/fuzz_run.py                 # 10,000 requests
    .venv/bin/python bench/fuzz_run.py --requests 50000

The requests come from tests/web/test_fuzz.py (every route, raw query strings with broken
encodings, NaN and huge numbers, forged ids, repeated parameters, wrong methods, bodies). The app
is built as the server builds it (no TESTING flag). Prints the count, a histogram of status codes
(overall and per route), and every request that got a 5xx or an unexplained 4xx. Exits 1 if any did.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.web.test_fuzz import fuzz_requests, problems, route_paths, send  # noqa: E402
from webapp.web import create_app  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    opts = parser.parse_args(argv)

    app = create_app()
    app.logger.disabled = True  # a 5xx is reported below, once, not as a traceback per request
    client = app.test_client()
    paths = route_paths(app)
    statuses: Counter[int] = Counter()
    by_route: Counter[tuple[str, int]] = Counter()
    bad: list[tuple[str, list[str]]] = []

    @settings(max_examples=opts.requests, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data):
        req = data.draw(fuzz_requests(paths))
        response = send(client, req)
        statuses[response.status_code] += 1
        route = req.path if req.path in paths else ("/static/..." if req.path.startswith("/static/") else "other")
        by_route[(route, response.status_code)] += 1
        if found := problems(req, response):
            bad.append((repr(req)[:400], found))
        response.close()

    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    total = sum(statuses.values())
    print(f"{total:,} requests in {seconds:.0f} s ({total / seconds:.0f}/s), {len(paths)} routes: {', '.join(paths)}")
    print("status codes: " + ", ".join(f"{code}: {n:,}" for code, n in sorted(statuses.items())))
    for route in sorted({r for r, _ in by_route}):
        counts = ", ".join(f"{code}: {n:,}" for (r, code), n in sorted(by_route.items()) if r == route)
        print(f"  {route:28} {counts}")
    fives = sum(n for code, n in statuses.items() if code >= 500)
    print(f"5xx: {fives}; requests with a problem (5xx, missing header, 4xx without a readable message): {len(bad)}")
    for req, found in bad[:20]:
        print(f"  {found}: {req}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
