"""The static page in a real browser, shared by the tests of tests/site: the built site, served
on 127.0.0.1 (the ``site`` fixture), one tab on it in headless Chromium (:class:`Page`, the
``open_page`` fixture) and what the tests wait with (``SETTLE_JS``, ``NEXT_FRAMES_JS``).

Every check reads what the page's worker computed (``window.integratorLab``), not just what a
widget shows. A module takes the fixtures by importing them by name
(``from pages import open_page, site``). The static page's own tests are
test_static_page_controls.py, _faults.py, _drawing.py and _fields.py (one file until issue 25
split it, so that two pytest-xdist processes share it out).
"""

from __future__ import annotations

import json
import os

import pytest
from builds import ARTIFACTS, served_site  # noqa: F401 - ARTIFACTS re-exported
from profiles import kept_profile

SYSTEMS = ("pendulum", "cradle", "spring")
BOOT_TIMEOUT_MS = 60_000  # Pyodide boots in a few seconds; a loaded machine takes longer
LOAD_TIMEOUT_MS = 180_000  # the page's load event, on a machine running far more than it has cores
REQUIRE = os.environ.get("INTEGRATOR_LAB_REQUIRE_PYODIDE") == "1"


#: resolves once every frame the worker posted before it is drawn: a ping answered by the worker
#: (the protocol's own, static/worker.mjs; a worker's messages arrive in order, so the frames
#: posted before the pong are in), then two animation frames (the page draws a frame it
#: received in the next one)
SETTLE_JS = """() => new Promise((resolve) => {
    // pinged and answered on its watchdog's port (static/worker.mjs): the answer comes once
    // the worker is done with what it was doing, after the frames it posted before
    const early = window.integratorLabEarly;
    const worker = early.worker;
    const port = early.watchPorts.get(worker);
    const id = `settle-${performance.now()}-${Math.random()}`;
    const heard = (event) => {
        if (event.data.type !== "pong" || event.data.id !== id) return;
        port.removeEventListener("message", heard);
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
    };
    port.addEventListener("message", heard);
    port.postMessage({ type: "ping", id });
})"""
#: resolves after two more animation frames: a scroll or a layout change is drawn
NEXT_FRAMES_JS = (
    "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"
)


def _missing(reason):
    if REQUIRE:
        pytest.fail(reason)
    pytest.skip(reason)


TIMER_PROBE_MS = 50  # Page.time_timers' period, ms

#: installed in every page before its scripts run: records each text the page says (a message
#: on the list, a panel's note) in ``window.ilSaid`` as it appears, so that a test can wait on
#: what was said even when a note went away again (notes leave after 4 s: a loaded machine may
#: take longer than that to get to the check)
SAID_JS = """(() => {
    window.ilSaid = [];
    let shown = new Set();
    const look = () => {
        const now = new Set();
        for (const el of document.querySelectorAll(
            "#il-messages li, .il-panel-note:not([hidden])")) {
            const text = el.textContent;
            now.add(text);
            if (!shown.has(text)) window.ilSaid.push(text);
        }
        shown = now;
    };
    new MutationObserver(look).observe(document, {
        subtree: true, childList: true, characterData: true, attributes: true,
        attributeFilter: ["hidden"],
    });
})()"""


