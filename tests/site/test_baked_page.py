"""The static page's baked start in real Chromium: the default view moves from its first draw
with the frames the build computed (web/site/bake.py), then the worker goes on from the last
frame shown, with no repeated or missing sample (static/js/baked.js, static/worker.mjs)."""

from __future__ import annotations

import gzip
import json
import math
import re
import time

import pages
import pytest

from integrator_lab.views.live import BAKE_TICKS, BAKE_WALL, SAMPLES_PER_SECOND
from integrator_lab.views.scene import sample_every

site = pages.site
open_page = pages.open_page

pytestmark = pytest.mark.browser

# every frame a system draws, recorded from the page's first frame on (the API is published
# before anything is drawn: catch it as it is set)
RECORD_FRAMES = """
window.recordedFrames = [];
Object.defineProperty(window, "integratorLab", {
  configurable: true,
  get() { return this._lab; },
  set(lab) {
    this._lab = lab;
    lab.onFrame((system, time, source) => window.recordedFrames.push(
      { system, time, source, at: performance.now() }));
  },
});
"""
MARKS = "Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))"


def _boot(site):
    page = (site["dir"] / "index.html").read_text(encoding="utf-8")
    return json.loads(re.search(r'id="il-boot-config">(.*?)</script>', page, re.DOTALL).group(1))


def _recording_page(open_page, query=""):
    page = open_page(query, defer=True)
    page.page.add_init_script(RECORD_FRAMES)
    return page


def _frames(page):
    return page.js("window.recordedFrames")


def test_the_default_page_moves_with_baked_frames_before_python_is_ready(open_page, site):
    from integrator_lab.site.bake import default_view
    from integrator_lab.views.figures import DashboardConfig

    # the file the build wrote holds the default view's frames (their numbers are the
    # worker's own: tests/test_pyodide_agreement.py)
    baked = _boot(site)["baked"]
    assert baked["ticks"] == BAKE_TICKS
    shipped = gzip.decompress((site["dir"] / baked["url"]).read_bytes())
    header = json.loads(shipped[8 : 8 + int.from_bytes(shipped[4:8], "little")])
    assert header["view"] == {**default_view(DashboardConfig()), "speed": 1.0, "playing": True}
    assert len(header["frames"]) == BAKE_TICKS

    page = _recording_page(open_page)
    page.go()
    page.wait("performance.getEntriesByName('il:live').length > 0")
    page.wait("performance.getEntriesByName('il:worker-ready').length > 0")
    marks = page.js(MARKS)
    # moving before Python is up: the panels' first frames are the baked ones (read from
    # the frames recorded as they were drawn: a status read after 'il:live' may come after
    # the hand-over on a fast machine, whose Python is up a moment later)
    assert marks["il:drawn"] <= marks["il:live"] < marks["il:worker-ready"], marks
    frames = _frames(page)
    for system in pages.SYSTEMS:
        mine = [f for f in frames if f["system"] == system]
        assert mine[0]["source"] == "baked" and mine[0]["time"] == 0.0
        assert mine[0]["at"] < marks["il:worker-ready"], system  # drawn before Python was up
    # the loading notes went with the first baked frame
    assert page.page.locator(".il-loading:visible").count() == 0
    # the baked frames run out after their 4 s (or a change ends them): the worker goes on
    page.wait("window.integratorLab.status().source === 'worker'", timeout=pages.BOOT_TIMEOUT_MS)
    page.wait_live()
    status = page.status()
    assert status["bake"] == "handed over"
    # each frame drawn once per play: more than once only when the frames ran out before
    # Python was up and were played again from their start (a loaded machine)
    assert 1 <= status["bakedFrames"] <= BAKE_TICKS * (1 + status["bakeReplays"])
    assert page.errors == []


