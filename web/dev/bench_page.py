"""Benchmark of the static page in headless Chromium, served on 127.0.0.1.

Measures, each run in a fresh browser context (cold cache), then once more after a reload
(warm cache):

- **first draw**: navigation start to the dashboard drawn by BokehJS (the page's
  ``il:drawn`` performance mark), before Python runs;
- **live**: navigation start to the first simulation frame drawn in every panel (``il:live``);
- **every part drawn**: navigation start to the parts out of sight (each panel's fields,
  below its plots), drawn after the first paint, being drawn too (``il:all-drawn``);
- **fps**: animation frames per second the page paints (``requestAnimationFrame`` callbacks)
  and how many of them show new simulation data, over a measuring window;
- **page CPU**: CPU time of the page's main thread (where BokehJS paints) per wall second
  over the same window, and per frame with new data (DevTools' ``ThreadTime``): what a live
  page costs a laptop, and a test machine running two pages at once;
- **real-time factor** per panel with the default integrators: simulated seconds per wall
  second over the same window (1.0 means the panel keeps up with real time);
- **page weight**: bytes of every file the page fetched.

Run ``integrator-lab bench-page`` (or ``python -m integrator_lab.dev.bench_page``); it builds
the site first unless ``--site`` names a built one. ``--screenshot PATH`` saves the dashboard
as it runs (the README's picture).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from integrator_lab.dev.chromium import CHROMIUM_ARGS, VIEWPORT
from integrator_lab.dev.chromium import chromium_path as _chromium
from integrator_lab.site.build import build_site, make_server

SYSTEMS = ("pendulum", "cradle", "spring")
GOALS = {"first draw": "<= 0.8 s", "live": "<= 1.0 s", "fps": "60", "rtf": "1.0"}
#: time to live animation over time to the first drawn dashboard, of the same load
RATIO_GOAL = 1.5

_FPS_SCRIPT = """(seconds) => new Promise((resolve) => {
  const start = performance.now();
  const drawn0 = window.integratorLab.status().framesDrawn;
  const s0 = window.integratorLab.status().systems;
  let frames = 0;
  function tick(now) {
    frames += 1;
    if (now - start < seconds * 1000) { requestAnimationFrame(tick); return; }
    const wall = (now - start) / 1000;
    const status = window.integratorLab.status();
    const rtf = {};
    for (const [name, s] of Object.entries(status.systems)) {
      rtf[name] = (s.simTime - s0[name].simTime) / wall;
    }
    resolve({fps: frames / wall, dataFps: (status.framesDrawn - drawn0) / wall, rtf, wall,
             dataFrames: status.framesDrawn - drawn0,
             pageRtf: Object.fromEntries(Object.entries(status.systems).map(
               ([n, s]) => [n, s.realTimeFactor]))});
  }
  requestAnimationFrame(tick);
})"""


def measure_once(browser, url, site_dir, seconds, screenshot=None) -> dict:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    fetched, errors = [], []
    page.on("request", lambda r: fetched.append(r.url))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(url)
        page.wait_for_function(
            "performance.getEntriesByName('il:live').length > 0", timeout=120_000
        )
        marks = page.evaluate(
            "Object.fromEntries(performance.getEntriesByType('mark')"
            ".map((m) => [m.name, m.startTime]))"
        )
        # (a page built before the parts drawn after the first paint has no such mark: the
        # README's A/B runs measure older builds too)
        page.wait_for_function(
            "performance.getEntriesByName('il:all-drawn').length > 0"
            " || !('allDrawn' in window.integratorLab.status())",
            timeout=120_000,
        )
        marks["il:all-drawn"] = page.evaluate(
            "performance.getEntriesByName('il:all-drawn')[0]?.startTime ?? NaN"
        )
        page.wait_for_timeout(1500)  # let the JIT and the cost estimates settle
        devtools = context.new_cdp_session(page)
        devtools.send("Performance.enable")
        cpu0 = _thread_time(devtools)
        result = page.evaluate(_FPS_SCRIPT, seconds)
        cpu = _thread_time(devtools) - cpu0
        timings = page.evaluate("window.integratorLab.status().workerTimings")
        boot = page.evaluate("window.integratorLab.status().boot")
        if screenshot:
            page.screenshot(path=str(screenshot))
        # a reload in the same context: the browser's cache holds the files and the
        # compiled WebAssembly
        page.reload()
        page.wait_for_function(
            "performance.getEntriesByName('il:live').length > 0", timeout=120_000
        )
        warm = page.evaluate(
            "Object.fromEntries(performance.getEntriesByType('mark')"
            ".map((m) => [m.name, m.startTime]))"
        )
    finally:
        context.close()
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    weight = transfer = 0
    for requested in set(fetched):
        if requested.startswith(origin + "/"):
            path = urlsplit(requested).path.lstrip("/") or "index.html"
            file = Path(site_dir, path)
            if file.is_file():
                weight += file.stat().st_size
                transfer += _transfer_size(file)
    return {
        "first_draw": marks["il:drawn"] / 1000,
        "live": marks["il:live"] / 1000,
        "all_drawn": marks["il:all-drawn"] / 1000,
        "warm_first_draw": warm["il:drawn"] / 1000,
        "warm_live": warm["il:live"] / 1000,
        "worker_ready": marks.get("il:worker-ready", float("nan")) / 1000,
        "python_boot": timings.get("pyodide", float("nan")) / 1000,
        "fps": result["fps"],
        "data_fps": result["dataFps"],
        "cpu": cpu / result["wall"],
        "cpu_per_frame": cpu / max(result["dataFrames"], 1),
        "rtf": result["rtf"],
        "weight": weight,
        "transfer": transfer,
        "boot": boot,
        "foreign": [u for u in fetched if not u.startswith(origin)],
        "errors": errors,
    }


def _thread_time(devtools) -> float:
    """CPU seconds the page's main thread has used (DevTools' Performance metrics)."""
    metrics = devtools.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "ThreadTime")


#: files already compressed: a host sends them as they are
_COMPRESSED = (".gz", ".zip", ".png")
_transfer_sizes: dict[tuple[Path, float], int] = {}


def _transfer_size(file: Path) -> int:
    """Bytes a host that compresses its responses (gzip, level 6) sends for ``file``."""
    key = (file, file.stat().st_mtime)
    if key not in _transfer_sizes:
        data = file.read_bytes()
        size = len(data)
        if file.suffix not in _COMPRESSED:
            size = min(size, len(gzip.compress(data, compresslevel=6)))
        _transfer_sizes[key] = size
    return _transfer_sizes[key]


def run(site_dir, runs=3, seconds=5.0, screenshot=None) -> list[dict]:
    return run_sites([site_dir], runs, seconds, screenshot)[0]


def run_sites(site_dirs, runs=3, seconds=5.0, screenshot=None) -> list[list[dict]]:
    """``runs`` cold loads of each site, the sites taking turns in one browser (so that an
    A/B comparison sees the same machine); one list of results per site."""
    from playwright.sync_api import sync_playwright

    servers = [make_server(site, 0) for site in site_dirs]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = ["http://{}:{}/".format(*server.server_address[:2]) for server in servers]
    results: list[list[dict]] = [[] for _ in site_dirs]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
            try:
                for k in range(runs):
                    for site, url, out in zip(site_dirs, urls, results):
                        shot = screenshot if (screenshot and k == runs - 1) else None
                        out.append(measure_once(browser, url, site, seconds, shot))
            finally:
                browser.close()
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    return results


def compare(site_dirs, results) -> str:
    """First draw and live of sites loaded in turns: medians, and each later site's
    difference from the first one's load of the same turn."""
    lines = [f"{len(results[0])} cold loads of each site, in turns (medians):"]
    for site, rs in zip(site_dirs, results):
        draw = statistics.median(r["first_draw"] for r in rs)
        live = statistics.median(r["live"] for r in rs)
        cpu = statistics.median(r["cpu_per_frame"] for r in rs) * 1000
        fps = statistics.median(r["data_fps"] for r in rs)
        lines.append(
            f"  {str(site):40s} first draw {draw:5.3f} s  live {live:5.3f} s  "
            f"{fps:4.1f} frames/s, {cpu:5.1f} ms main-thread CPU per frame"
        )
    for site, rs in zip(site_dirs[1:], results[1:]):
        deltas = [r["first_draw"] - a["first_draw"] for r, a in zip(rs, results[0])]
        lines.append(
            f"  first draw of {site} minus {site_dirs[0]}, load by load: "
            + ", ".join(f"{d:+.3f}" for d in deltas)
            + " s"
        )
    return "\n".join(lines)