#: a display that refreshes HZ times a second, for a test's tab (``display_hz=``; installed
#: before the page's scripts run): ``requestAnimationFrame``'s callbacks run together, in one
#: real animation frame, at most HZ times a second (the browser's own rate, if lower), as on a
#: machine that draws seldom or for a frame the browser throttles; ``cancelAnimationFrame``
#: cancels one. Playwright's own checks (an element stable for two frames) run in their own
#: world, at the real rate. (Every tab at 10 Hz was tried for the tests' speed, 2026-11-29:
#: a tab's CPU 1.64 -> 1.0 cores, the tests no faster: docs/developing.rst.)
DISPLAY_JS = """(() => {
    const period = 1000 / HZ;
    const realFrame = window.requestAnimationFrame.bind(window);
    const callbacks = new Map();
    let nextId = 1;
    let scheduled = false;
    let due = 0;
    const run = (time) => {
        scheduled = false;
        due = time + period - 1;  // (a frame a millisecond early is this frame)
        const batch = [...callbacks.values()];
        callbacks.clear();
        for (const callback of batch) {
            try {
                callback(time);
            } catch (error) {
                setTimeout(() => { throw error; });  // reported as the browser would
            }
        }
    };
    const schedule = () => {
        if (scheduled) return;
        scheduled = true;
        const wait = due - performance.now();
        if (wait > 0) setTimeout(() => realFrame(run), wait);
        else realFrame(run);
    };
    window.requestAnimationFrame = (callback) => {
        const id = nextId++;
        callbacks.set(id, callback);
        schedule();
        return id;
    };
    window.cancelAnimationFrame = (id) => {
        callbacks.delete(id);
    };
})()"""


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site built by the real builder, served by a threaded HTTP server: built and started
    once per process however many modules import this fixture (tests/builds.py)."""
    from integrator_lab.site.pyodide_node import PyodideNotFound

    try:
        return served_site(tmp_path_factory)
    except PyodideNotFound as exc:
        _missing(str(exc))


class Page:
    """One tab on the site, recording console errors, page errors and every request."""

    def __init__(
        self,
        browser,
        site,
        query="",
        viewport=(1600, 1000),
        defer=False,
        warm=False,
        display_hz=None,
        **context_options,
    ):
        size = {"width": viewport[0], "height": viewport[1]}
        # ``warm``: a tab in the process's kept profile (tests/profiles.py), unless the test
        # asks for options a profile is made with; else a profile of its own
        self.own_context = not warm or bool(context_options)
        if self.own_context:
            self.context = browser.new_context(viewport=size, **context_options)
            self.page = self.context.new_page()
        else:
            self.context = kept_profile(browser)
            self.page = self.context.new_page()
            self.page.set_viewport_size(size)
        # loading, clicking, typing: a loaded machine takes longer than Playwright's 30 s
        self.page.set_default_timeout(BOOT_TIMEOUT_MS)
        self.page.set_default_navigation_timeout(LOAD_TIMEOUT_MS)
        self.page.add_init_script(SAID_JS)
        if display_hz is not None:  # a display of display_hz (DISPLAY_JS); else the machine's
            self.page.add_init_script(DISPLAY_JS.replace("HZ", str(display_hz)))
        self.errors, self.requests = [], []
        #: every request of the tab since it opened, its boot's too (``requests``: since the
        #: last ``reset``)
        self.tab_requests = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("request", lambda r: self.tab_requests.append(r.url))
        self.site = site
        self.query = query
        self.closed = False
        if not defer:  # deferred: the test routes requests first, then calls go()
            self.go()

    def go(self):
        self.page.goto(self.site["url"] + self.query)

    def js(self, expression, *args):
        return self.page.evaluate(expression, *args)

    def status(self):
        return self.js("window.integratorLab.status()")

    def settle(self):
        """Until every frame the worker posted so far is drawn (after a pause, a step, a
        reset: the frame that was in flight has landed)."""
        self.js(SETTLE_JS)

    def wait_sim_time_past(self, times, by=0.0):
        """Until every system in ``times`` (name -> simTime) is more than ``by`` s further."""
        self.wait(f"""(() => {{
            const s = window.integratorLab.status().systems;
            return Object.entries({json.dumps(times)}).every(
                ([name, t]) => s[name].simTime > t + {by});
        }})()""")

    def wait(self, condition, timeout=BOOT_TIMEOUT_MS):
        self.page.wait_for_function(condition, timeout=timeout)

    def wait_live(self):
        self.wait("window.integratorLab && window.integratorLab.status().ready")

    def wait_samples(self, count, systems=SYSTEMS):
        """Until every shown integrator of ``systems`` holds at least ``count`` samples."""
        self.wait(f"""(() => {{
            const s = window.integratorLab.status().systems;
            return {list(systems)!r}.every((name) => s[name] && Object.values(
                s[name].integrators).every((i) => i.samples >= {count}));
        }})()""")

    def sim_time(self, system):
        return self.status()["systems"][system]["simTime"]

    def set_model(self, name, prop, value):
        self.js(
            "([name, prop, value]) => { window.integratorLab.model(name)[prop] = value; }",
            [name, prop, value],
        )

    def samples(self, system, integrator):
        return self.js("([s, i]) => window.integratorLab.samples(s, i)", [system, integrator])

    def messages(self):
        # the page's list, then what each panel says under its fields (static/js/params.js)
        return self.page.locator("#il-messages li, .il-panel-note:not([hidden])").all_inner_texts()

    def wait_said(self, predicate, timeout=BOOT_TIMEOUT_MS):
        """Until the page has said (``SAID_JS``) a text for which the JavaScript ``predicate``
        (a function of the text) is true, whether or not it is still on the page."""
        self.wait(f"window.ilSaid && window.ilSaid.some({predicate})", timeout=timeout)

    def time_timers(self):
        """From now on, note how late the page's timers run (``held_up_ms``)."""
        self.js(
            """() => {
                window.ilTimerRounds = [performance.now()];
                setInterval(() => window.ilTimerRounds.push(performance.now()), TIMER_PROBE_MS);
            }""".replace("TIMER_PROBE_MS", str(TIMER_PROBE_MS))
        )

    def held_up_ms(self, start, end):
        """How long, of ``start`` to ``end`` (ms of the page's performance.now()), the page
        could not run a timer (``time_timers`` first): its thread busy (drawing, a long task)
        or not given a core (a loaded machine). What the page measures by its timers (its
        watchdog) cannot be sooner than the time its timers lost."""
        rounds = self.js("window.ilTimerRounds")
        held = 0.0
        for before, after in zip(rounds, rounds[1:]):
            late = after - before - TIMER_PROBE_MS  # this round's wait beyond its period
            held += max(0.0, min(after, end) - max(after - late, start)) if late > 0 else 0.0
        return held

    def reset(self, query="", viewport=None):
        """This tab, booted already, as a test that opened ``query`` at ``viewport`` finds it:
        the view of the query applied in place through the page's own API
        (``integratorLab.apply``, as a lesson applies its view: every shown system restarted
        at t = 0), after the logs the tests read were emptied (errors, requests, what the page
        said) and the messages dismissed (its list's and the panels' notes, which stay until
        dismissed); then the frames in flight drawn."""
        if viewport is not None:
            self.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        self.wait("document.documentElement.dataset.drawn === '1'")
        self.wait_live()
        self.settle()  # what the last test left in flight lands before the logs are emptied
        self.js(
            """() => {
                window.ilSaid = [];
                for (const button of document.querySelectorAll(
                    "#il-messages .il-dismiss, .il-panel-note:not([hidden]) .il-dismiss")) {
                    button.click();
                }
            }"""
        )
        self.errors.clear()
        self.requests.clear()
        self.query = query
        self.js("(query) => window.integratorLab.apply(query)", query)
        self.settle()

    def pause(self):
        """The tab waits, paused through its own Play button's model (as a click sets it): a
        live tab keeps more than a core busy, a paused one draws nothing. The next ``reset``
        plays or pauses as its query says."""
        if self.closed:
            return
        self.js(
            """() => {
                if (document.documentElement.dataset.drawn !== "1") return;
                window.integratorLab.model("controls:play").active = false;
            }"""
        )

    def close(self):
        """Close the tab (and its profile, if its own); again: nothing. A test closes a page it
        is done with before it opens the next: a live page keeps more than a core busy."""
        if self.closed:
            return
        self.closed = True
        if self.own_context:
            self.context.close()
        else:
            self.page.close()