def test_the_worker_goes_on_from_the_last_baked_frame_with_no_seam(open_page):
    page = _recording_page(open_page)
    page.go()
    page.wait("window.integratorLab.status().source === 'worker'", timeout=pages.BOOT_TIMEOUT_MS)
    # a second of the worker's frames after the handoff
    page.wait(
        "(() => { const s = window.integratorLab.status().systems;"
        " return Object.values(s).every((x) => x.simTime > 5.0); })()",
        timeout=pages.BOOT_TIMEOUT_MS,
    )
    page.page.get_by_role("button", name="Pause").click()
    page.wait("!window.integratorLab.status().running")
    page.settle()  # a frame in flight has landed; paused, the plots took its samples
    frames = _frames(page)
    status = page.status()
    replays = status["bakeReplays"]
    # nothing interrupted them: all played, once per pass (a pass more each time Python was
    # not up when they ran out, as on a loaded machine)
    assert status["bakedFrames"] >= BAKE_TICKS
    for system in pages.SYSTEMS:
        mine = [f for f in frames if f["system"] == system]
        sources = [f["source"] for f in mine]
        # baked frames first, then the worker's, once
        handoff = sources.index("worker")
        assert set(sources[:handoff]) == {"baked"} and set(sources[handoff:]) == {"worker"}
        times = [f["time"] for f in mine]
        # a pass played again starts from the beginning: the worker goes on from the last one
        passes = [0] + [i for i in range(1, handoff) if times[i] < times[i - 1]]
        assert len(passes) == 1 + replays, system
        first = passes[-1]
        # a frame is drawn when its system moved; the worker's first one in any case
        assert all(b > a for a, b in zip(times[first:], times[first + 1 : handoff])), system
        assert times[handoff] >= times[handoff - 1], f"{system}: back at the handoff"
        assert all(b > a for a, b in zip(times[handoff:], times[handoff + 1 :])), system
        dt = status["systems"][system]["dt"]
        # the last baked frame is the state after n frames of BAKE_WALL (BAKE_TICKS - 1 when
        # the pass ran out; a replayed pass is ended where Python came up): the simulation
        # clock stands within one step of that wall time
        last_baked = times[handoff - 1]
        n = BAKE_TICKS - 1 if not replays else math.ceil(last_baked / BAKE_WALL - 1e-9)
        assert n <= BAKE_TICKS - 1
        assert n * BAKE_WALL - dt < last_baked <= n * BAKE_WALL + 1e-9, (system, n, last_baked)
        if dt <= BAKE_WALL:
            # the worker's first tick covers one frame's wall time, to the step: no more, and
            # at least one step (fewer than a frame's where the compute budget,
            # views.live.BUDGET_FRACTION, cut the tick on a loaded machine: slow motion for
            # that frame, not a seam; a clean clone's run saw 15 steps of 1 ms for 16.7 ms)
            gap = times[handoff] - last_baked
            assert dt - 1e-9 < gap < BAKE_WALL + dt + 1e-3, (system, gap)
        # every sample once: the plots' time columns step by the sampling interval
        interval = sample_every(dt, SAMPLES_PER_SECOND) * dt
        for name, lane in status["systems"][system]["integrators"].items():
            t = page.samples(system, name)["t"]
            if lane["divergedAt"] is not None:
                t = [x for x in t if x < lane["divergedAt"]]
                if len(t) < 2:
                    continue
            else:
                assert t[-1] > last_baked + 0.5, (system, name, t[-1])
            assert t[0] == 0.0
            steps = [b - a for a, b in zip(t, t[1:])]
            bad = [
                (t[i], s)
                for i, s in enumerate(steps)
                if not math.isclose(s, interval, rel_tol=1e-6)
            ]
            assert not bad, f"{system}/{name}: samples spaced {bad[:5]}, expected {interval}"
    assert page.errors == []


#: pauses the page from within, at the animation frame where 20 baked frames have been drawn
#: (a click from the test could come after the bake on a loaded machine, or a poll started
#: after the page's load event too late): records what the status said then
PAUSE_AT_20_BAKED = """
(() => {
  const check = () => {
    const lab = window.integratorLab;
    const status = lab && lab.status();
    if (status && status.bakedFrames >= 20) {
      window.pausedAt = status;
      lab.model("controls:play").active = false;
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();
"""


