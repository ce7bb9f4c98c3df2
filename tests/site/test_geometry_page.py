"""The static page's geometry view: the spring's points leave a method's stability region as
the dt typed in crosses its limit, at the moment that method's bodies diverge in the live view,
and the rings show the area each method keeps or changes.

The tests share one booted page (``shared_page``); its reset applies a view without
``geometry=``, which closes a geometry view left open (static/js/geometry.js follows the state)."""

from __future__ import annotations

import pytest
from pages import shared_page, shared_pages, site  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

# undamped, omega = sqrt(60) = 7.75/s: Verlet is stable for dt < 2/omega = 0.258 s, RK4 for
# dt < 2 sqrt 2/omega = 0.365 s, explicit Euler never
QUERY = (
    "?systems=spring&spring.stiffness=60&spring.damping=0&spring.dt=0.2"
    "&integrators=euler,velocity-verlet,rk4"
)
STATE = "window.integratorLabGeometry.state('spring')"


def test_points_cross_the_boundary_as_dt_crosses_the_limit(shared_page):  # noqa: F811
    page = shared_page(QUERY)
    page.wait_live()
    page.page.locator("#il-geometry-spring-toggle").click()
    page.wait(f"{STATE}.updates > 3 && {STATE}.verdicts !== null")
    assert "geometry=spring" in page.js("location.search")  # the link keeps the view open
    state = page.js(STATE)
    assert state["verdicts"] == {"euler": False, "velocity-verlet": True, "rk4": True}
    # one boundary per method in its colour, a ring of markers per method around each point
    assert (
        page.js("document.querySelectorAll('#il-geometry-spring-region path[data-name]').length")
        >= 3
    )
    assert (
        page.js("document.querySelectorAll('#il-geometry-spring-region .il-geometry-point').length")
        == 6
    )
    # the rings follow the run: Verlet keeps the area, Euler gains (1 + (h omega)^2) a step
    page.wait(f"{STATE}.areas && {STATE}.areas.euler > 10")
    assert page.js(STATE)["areas"]["velocity-verlet"] == pytest.approx(1.0, abs=1e-9)
    status = page.status()["systems"]["spring"]["integrators"]
    assert status["velocity-verlet"]["divergedAt"] is None

    panel = page.page.locator('.il-panel[data-system="spring"]')
    dt_input = panel.get_by_label("time step dt (s)")
    dt_input.fill("0.3")
    dt_input.press("Enter")
    page.wait(f"{STATE}.verdicts && {STATE}.verdicts['velocity-verlet'] === false")
    assert page.js(STATE)["verdicts"] == {"euler": False, "velocity-verlet": False, "rk4": True}
    # and in the live view Verlet's bodies diverge, RK4's do not
    page.wait(
        "window.integratorLab.status().systems.spring.integrators['velocity-verlet']"
        ".divergedAt !== null"
    )
    status = page.status()["systems"]["spring"]["integrators"]
    assert status["rk4"]["divergedAt"] is None
    assert page.errors == []


def test_a_lesson_opens_the_geometry_view(shared_page):  # noqa: F811
    from integrator_lab.views.scenarios import get_scenario

    lesson = get_scenario("ring-area")
    page = shared_page("?" + lesson.link_query())
    page.wait_live()
    state = "window.integratorLabGeometry.state('pendulum')"
    page.wait(f"{state}.open && {state}.areas && {state}.areas.euler > 1.05")
    assert page.js(state)["areas"]["velocity-verlet"] == pytest.approx(1.0, abs=1e-3)
    assert not page.js("document.getElementById('il-geometry-pendulum').hidden")
    # closing it takes it out of the link
    page.page.locator("#il-geometry-pendulum-toggle").click()
    page.wait("!location.search.includes('geometry=')")
    assert page.js("document.getElementById('il-geometry-pendulum').hidden")
    assert page.errors == []