@pytest.fixture
def open_page(browser, site):
    """``open_page(query, viewport=, defer=, fresh=, **context_options)``: a tab on the site in
    the process's kept profile (tests/profiles.py), or in a new one if ``fresh`` or given
    options for one."""
    pages = []

    def opener(query="", fresh=False, **options):
        page = Page(browser, site, query, warm=not fresh, **options)
        pages.append(page)
        return page

    yield opener
    for page in pages:
        page.close()


class SharedPages:
    """The booted pages a test module shares (one per set of browser options), each reset
    through the page itself before a test takes it (:meth:`Page.reset`): a page costs 5 to 8.5
    CPU-s to boot on this machine, a reset a fraction of a second. A test whose subject is the
    boot keeps a page of its own (``open_page``). While one of them serves a test, the others
    wait paused (``pause``)."""

    def __init__(self, browser, site):
        self.browser, self.site = browser, site
        self.pages: dict[str, Page] = {}

    def open(self, query="", viewport=(1600, 1000), booted_as="", **options):
        """``booted_as``: a name for a page of its own beside the module's other pages with
        these options, booted with the first ``query`` asked of it, for a view the page takes
        only as it boots (e.g. "embed": ``embed=1`` lays an <iframe>'s page out as it boots;
        every query asked of that page says ``embed=1`` again)."""
        key = json.dumps([booted_as, options], sort_keys=True)
        page = self.pages.get(key)
        self.pause(keep=page)
        if page is None or page.closed:
            # the kept profile, unless the options need a profile of its own (touch, locale)
            page = Page(self.browser, self.site, query, viewport=viewport, warm=True, **options)
            self.pages[key] = page
            return page
        # in front of the profile's other tabs: a tab behind one opened after it gets an
        # animation frame about once a second (its frames, ``settle``)
        page.page.bring_to_front()
        page.reset(query, viewport)
        return page

    def pause(self, keep=None):
        """Every page of the module but ``keep`` waits, paused (:meth:`Page.pause`): e.g.
        while a test runs a page of its own."""
        for page in self.pages.values():
            if page is not keep:
                page.pause()

    def close(self):
        for page in self.pages.values():
            page.close()
        self.pages.clear()


