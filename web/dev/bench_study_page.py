"""How long the page's default study takes in headless Chromium, beside the live view.

Opens the built page with the spring panel in its study view (``?study=spring``: the default
study of the page, four integrators, T = 10 s, twelve steps from 0.1 s to 0.5 ms, 48 points;
the other two panels run live), and reports the wall time from the study's start to its last
point as the page measured it (``integratorLab.study("spring").pageSeconds``) and the worker's
own time, with the real-time factor the live panels kept meanwhile::

    python -m integrator_lab.dev.bench_study_page [--runs N] [--site DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time

from integrator_lab.dev.chromium import CHROMIUM_ARGS
from integrator_lab.dev.chromium import chromium_path as _chromium
from integrator_lab.site.build import build_site, make_server

QUERY = "?study=spring"


def measure(url: str, runs: int) -> list[dict]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            page.goto(url + QUERY)
            page.wait_for_function("window.integratorLab.status().ready", timeout=120_000)
            t0 = page.evaluate("window.integratorLab.status().systems.pendulum.simTime")
            w0 = time.perf_counter()
            page.wait_for_function("window.integratorLab.study('spring').done", timeout=600_000)
            wall = time.perf_counter() - w0
            t1 = page.evaluate("window.integratorLab.status().systems.pendulum.simTime")
            study = page.evaluate("window.integratorLab.study('spring')")
            out.append(
                {
                    "page_seconds": study["pageSeconds"],
                    "worker_seconds": study["seconds"],
                    "points": study["points"],
                    "live_rtf": (t1 - t0) / wall,
                }
            )
            context.close()
        browser.close()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", help="a built site (default: build one)")
    args = parser.parse_args(argv)
    site = args.site or build_site(tempfile.mkdtemp(prefix="il-bench-study-") + "/site")
    server = make_server(site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        results = measure(f"http://{host}:{port}/", args.runs)
    finally:
        server.shutdown()
    for r in results:
        print(
            f"study {r['page_seconds']:.2f} s in the page ({r['worker_seconds']:.2f} s in the "
            f"worker), {r['points']} points; live pendulum meanwhile {r['live_rtf']:.2f}x real time"
        )
    med = statistics.median(r["page_seconds"] for r in results)
    print(f"median of {len(results)}: {med:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
