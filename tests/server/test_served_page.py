"""The Panel server hosts the static page's own front end, its engine in the session
(``integrator-lab serve``, web/server/hosted.py): the page's samples are the
core's physics computed in CPython, the address bar follows the view, a link opens its view.

One booted page serves the module's tests; each resets it through the page's own API."""

from __future__ import annotations

import base64
import json
import math
import zlib

import pytest
from conftest import ACTION_TIMEOUT_MS, LIVE_JS, LOAD_TIMEOUT_MS, lab_frame
from conftest import LEAPFROG as LEAPFROG_CODE

from integrator_lab.core.systems import get_system
from integrator_lab.views.i18n import text


@pytest.fixture(scope="module")
def shared(browser, server):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = context.new_page()
    page.il_errors = []
    page.on("pageerror", lambda error: page.il_errors.append(str(error)))
    page.goto(server.url, timeout=LOAD_TIMEOUT_MS)
    frame = lab_frame(page)
    frame.wait_for_function(LIVE_JS, timeout=LOAD_TIMEOUT_MS)
    yield page, frame
    context.close()


def apply(frame, query: str) -> None:
    """The page's own reset: ``query``'s view, in place (resolves on its first frame)."""
    frame.evaluate("(q) => integratorLab.apply(q)", query)


def test_the_page_draws_the_cores_physics_computed_by_the_server(shared):
    page, frame = shared
    apply(frame, "?systems=spring&integrators=euler,rk4&spring.dt=0.01")
    # no Web Worker and no Pyodide in this page: its engine answers from the server
    assert frame.evaluate("() => window.integratorLabEarly.worker instanceof Worker") is False
    assert frame.evaluate("() => typeof loadPyodide") == "undefined"
    # a few seconds of simulated time, then the page's own samples against the damped
    # oscillator's closed form x(t) = e^(-gt) (x0 cos wt + (v0 + g x0) / w sin wt)
    frame.wait_for_function(
        "() => integratorLab.status().systems.spring.simTime > 4", timeout=ACTION_TIMEOUT_MS
    )
    spring = get_system("spring")
    x0, v0 = spring.params["x0"], spring.params["v0"]
    gamma = spring.b / (2.0 * spring.mass)
    omega = math.sqrt(spring.k / spring.mass - gamma * gamma)

    def worst_error(name: str) -> float:
        data = frame.evaluate("(n) => integratorLab.samples('spring', n)", name)
        assert len(data["t"]) > 100
        exact = [
            math.exp(-gamma * t)
            * (x0 * math.cos(omega * t) + (v0 + gamma * x0) / omega * math.sin(omega * t))
            for t in data["t"]
        ]
        return max(abs(q - e) for q, e in zip(data["q"], exact, strict=True))

    amplitude = math.hypot(x0, v0 / omega)
    # RK4's global error at dt = 0.01 s is O((w dt)^4 w t): about 1e-7 of the amplitude here;
    # explicit Euler's grows as (1 + (w dt)^2 / 2)^n - 1: percents within seconds
    assert worst_error("rk4") < 1e-5 * amplitude
    assert worst_error("euler") > 1e-3 * amplitude
    assert page.il_errors == []


def test_the_address_bar_follows_the_pages_view(shared):
    page, frame = shared
    apply(frame, "?systems=pendulum,spring&integrators=velocity-verlet,rk4&pendulum.dt=0.05")
    page.wait_for_function("() => location.search.includes('pendulum.dt=0.05')")
    search = page.evaluate("() => location.search")
    assert "integrators=velocity-verlet%2Crk4" in search or "velocity-verlet,rk4" in search


def test_a_link_opens_its_view_in_the_frame(browser, server):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.url}?systems=cradle&integrators=rk4&play=0", timeout=LOAD_TIMEOUT_MS)
        frame = lab_frame(page)
        frame.wait_for_function(
            "() => window.integratorLab?.status().ready", timeout=LOAD_TIMEOUT_MS
        )
        state = frame.evaluate("() => integratorLab.state()")
        assert state["systems"] == ["cradle"]
        assert state["integrators"] == ["rk4"]
    finally:
        context.close()


def method_fragment(text: str) -> str:
    """``#method=`` and ``text`` as the page packs a definition: deflate-raw, base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(text.encode()) + packer.flush()
    return "#method=" + base64.urlsafe_b64encode(packed).decode().rstrip("=")


LEAPFROG = LEAPFROG_CODE.format(name="my-leapfrog")


def test_a_method_link_opens_as_on_the_page_and_this_server_says_it_runs_no_code(browser, server):
    # a Python method's link: the banner to read it first, then Run; a server started
    # without --allow-code says, in the editor, that it runs no visitor's code and where to
    definition = json.dumps({"kind": "python", "name": "my-leapfrog", "code": LEAPFROG})
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.url}?systems=spring{method_fragment(definition)}",
                  timeout=LOAD_TIMEOUT_MS)  # fmt: skip
        frame = lab_frame(page)
        frame.wait_for_function("() => window.integratorLab?.status().ready",
                                timeout=LOAD_TIMEOUT_MS)  # fmt: skip
        link_banner = frame.locator(".il-messages li", has_text=text("editor.link_banner"))
        link_banner.wait_for()
        hint = frame.locator("#il-editor .il-editor-hint").first
        assert hint.text_content() == text("editor.intro.refused")
        assert "integrator-lab preview" in hint.text_content()
        # Run: the server refuses the kind, and the editor says so
        frame.locator("#il-editor details").evaluate("(d) => { d.open = true; }")
        frame.locator("#il-editor-run").click()
        frame.locator("#il-editor-error", has_text="not allowed here").wait_for()
        assert frame.evaluate("() => integratorLab.status().systems.spring.error") is None
    finally:
        context.close()


def test_status_lists_the_session_with_its_running_systems(shared, server):
    _page, frame = shared
    apply(frame, "?systems=pendulum&integrators=rk4")
    sessions = server.status()["sessions"]
    assert len(sessions) >= 1
    mine = [s for s in sessions if set(s["systems"]) == {"pendulum"}]
    assert mine and mine[0]["systems"]["pendulum"]["dt"] > 0