@pytest.fixture(scope="module")
def shared_pages(browser, site):
    pages = SharedPages(browser, site)
    yield pages
    pages.close()


@pytest.fixture
def shared_page(shared_pages, request):
    """``shared_page(query, viewport=, booted_as=, **context_options)``: the module's booted
    page for those options, reset to the view of ``query`` (``SharedPages``); after a test
    that failed it is closed, so that the next test boots afresh (one failure does not leak
    into the next)."""
    yield shared_pages.open
    report = getattr(request.node, "rep_call", None)
    if report is None or report.failed:
        shared_pages.close()


#: the cache static/sw.js keeps a visit's files in (its CACHE; static/worker-boot.mjs reads it)
KEPT_CACHE = "integrator-lab"


def keep_snapshot(page, site_url, snapshot):
    """The state a visit that booted from the snapshot leaves in the browser (``page``, a
    Playwright page not yet on the site): the snapshot (``snapshot``, its path in the site at
    ``site_url``) in the service worker's cache (static/sw.js keeps the files a visit used),
    with no service worker answering for the tab, as after a reload that bypasses it
    (Shift+Reload). The worker then boots as that visit did, from the snapshot, without
    measuring the link (static/worker-boot.mjs cachedBoot), and fetches it from the host. On
    a first visit the link measured on the first bytes chooses, and a loaded machine measures
    127.0.0.1 too slow for the snapshot."""
    seed = site_url + "seed.html"  # a blank page of the site's origin, to reach its cache
    page.route(seed, lambda route: route.fulfill(body="<!doctype html>", content_type="text/html"))
    page.goto(seed)
    kept = page.evaluate(
        """async ([name, url]) => {
            const cache = await caches.open(name);
            await cache.add(url);
            return (await cache.match(url)) !== undefined;
        }""",
        [KEPT_CACHE, site_url + snapshot],
    )
    assert kept
    page.unroute(seed)
