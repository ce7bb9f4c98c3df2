"""The static page's study view, in Chromium against the real built page: the worker runs a
convergence study per system in slices beside the live view, the diagrams fill, the slopes
are the methods' orders, excluded points are marked, CSV and PNG export, and the settings
live in the URL.

The study of the live view is opened with each panel's Study button on the module's shared
page (``shared_page``: a reset keeps the study view, as a lesson does) and closed with its
Live button; what a link's study settings do is read as a page boots, on a page of its own."""

from __future__ import annotations

import base64
import csv
import io
import json
from urllib.parse import parse_qs, urlsplit

import pytest
from pages import SYSTEMS, open_page, shared_page, shared_pages, site  # noqa: F401 (fixtures)

from integrator_lab.cli.study import CSV_COLUMNS

# three studies in Pyodide beside the live view: minutes on a loaded machine (STUDY_TIMEOUT_MS)
pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

FOUR = ("euler", "symplectic-euler", "velocity-verlet", "rk4")
#: the orders of the four methods: what the fitted slopes must show on the undamped spring
ORDERS = {"euler": 1, "symplectic-euler": 1, "velocity-verlet": 2, "rk4": 4}
STUDY_TIMEOUT_MS = 240_000  # three default studies in Pyodide on a shared 2-core machine


def study(page, system):
    return page.js("(s) => window.integratorLab.study(s)", system)


def source(page, system, role):
    return page.js(
        "([s, r]) => { const d = window.integratorLab.model(`${s}:study-source-${r}`).data;"
        " return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Array.from(v)])); }",
        [system, role],
    )


def wait_done(page, systems):
    page.wait(
        f"{list(systems)!r}.every((s) => window.integratorLab.study(s).done)",
        timeout=STUDY_TIMEOUT_MS,
    )


def close_studies(page, systems):
    """Back to the live view with each panel's Live button: the studies stop, out of the link."""
    for system in systems:
        page.page.locator(f"#il-study-{system}-live").click()
    page.wait(f"{list(systems)!r}.every((s) => !window.integratorLab.study(s).open)")
    assert "study=" not in page.js("location.search")