def test_a_change_during_the_baked_frames_hands_over_where_they_stood(open_page):
    page = _recording_page(open_page)
    page.page.add_init_script(PAUSE_AT_20_BAKED)
    page.go()
    page.wait("window.pausedAt !== undefined", timeout=pages.BOOT_TIMEOUT_MS)
    paused_at = page.js("window.pausedAt")
    assert paused_at["bake"] == "playing" and paused_at["source"] == "baked", paused_at
    page.wait("!window.integratorLab.status().running")
    page.wait("window.integratorLab.status().source === 'worker'", timeout=60_000)
    page.settle()
    status = page.status()
    assert status["bake"] == "handed over"
    # the cradle's last baked frame drawn (frames are played again from their start while
    # Python is not up: the last one, not the latest time)
    shown = page.js(
        "window.recordedFrames.filter((f) => f.source === 'baked' && f.system === 'cradle')"
        ".at(-1).time"
    )
    # paused at the frame shown: the worker's state is the baked one, and stays
    cradle = status["systems"]["cradle"]["simTime"]
    assert cradle == pytest.approx(shown, abs=1e-12)
    time.sleep(500 / 1000)  # the behaviour: paused, it stays there over a while
    assert page.status()["systems"]["cradle"]["simTime"] == cradle
    assert page.errors == []


def test_a_link_to_another_view_plays_no_baked_frames(open_page, site):
    page = _recording_page(open_page, "?pendulum.dt=0.01")
    page.go()
    page.wait_live()
    page.wait_samples(5)
    status = page.status()
    assert status["bakedFrames"] == 0 and status["bake"] is None
    assert status["source"] == "worker"
    assert {f["source"] for f in _frames(page)} == {"worker"}
    marks = page.js(MARKS)
    assert marks["il:worker-ready"] < marks["il:live"]
    baked = _boot(site)["baked"]["url"]
    assert not any(url.endswith(baked) for url in page.requests)  # not even downloaded
    assert page.errors == []


@pytest.mark.parametrize("fault", ["missing", "truncated"])
def test_a_bad_baked_file_means_the_workers_start_without_an_error(open_page, site, fault):
    url = _boot(site)["baked"]["url"]
    real = (site["dir"] / url).read_bytes()
    page = open_page(defer=True)
    infos = []
    page.page.on("console", lambda m: m.type == "info" and infos.append(m.text))

    def answer(route):
        if fault == "missing":
            route.fulfill(status=404, body="not found")
        else:
            route.fulfill(status=200, body=real[: len(real) // 2])

    page.page.route(f"**/{url}", answer)
    page.go()
    page.wait_live()
    page.wait_samples(5)
    status = page.status()
    assert status["bakedFrames"] == 0 and status["source"] == "worker"
    assert any("no baked frames" in text for text in infos), infos
    assert page.errors == []
    assert page.messages() == []


def test_the_baked_frames_play_again_until_python_is_up(open_page, site):
    # Pyodide's WebAssembly is held back: the baked frames run out and play again from their
    # start (the page never stands still), the panels saying that Python is starting
    wasm = site["files"]["pyodide/pyodide.asm.wasm.gz"]
    held = []
    page = open_page(defer=True)
    page.page.route(f"**/{wasm}", lambda route: held.append(route))
    page.go()
    # (the replay is counted as it starts, before its first frame is drawn: both waited for)
    page.wait(
        "window.integratorLab.status().bakeReplays >= 1 && "
        f"window.integratorLab.status().bakedFrames > {BAKE_TICKS}",
        timeout=60_000,
    )
    status = page.status()
    assert status["source"] == "baked" and status["bake"] == "playing"
    assert status["bakedFrames"] > BAKE_TICKS
    assert not status["ready"] and status["error"] is None
    drawn = status["bakedFrames"]
    page.wait(f"window.integratorLab.status().bakedFrames > {drawn + 10}")  # still moving
    assert held, "the worker never asked for Pyodide's WebAssembly"
    for route in held:
        route.continue_()
    page.wait("window.integratorLab.status().source === 'worker'", timeout=60_000)
    page.wait_live()
    after = page.status()
    assert after["bake"] == "handed over"
    for system in pages.SYSTEMS:
        assert "starting Python" not in page.page.locator(f"#il-status-{system}").inner_text()
    assert page.errors == []
