"""The static page on the networks students have: cold, second and offline visits in headless
Chromium with DevTools network throttling (``integrator-lab bench-page --network PROFILE``).

The site is served by the preview server, which compresses like a static host (gzip for the
page's scripts and Pyodide's WebAssembly). Chromium throttles every request of the page, the
worker's included: ``Network.emulateNetworkConditions`` on the page's DevTools session applies
to its dedicated worker too (the wasm's download time below shows it: 3.5 MB at 10 Mbit/s
cannot arrive in less than 2.8 s). Bytes are counted by the server: every byte it sends.

Per cold load (a fresh browser context, empty cache):

- **bytes**: sent by the server for that load (every request, headers included);
- **first draw**: the dashboard drawn (``il:drawn``);
- **moving**: the first frame animated (baked or live, ``il:live``);
- **Python ready**: the worker answers (``il:worker-ready``);
- **longest still period**: the longest time, from the first draw until Python is ready, in
  which no panel drew a new frame (the animation stood still).

The cold visit's tab then stays open, as a visitor's does, until the page says its files are
kept for later (``status().offline.state``, the service worker registered once Python is up;
**kept after**, from the page's start). Closing it at once would measure a visitor who leaves
before the page could keep anything: the next visit would be a cold one again.

Then a **second visit** (a new tab, same browser profile: its cache and service worker) and an
**offline visit** (the same profile with the network cut): bytes and Python ready.
"""

from __future__ import annotations

import functools
import http.server
import statistics
import threading
from dataclasses import dataclass
from pathlib import Path

from integrator_lab.site.build import SiteHandler, warm_gzip


@dataclass(frozen=True)
class Profile:
    """A network link: throughput in bits per second (0: not throttled) and round-trip
    latency in ms, as DevTools' network conditions take them."""

    bits_per_second: float
    latency_ms: float
    about: str


PROFILES = {
    "local": Profile(0, 0, "127.0.0.1, not throttled"),
    "40mbit": Profile(40e6, 20, "40 Mbit/s, 20 ms"),
    "10mbit": Profile(10e6, 40, "10 Mbit/s, 40 ms (a classroom's share of its Wi-Fi)"),
    "slow4g": Profile(1.6e6, 150, '1.6 Mbit/s, 150 ms ("slow 4G")'),
}
#: a cold load on slow 4G took 72 s before this work: room for that, and more
LOAD_TIMEOUT_MS = 240_000

# Records, in the page, when each animation frame drew something new (baked or live):
# window.__ilFrames, performance.now() values. Registered as soon as the page's API exists.
_FRAME_RECORDER = """
(() => {
  window.__ilFrames = [];
  const hook = () => {
    if (!window.integratorLab) { setTimeout(hook, 5); return; }
    let lastFrame = -1;
    window.integratorLab.onFrame(() => {
      const now = performance.now();
      // one entry per animation frame (several systems draw in the same one)
      if (now - lastFrame > 1) window.__ilFrames.push(now);
      lastFrame = now;
    });
  };
  hook();
})();
"""

# the offline copy settled: kept, or failed (the page says why); null until the worker says
# which files it fetched, just after Python is ready
_KEPT = """() => { const s = window.integratorLab.status().offline.state;
  return s === "kept" || String(s).startsWith("failed"); }"""

_MARKS = """() => Object.fromEntries(performance.getEntriesByType('mark')
  .map((m) => [m.name, m.startTime]))"""