def report(results, seconds) -> str:
    for r in results:
        r["ratio"] = r["live"] / r["first_draw"]

    def med(key):
        return statistics.median(r[key] for r in results)

    lines = [f"Each cold load: first draw, live, live / first draw (goal <= {RATIO_GOAL}), boot"]
    for k, r in enumerate(results, 1):
        lines.append(
            f"  load {k}: {r['first_draw']:5.2f} s  {r['live']:5.2f} s  "
            f"{r['live'] / r['first_draw']:4.2f}  {r['boot']}"
        )
    lines += [
        f"Static page in headless Chromium, {len(results)} cold loads, medians "
        f"(fps and real-time factors over {seconds:g} s, default integrators):",
        f"  time to first drawn dashboard  {med('first_draw'):6.2f} s   "
        f"(goal {GOALS['first draw']})",
        f"  time to live animation         {med('live'):6.2f} s   (goal {GOALS['live']};"
        f" Pyodide loaded {med('python_boot'):.2f} s after the worker started)",
        f"  every part drawn               {med('all_drawn'):6.2f} s   (the fields below "
        "the plots, drawn after the first paint)",
        f"  same, reloaded (warm cache)    {med('warm_first_draw'):6.2f} s / "
        f"{med('warm_live'):.2f} s",
        f"  frames per second              {med('fps'):6.1f}     (goal {GOALS['fps']};"
        f" {med('data_fps'):.1f} of them with new simulation data)",
        f"  page's main thread CPU         {med('cpu'):6.2f} s/s  "
        f"({med('cpu_per_frame') * 1000:.1f} ms per frame with new data)",
    ]
    for system in SYSTEMS:
        rtf = statistics.median(r["rtf"][system] for r in results if system in r["rtf"])
        lines.append(f"  real-time factor, {system:<12} {rtf:6.2f}     (goal {GOALS['rtf']})")
    lines.append(f"  live / first draw              {med('ratio'):6.2f}     (goal <= {RATIO_GOAL})")
    lines.append(
        f"  page weight                    {med('weight') / 1e6:6.2f} MB "
        f"(uncompressed, every file fetched); {med('transfer') / 1e6:.2f} MB sent by a host "
        "that compresses (gzip)"
    )
    foreign = sorted({u for r in results for u in r["foreign"]})
    errors = sorted({e for r in results for e in r["errors"]})
    lines.append(f"  requests off the origin: {len(foreign)}; console errors: {len(errors)}")
    lines += [f"    {item}" for item in foreign + errors]
    return "\n".join(lines)


