"""Time the panel "Inside the forward pass": computing it, and rendering the screen with it open or closed.

    python bench/bench_inside.py [--repeats 5]

For each model (the fetched smollm2-135m too, if present) and context length (16 and 128; SmolLM2
also 512), prints the median time of inside_step (one uncached forward pass with its intermediates,
the lens and the panel's figures), the median time of a whole page with the panel open and with it
closed (Flask test client), and the open panel's HTML size. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from urllib.parse import urlencode

import numpy as np

from webapp.inference import Settings, run_step_table
from webapp.inference.derived.inside import inside_step
from webapp.web import create_app


def median_ms(fn, repeats: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    app = create_app({"TESTING": True, "RESPONSE_CACHE_BYTES": 0})  # time the rendering, not the answer cache
    client = app.test_client()
    models = app.extensions["models"]
    columns = ("context", "inside_step", "page open", "page closed", "panel HTML")
    print(f"{'model':20s} " + " ".join(f"{c:>12s}" for c in columns))
    for name, model in models.items():
        lengths = (16, 128, 512) if name == "smollm2-135m" else (16, 128)
        for n in lengths:
            ids = np.random.default_rng(n).integers(10, min(model.n_vocab, 5000), n).tolist()
            result = run_step_table(model, "", ids[:-1], Settings())
            compute = median_ms(lambda: inside_step(model, result), args.repeats)  # noqa: B023
            query = urlencode({"prompt": "", "model": name, "ids": ",".join(map(str, ids))})
            page_open = median_ms(lambda: client.get(f"/?{query}&inside=1"), args.repeats)  # noqa: B023
            page_closed = median_ms(lambda: client.get(f"/?{query}"), args.repeats)  # noqa: B023
            html = client.get(f"/?{query}&inside=1").data.decode()
            panel = html[html.index('<section id="inside"') :]
            panel = panel[: panel.index("</section>") + 10]
            print(f"{name:20s} {n:12d} {compute:9.1f} ms {page_open:9.1f} ms {page_closed:9.1f} ms "
                  f"{len(panel) / 1024:9.1f} KB")


if __name__ == "__main__":
    main()