class _Counter:
    """Bytes the server sent, across its threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent = 0

    def add(self, n: int) -> None:
        with self.lock:
            self.sent += n


class _CountingWriter:
    def __init__(self, raw, counter: _Counter) -> None:
        self.raw, self.counter = raw, counter

    def write(self, data) -> int:
        self.counter.add(len(data))
        return self.raw.write(data)

    def __getattr__(self, name):
        return getattr(self.raw, name)


def counting_server(site_dir, counter: _Counter) -> http.server.ThreadingHTTPServer:
    """The preview server (gzip like a static host), counting every byte it sends."""

    class Counting(SiteHandler):
        def setup(self) -> None:
            super().setup()
            self.wfile = _CountingWriter(self.wfile, counter)  # type: ignore[assignment]

    handler = functools.partial(Counting, directory=str(Path(site_dir).resolve()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    warm_gzip(site_dir)
    return server


def _throttle(context, page, profile: Profile) -> None:
    if not profile.bits_per_second:
        return
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": profile.latency_ms,
            "downloadThroughput": profile.bits_per_second / 8,
            "uploadThroughput": profile.bits_per_second / 8,
        },
    )


def _visit(context, url, profile, counter, *, timeout=LOAD_TIMEOUT_MS, stay=False) -> dict:
    """One visit in ``context``: its marks, frames, bytes; ``ready`` None if Python never
    answered within the timeout. ``stay``: keep the tab open until the page has kept its
    files for the next visit (``kept``: seconds from the page's start, NaN if it did not)."""
    page = context.new_page()
    _throttle(context, page, profile)
    before = counter.sent
    result: dict = {"error": None}
    try:
        page.goto(url, timeout=timeout)
        page.wait_for_function(
            "performance.getEntriesByName('il:worker-ready').length > 0", timeout=timeout
        )
        marks = page.evaluate(_MARKS)
        frames = page.evaluate("window.__ilFrames")
        progress = page.evaluate("window.integratorLab.status().progress ?? null")
        boot = page.evaluate("window.integratorLab.status().boot")
        if stay:
            page.wait_for_function(_KEPT, timeout=timeout)
            result["kept"] = page.evaluate("performance.now()") / 1000
            result["kept_state"] = page.evaluate("window.integratorLab.status().offline.state")
    except Exception as exc:  # a visit that fails (offline before any cache) is a result
        result["error"] = str(exc).splitlines()[0]
        marks, frames, progress, boot = {}, [], None, None
    finally:
        page.close()
    result["bytes"] = counter.sent - before
    result["boot"] = boot
    result["progress"] = progress

    def seconds(mark):
        return marks[mark] / 1000 if mark in marks else float("nan")

    result["first_draw"] = seconds("il:drawn")
    result["moving"] = seconds("il:live")
    result["ready"] = seconds("il:worker-ready")
    result["still"] = longest_still(marks.get("il:drawn"), marks.get("il:worker-ready"), frames)
    return result


def longest_still(drawn, ready, frames) -> float:
    """The longest gap (s) between the first draw and Python's answer in which no new frame
    was drawn."""
    if drawn is None or ready is None:
        return float("nan")
    times = [drawn] + [f for f in frames if drawn < f < ready] + [ready]
    return max(b - a for a, b in zip(times, times[1:])) / 1000


def measure_profile(site_dir, profile_name: str, runs: int, log=print) -> dict:
    """``runs`` cold loads under the profile, each followed by a second and an offline visit in
    the same browser profile; the results."""
    from playwright.sync_api import sync_playwright

    from integrator_lab.dev.chromium import CHROMIUM_ARGS, VIEWPORT
    from integrator_lab.dev.chromium import chromium_path as _chromium

    profile = PROFILES[profile_name]
    counter = _Counter()
    server = counting_server(site_dir, counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://{}:{}/".format(*server.server_address[:2])
    out: dict = {"cold": [], "second": [], "offline": []}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
            try:
                for k in range(runs):
                    context = browser.new_context(viewport=VIEWPORT)
                    context.add_init_script(_FRAME_RECORDER)
                    try:
                        cold = _visit(context, url, profile, counter, stay=True)
                        second = _visit(context, url, profile, counter)
                        context.set_offline(True)
                        offline = _visit(context, url, profile, counter)
                    finally:
                        context.close()
                    for key, r in (("cold", cold), ("second", second), ("offline", offline)):
                        out[key].append(r)
                    log(
                        f"  load {k + 1}: {cold['bytes'] / 1e6:5.2f} MB  first draw "
                        f"{cold['first_draw']:5.2f} s  moving {cold['moving']:5.2f} s  "
                        f"ready {cold['ready']:5.2f} s  still {cold['still']:5.2f} s  "
                        f"({cold['boot']}{', ' + cold['error'] if cold['error'] else ''}; "
                        f"{cold.get('kept_state')} after {cold.get('kept', float('nan')):.1f} s);  "
                        f"second: {second['bytes'] / 1e6:5.2f} MB first draw "
                        f"{second['first_draw']:5.2f} s ready {second['ready']:5.2f} s;  offline: "
                        + (
                            f"ready {offline['ready']:5.2f} s"
                            if offline["error"] is None
                            else f"fails ({offline['error'][:60]})"
                        )
                    )
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return out


def report(profile_name: str, out: dict) -> str:
    def med(visits, key):
        values = [v[key] for v in visits if v.get(key, float("nan")) == v.get(key, float("nan"))]
        return statistics.median(values) if values else float("nan")

    cold, second, offline = out["cold"], out["second"], out["offline"]
    offline_ok = sum(v["error"] is None for v in offline)
    return "\n".join(
        [
            f"{PROFILES[profile_name].about}: {len(cold)} cold loads, medians",
            f"  bytes per cold load    {med(cold, 'bytes') / 1e6:6.2f} MB",
            f"  first draw             {med(cold, 'first_draw'):6.2f} s",
            f"  moving                 {med(cold, 'moving'):6.2f} s",
            f"  Python ready           {med(cold, 'ready'):6.2f} s",
            f"  longest still period   {med(cold, 'still'):6.2f} s",
            f"  files kept after       {med(cold, 'kept'):6.2f} s (the cold visit's tab open)",
            f"  second visit           {med(second, 'bytes') / 1e6:6.2f} MB, first draw "
            f"{med(second, 'first_draw'):.2f} s, Python ready {med(second, 'ready'):.2f} s",
            f"  offline visit          {offline_ok} of {len(offline)} went live"
            + (f", Python ready {med(offline, 'ready'):.2f} s" if offline_ok else ""),
        ]
    )


def cmd_network(site_dir, profile_name: str, runs: int) -> int:
    print(f"bench-page --network {profile_name}: {PROFILES[profile_name].about}")
    out = measure_profile(site_dir, profile_name, runs)
    print(report(profile_name, out))
    return 0