_LIVE_MARKS = """() => ({
  drawn: performance.getEntriesByName("il:drawn")[0]?.startTime ?? null,
  live: performance.getEntriesByName("il:live")[0].startTime,
  boot: window.integratorLab.status().boot,
})"""


def bench_single_file(runs: int) -> int:
    """The one-file page opened from disk, built with and without Pyodide's snapshot: time to
    the first drawn dashboard and to live animation, loads alternating so that both see the
    same machine; medians, and the sizes."""
    from playwright.sync_api import sync_playwright

    from integrator_lab.site.single_file import build_single_file

    with tempfile.TemporaryDirectory(prefix="integrator-lab-bench-") as tmp:
        files = {
            "snapshot": build_single_file(Path(tmp) / "with.html", snapshot=True),
            "plain": build_single_file(Path(tmp) / "without.html", snapshot=False),
        }
        times: dict[str, list[dict]] = {kind: [] for kind in files}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
            for _ in range(runs):
                for kind, path in files.items():
                    context = browser.new_context(viewport=VIEWPORT, offline=True)
                    page = context.new_page()
                    page.goto(path.as_uri())
                    page.wait_for_function(
                        "performance.getEntriesByName('il:live').length > 0", timeout=180_000
                    )
                    marks = page.evaluate(_LIVE_MARKS)
                    assert marks["boot"] == kind, marks
                    times[kind].append(marks)
                    context.close()
            browser.close()
        print(f"one-file page from file://, {runs} loads each, alternating (medians):")
        for kind, path in files.items():
            drawn = statistics.median(m["drawn"] for m in times[kind]) / 1e3
            live = statistics.median(m["live"] for m in times[kind]) / 1e3
            size = path.stat().st_size / 1e6
            print(f"  {kind:8s} {size:5.1f} MB  first draw {drawn:.2f} s  live {live:.2f} s")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="integrator-lab bench-page", description=__doc__.split("\n\n")[0]
    )
    add_arguments(parser)
    return cmd_bench_page(parser.parse_args(argv))


def add_arguments(parser) -> None:
    parser.add_argument("--site", metavar="DIR", help="a built site (default: build one)")
    parser.add_argument("--runs", type=int, default=3, help="cold page loads (default 3)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="measuring window for fps and real-time factors (default 5)",
    )
    parser.add_argument("--screenshot", metavar="PNG", help="save the dashboard here")
    parser.add_argument(
        "--compare",
        metavar="DIR",
        nargs="+",
        help="instead: built sites loaded in turns with --site (or the one built), an A/B "
        "comparison of first draw and live",
    )
    parser.add_argument(
        "--single-file",
        action="store_true",
        help="instead: the one-file page from file://, with and without the snapshot, "
        "loads alternating",
    )
    parser.add_argument(
        "--network",
        choices=("local", "40mbit", "10mbit", "slow4g"),
        help="instead: cold, second and offline visits on a throttled link (DevTools network "
        "conditions): bytes, first draw, moving, Python ready, longest still period "
        "(web/dev/bench_network.py)",
    )


def cmd_bench_page(args) -> int:
    if args.runs < 1 or not args.seconds > 0:
        print("bench-page: --runs must be >= 1 and --seconds > 0", file=sys.stderr)
        return 2
    if args.single_file:
        return bench_single_file(args.runs)
    with tempfile.TemporaryDirectory(prefix="integrator-lab-bench-") as tmp:
        site = Path(args.site) if args.site else build_site(Path(tmp) / "site")
        started = time.perf_counter()
        if args.network:
            from integrator_lab.dev.bench_network import cmd_network

            return cmd_network(site, args.network, args.runs)
        if args.compare:
            sites = [site, *map(Path, args.compare)]
            print(compare(sites, run_sites(sites, args.runs, args.seconds)))
            return 0
        results = run(site, args.runs, args.seconds, args.screenshot)
        print(report(results, args.seconds))
        print(f"  ({time.perf_counter() - started:.0f} s of benchmarking)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
