"""The static page's start, and what it says when it cannot, in a real browser
(tests/site/pages.py): a page opened from a file, a boot file that does not load or
hangs, and Python's start from the build's memory snapshot with a plain boot as the
fallback.
"""

# ruff: noqa: F811 - the tests take the page fixtures imported from pages by name
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pages import BOOT_TIMEOUT_MS, keep_snapshot, open_page, site  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def test_file_url_says_plainly_that_the_page_must_be_served(open_page, site):
    page = open_page()
    page.page.goto(Path(site["dir"], "index.html").as_uri())
    page.wait("!document.getElementById('il-served').hidden", timeout=20_000)
    text = page.page.locator("#il-served").inner_text()
    assert "served over HTTP" in text and "integrator-lab preview" in text


# -- a boot that fails says which file, and what to try ------------------------------------
# (the wasm, the standard library and the core come gzipped: web/site/build.py GZIPPED, CORE)
BOOT_FILES = (
    "static/worker.mjs",
    "pyodide/pyodide.mjs",
    "pyodide/pyodide.asm.mjs",
    "pyodide/pyodide.asm.wasm.gz",
    "pyodide/python_stdlib.zip.gz",
    "py/integrator_lab.zip.gz",
)


#: the faults each boot file is tried with. The scripts the browser itself loads (the worker's
#: module, Pyodide's two imports) fail through the browser's paths, one per fault; the files the
#: worker fetches fail through one wrapper (worker-boot.mjs), which names the file from its
#: request and the fault from its response apart: one fault each, in turn, covers both
FAULTS = [
    *((file, how) for file in BOOT_FILES[:3] for how in ("404", "reset")),
    *((file, ("404", "reset")[i % 2]) for i, file in enumerate(BOOT_FILES[3:])),
]


@pytest.mark.parametrize(("file", "how"), FAULTS)
def test_a_boot_file_that_does_not_load_is_named_within_seconds(open_page, site, file, how):
    file = site["files"].get(file, file)
    page = open_page(defer=True)
    if how == "404":
        page.page.route(f"**/{file}", lambda route: route.fulfill(status=404, body="missing"))
    else:
        page.page.route(f"**/{file}", lambda route: route.abort("connectionreset"))
    page.go()
    alert = page.page.locator("#il-boot")
    alert.wait_for(state="visible", timeout=15_000)  # seconds, not the 30 s of a slow boot
    text = alert.inner_text()
    assert text.startswith(f"The simulation could not start: {file} did not load (")
    assert "Reload the page" in text
    if how == "404":
        assert "HTTP 404" in text and "publish the whole folder" in text
    else:
        assert "the download failed" in text and "check the connection" in text
    status = page.status()
    assert status["ready"] is False and status["error"] == text
    veils = page.page.locator(".il-loading span").all_inner_texts()
    assert veils and all(v.startswith(f"Not running: {file} did not load") for v in veils)
    assert page.page.locator(".il-loading").first.is_visible()


def test_a_boot_that_hangs_says_it_is_still_trying_and_what_it_waits_for(open_page, site):
    wasm = site["files"]["pyodide/pyodide.asm.wasm.gz"]
    # a profile of its own: Playwright's clock (below) is installed in the whole profile, and
    # the request held unanswered would hold the kept profile's cache entry for the wasm
    page = open_page(defer=True, fresh=True)
    # the server never answers for Python's WebAssembly
    asked = []
    page.page.route(f"**/{wasm}", lambda route: asked.append(route))  # (not a builtin: refused)
    page.page.clock.install()  # the page's timers only: the worker keeps its own clock
    page.go()
    page.wait("document.documentElement.dataset.drawn === '1'")
    page.wait("window.integratorLab.status().error === null")
    # Python waits for its .wasm now: the worker asked for it, the route holds the answer
    deadline = time.monotonic() + BOOT_TIMEOUT_MS / 1000
    while not asked:  # a poll on that state: Playwright calls the route during its own calls
        assert time.monotonic() < deadline, "the worker never asked for its WebAssembly"
        page.js("0")
        time.sleep(0.05)  # a poll interval (the loop above)
    assert page.page.locator("#il-boot").is_hidden()
    page.page.clock.fast_forward("00:31")
    alert = page.page.locator("#il-boot")
    alert.wait_for(state="visible", timeout=5_000)
    text = alert.inner_text()
    assert text.startswith("Still starting after 30 s, loading Python (")
    assert wasm in text and "reload the page" in text
    status = page.status()
    assert status["ready"] is False and status["error"] is None and status["notice"] == text