def test_study_completes_on_every_system_while_the_live_view_runs(shared_page, tmp_path):  # noqa: F811
    page = shared_page("?integrators=" + ",".join(FOUR) + "&spring.damping=0")
    page.wait_live()
    began = {s: page.sim_time(s) for s in SYSTEMS}
    for system in SYSTEMS:  # (the kept profile takes downloads, as accept_downloads does)
        page.page.locator(f"#il-study-{system}-study").click()
    assert page.js("window.integratorLab.state().study") == list(SYSTEMS)
    # the live simulations advance while a study is still under way (one moment shows both;
    # how far they get meanwhile depends on the machine's load)
    page.wait(
        f"""(() => {{
        const lab = window.integratorLab, began = {json.dumps(began)};
        return Object.keys(began).some((s) => lab.study(s).running)
            && Object.entries(began).every(([s, t]) => lab.status().systems[s].simTime > t);
    }})()""",
        timeout=STUDY_TIMEOUT_MS,
    )
    wait_done(page, SYSTEMS)
    for system in SYSTEMS:
        state = study(page, system)
        assert state["error"] is None
        assert state["points"] == state["total"] == 12 * len(FOUR)
        drawn = source(page, system, "points")
        excluded = source(page, system, "excluded")
        # every point is drawn, fitted or marked as excluded, in both diagrams' sources
        assert len(drawn["dt"]) + len(excluded["dt"]) == 12 * len(FOUR)
        assert len(drawn["dt"]) > 0
        assert set(source(page, system, "lines")["integrator"]) == set(FOUR)
        # dashed reference slopes 1, 2 and 4: y ~ dt^p exactly
        refs = source(page, system, "refs")
        assert refs["text"] == ["slope 1", "slope 2", "slope 4"]
        for p, xs, ys in zip((1, 2, 4), refs["dt"], refs["y"]):
            assert ys[1] / ys[0] == pytest.approx((xs[1] / xs[0]) ** p, rel=1e-9)
    # the cradle's contacts are not smooth: its study says so first, and what it says holds:
    # every method, of order 1 to 4, falls to about order 1 there (the smooth systems: none)
    note = page.page.locator("#il-study-cradle-note")
    assert note.is_visible() and "order 1" in note.inner_text()
    assert page.page.locator("#il-study-spring-note, #il-study-pendulum-note").count() == 0
    cradle = study(page, "cradle")["slopes"]
    assert all(0.7 < cradle[name] < 1.5 for name in FOUR), cradle
    # the undamped spring: the fitted slopes are the methods' orders
    slopes = study(page, "spring")["slopes"]
    for name, order in ORDERS.items():
        assert slopes[name] == pytest.approx(order, abs=0.15), name
    labels = source(page, "spring", "lines")["label"]
    assert f"rk4: slope {slopes['rk4']:.2f}" in labels
    # explicit Euler at dt = 0.1 s on k = 15 (omega dt = 0.39) gains energy each step:
    # lost, and marked as excluded with the reason on hover
    excluded = source(page, "spring", "excluded")
    euler_reasons = [r for n, r in zip(excluded["integrator"], excluded["reason"]) if n == "euler"]
    assert any(r.startswith("unstable") for r in euler_reasons)
    # CSV: the command line's columns, one row per point, from the button
    with page.page.expect_download() as info:
        page.page.locator("#il-study-spring-csv").click()
    path = tmp_path / "study.csv"
    info.value.save_as(path)
    rows = list(csv.reader(io.StringIO(path.read_text())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 1 + 12 * len(FOUR)
    assert {r[0] for r in rows[1:]} == set(FOUR)
    # PNG: both diagrams in one image
    url = page.js("window.integratorLab.studyPng('spring')")
    assert url.startswith("data:image/png;base64,")
    png = base64.b64decode(url.split(",", 1)[1])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(png[16:20], "big")
    assert width > 400
    assert page.errors == []
    close_studies(page, SYSTEMS)


def test_study_settings_round_trip_through_the_url(open_page, shared_pages):  # noqa: F811
    """A page of its own: its subject is the link the page reads as it boots (a reset, as a
    lesson, keeps the study view). One link carries the spring's study settings and bad ones
    for the pendulum's."""
    query = (
        "?integrators=euler,rk4&study=spring&spring.study.duration=2&spring.study.points=5"
        "&spring.study.dtmax=0.2&spring.study.dtmin=0.002&spring.study.error=energy_error"
    )
    bad = "&pendulum.study.points=x&pendulum.study.error=nope"
    shared_pages.pause()  # (the module's page, if booted, waits meanwhile)
    page = open_page(query + bad)
    page.wait_live()
    wait_done(page, ["spring"])
    state = study(page, "spring")
    assert state["total"] == 5 * 2
    dts = source(page, "spring", "points")["dt"] + source(page, "spring", "excluded")["dt"]
    # dt = T/n with n integers from T/dt_max = 10 to T/dt_min = 1000
    assert max(dts) == pytest.approx(0.2) and min(dts) == pytest.approx(0.002)
    assert page.js("document.getElementById('il-study-spring-error').value") == "energy_error"
    link = page.js("window.integratorLab.link()")
    query_back = parse_qs(urlsplit(link).query)
    for key, value in parse_qs(query[1:]).items():
        assert query_back[key] == value, key
    # a field's change goes into the URL; a refused one says why and keeps the setting
    field = page.page.locator("#il-study-spring-points")
    field.fill("7")
    field.press("Enter")
    page.wait("location.search.includes('spring.study.points=7')")
    field.fill("1000")
    field.press("Enter")
    alert = page.page.locator("#il-study-spring-alert")
    assert "points" in alert.inner_text() and "[3, 60]" in alert.inner_text()
    assert "spring.study.points=7" in page.js("location.search")
    # a bad study setting in the link is named, and its default is used
    messages = " ".join(page.messages())
    assert "pendulum.study.points" in messages and "pendulum.study.error" in messages
    assert page.js("document.getElementById('il-study-pendulum-points').value") == "12"
    assert "pendulum.study" not in page.js("location.search")
    assert page.errors == []