# -- instant start: Python from the build's memory snapshot, a plain boot as fallback --------
def _boot_of(page):
    page.wait_live()
    status = page.status()
    return status["boot"], status["bootFallback"]


def test_python_boots_from_the_builds_snapshot(open_page, site):

    from integrator_lab.site.pyodide_node import find_pyodide_dir
    from integrator_lab.site.snapshot import SNAPSHOT, pyodide_version

    page = open_page()
    assert _boot_of(page) == ("snapshot", None)
    # the snapshot records the Pyodide it was made with: the one the page loads
    boot = json.loads(page.js("document.getElementById('il-boot-config').textContent"))
    assert boot["snapshot"]["pyodide"] == pyodide_version(find_pyodide_dir())
    assert boot["snapshot"]["url"] == site["files"][SNAPSHOT]
    assert (site["dir"] / site["files"][SNAPSHOT]).stat().st_size == boot["snapshot"]["bytes"]
    # the snapshot's download started before the dashboard was drawn
    marks = page.js(
        "Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))"
    )
    assert marks["il:worker-start"] < marks["il:drawn"]
    assert page.errors == []


def _garbage_gzip():
    import gzip
    import random

    noise = random.Random(1).randbytes(1 << 20)
    return gzip.compress(noise)


@pytest.mark.parametrize(
    "fault, expected",
    [
        ("missing", "HTTP 404"),
        ("truncated", "{snapshot}"),  # gzip's own check fails, on that file
        ("garbage", "did not load"),  # valid gzip, not a Pyodide snapshot
    ],
    ids=["missing", "truncated", "garbage"],
)
def test_a_bad_snapshot_falls_back_to_a_plain_boot(open_page, site, fault, expected):
    """The snapshot the worker chose comes missing, cut short or not a snapshot at all: Python
    boots plainly, and the page says why. The worker chooses the snapshot as a later visit
    does, for the cache holds it (pages.keep_snapshot): on a first visit the link measured on the
    first bytes chooses, and a loaded machine measures 127.0.0.1 too slow for it."""
    from integrator_lab.site.snapshot import SNAPSHOT

    snapshot = site["files"][SNAPSHOT]
    expected = expected.format(snapshot=snapshot)
    # a profile of its own: what keep_snapshot puts in the profile's cache would choose the
    # boot of every later tab of the kept one
    page = open_page(defer=True, fresh=True)
    keep_snapshot(page.page, site["url"], snapshot)
    real = (site["dir"] / snapshot).read_bytes()
    infos = []
    page.page.on("console", lambda m: m.type == "info" and infos.append(m.text))
    asked = []

    def answer(route):
        asked.append(route.request.url)
        if fault == "missing":
            route.fulfill(status=404, body="not found")
        elif fault == "truncated":
            route.fulfill(
                status=200,
                body=real[: len(real) // 3],
                headers={"Content-Type": "application/gzip"},
            )
        else:
            route.fulfill(
                status=200, body=_garbage_gzip(), headers={"Content-Type": "application/gzip"}
            )

    page.page.route(f"**/{snapshot}", answer)
    page.go()
    boot, why = _boot_of(page)
    assert asked, "the worker never asked for the snapshot"  # (the bad one: the route's)
    assert boot == "plain" and why.startswith("the snapshot did not load: ") and expected in why, (
        why
    )
    page.wait_samples(5)
    # said on the console as information, never as an error
    assert any("without the snapshot" in text for text in infos), infos
    assert page.errors == []
    assert page.messages() == []


def test_a_snapshot_of_another_pyodide_is_not_loaded(open_page, site):
    page = open_page(defer=True)

    def other_version(route):
        response = route.fetch()
        body = response.text().replace('"pyodide":"', '"pyodide":"0.0.1-', 1)
        assert body != response.text()
        route.fulfill(response=response, body=body)

    page.page.route(site["url"], other_version)
    page.go()
    boot, why = _boot_of(page)
    assert boot == "plain" and "made by Pyodide 0.0.1-" in why, why
    assert page.errors == []
