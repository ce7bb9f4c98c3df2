"""The static page's geometry view: the spring's points leave a method's stability region as
the dt typed in crosses its limit, at the moment that method's bodies diverge in the live view,
and the rings show the area each method keeps or changes.

What a newcomer must be able to read (issue 48, item 1), checked on the drawn page: the
stability plot has its axes, ticks and titles inside the screen and is wide enough to read,
the system's point is drawn once as a black ×, each region's line is solid or dashed by its
verdict with the verdicts as a legend off the plot, every ring stays inside its own frame with
no negative or absurd area shown (a diverged one says so), and the time step can be changed
beside the plot.

The tests share one booted page (``shared_page``); its reset applies a view without
``geometry=``, which closes a geometry view left open (static/js/geometry.js follows the state)."""

from __future__ import annotations

import math
import re

import pytest
from pages import shared_page, shared_pages, site  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

# undamped, omega = sqrt(60) = 7.75/s: Verlet is stable for dt < 2/omega = 0.258 s, RK4 for
# dt < 2 sqrt 2/omega = 0.365 s, explicit Euler never
OMEGA = math.sqrt(60)
QUERY = (
    "?systems=spring&spring.stiffness=60&spring.damping=0&spring.dt=0.2"
    "&integrators=euler,velocity-verlet,rk4"
)
STATE = "window.integratorLabGeometry.state('spring')"
LAPTOP, PHONE = (1440, 900), (390, 844)

#: the drawn boxes of the stability plot: the svg, its tick labels and axis titles, the
#: legend, in CSS px of the viewport
PLOT_BOXES = """() => {
    const box = (el) => { const r = el.getBoundingClientRect();
        return {l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width, h: r.height}; };
    const svg = document.getElementById("il-geometry-spring-region");
    return {
        svg: box(svg),
        ticks: [...svg.querySelectorAll(".il-geometry-tick")].map(
            (el) => ({text: el.textContent, ...box(el)})),
        axes: [...svg.querySelectorAll(".il-geometry-axis")].map(
            (el) => ({text: el.textContent, ...box(el)})),
        legend: box(document.getElementById("il-geometry-spring-verdicts")),
        viewport: {w: document.documentElement.clientWidth, h: window.innerHeight},
    };
}"""

#: per region line: its method, the verdict it is drawn for and its dashes
BOUNDARIES = """() => [...document.querySelectorAll(
    "#il-geometry-spring-region .il-geometry-boundary")].map((el) => ({
        name: el.dataset.name, verdict: el.dataset.verdict,
        dashed: (el.getAttribute("stroke-dasharray") || "") !== ""}))"""

#: per ring: its method, whether it is greyed as diverged, the ring's box and its frame's box
#: (CSS px), the area text shown under it
RINGS = """() => [...document.querySelectorAll("#il-geometry-spring-phase .il-geometry-card")].map(
    (card) => {
        const box = (el) => { const r = el.getBoundingClientRect();
            return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
        const line = card.querySelector(".il-geometry-ring-line");
        return {name: card.dataset.name,
                diverged: card.classList.contains("il-geometry-diverged"),
                stroke: line.getAttribute("stroke"),
                ring: box(line), frame: box(card.querySelector("svg")),
                text: card.querySelector(".il-geometry-ratio").textContent,
                label: card.textContent};
    })"""


def _inside(inner, outer, slack=0.5):
    return (
        inner["l"] >= outer["l"] - slack
        and inner["r"] <= outer["r"] + slack
        and inner["t"] >= outer["t"] - slack
        and inner["b"] <= outer["b"] + slack
    )


def _open_geometry(page):
    page.wait_live()
    page.page.locator("#il-geometry-spring-toggle").click()
    page.wait(f"{STATE}.updates > 1 && {STATE}.verdicts !== null")
    page.page.locator("#il-geometry-spring-region").scroll_into_view_if_needed()
    page.settle()


def _close_geometry(page):
    page.page.locator("#il-geometry-spring-toggle").click()
    page.wait("!location.search.includes('geometry=')")


def test_points_cross_the_boundary_as_dt_crosses_the_limit(shared_page):  # noqa: F811
    page = shared_page(QUERY)
    _open_geometry(page)
    assert "geometry=spring" in page.js("location.search")  # the link keeps the view open
    state = page.js(STATE)
    assert state["verdicts"] == {"euler": False, "velocity-verlet": True, "rk4": True}
    # the system's points drawn once, not once per method: the spring's pair dt·λ = ±i dt ω
    points = page.js(
        "[...document.querySelectorAll('#il-geometry-spring-region .il-geometry-point')]"
        ".map((el) => [Number(el.dataset.x), Number(el.dataset.y)])"
    )
    assert sorted(points, key=lambda p: p[1]) == [
        pytest.approx([0.0, -0.2 * OMEGA]),
        pytest.approx([0.0, 0.2 * OMEGA]),
    ]
    # explicit Euler's region dashed (the point is outside it), Verlet's and RK4's solid
    lines = page.js(BOUNDARIES)
    assert {line["name"] for line in lines} == {"euler", "velocity-verlet", "rk4"}
    assert all(line["dashed"] == (line["name"] == "euler") for line in lines), lines
    # the rings follow the run: Verlet keeps the area; explicit Euler's grows by
    # (1 + (dt omega)^2) a step until its ring runs away and diverges, as its bodies do; the
    # area it keeps is that of a whole number of steps (none, if it ran away in the first
    # steps it was judged on: the view opened late in the run)
    page.wait(f"{STATE}.areas && {STATE}.areas.euler == null")
    euler = page.js(f"{STATE}.cards.find((c) => c.name === 'euler').ratio")
    steps = math.log(euler) / math.log(1 + (0.2 * OMEGA) ** 2)
    assert steps > -1e-9 and steps == pytest.approx(round(steps), abs=1e-6)
    assert page.js(STATE)["areas"]["velocity-verlet"] == pytest.approx(1.0, abs=1e-9)
    status = page.status()["systems"]["spring"]["integrators"]
    assert status["velocity-verlet"]["divergedAt"] is None
    assert status["euler"]["divergedAt"] is not None

    panel = page.page.locator('.il-panel[data-system="spring"]')
    dt_input = panel.get_by_label("time step dt (s)")
    dt_input.fill("0.3")
    dt_input.press("Enter")
    page.wait(f"{STATE}.verdicts && {STATE}.verdicts['velocity-verlet'] === false")
    assert page.js(STATE)["verdicts"] == {"euler": False, "velocity-verlet": False, "rk4": True}
    page.settle()
    lines = page.js(BOUNDARIES)
    assert all(line["dashed"] == (line["name"] != "rk4") for line in lines), lines
    # and in the live view Verlet's bodies diverge, RK4's do not
    page.wait(
        "window.integratorLab.status().systems.spring.integrators['velocity-verlet']"
        ".divergedAt !== null"
    )
    status = page.status()["systems"]["spring"]["integrators"]
    assert status["rk4"]["divergedAt"] is None
    _close_geometry(page)
    assert page.errors == []


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=lambda v: f"{v[0]}x{v[1]}")
def test_the_stability_plot_has_axes_ticks_and_a_legend_on_the_screen(shared_page, viewport):  # noqa: F811
    page = shared_page(QUERY, viewport=viewport)
    _open_geometry(page)
    boxes = page.js(PLOT_BOXES)
    svg, view = boxes["svg"], boxes["viewport"]
    # wide enough to read, and whole on the screen: a laptop gives it 320 px at least, a
    # phone its width less the panel's margins; its height fits a phone's screen
    assert svg["w"] >= (320 if viewport == LAPTOP else 0.8 * viewport[0]), svg
    assert svg["l"] >= 0 and svg["r"] <= view["w"] and svg["h"] <= view["h"], (svg, view)
    # ticks on both axes, every unit of the window -4..2 x -3.5..3.5, each inside the plot
    # and on the screen; the axes' titles too
    texts = [tick["text"] for tick in boxes["ticks"]]
    for value in ("−4", "−3", "−2", "−1", "0", "1", "2", "3"):
        assert value in texts, texts
    assert len(texts) == 7 + 7  # x: -4..2, y: -3..3
    for label in boxes["ticks"] + boxes["axes"]:
        assert label["w"] > 0 and _inside(label, svg), label
        assert 0 <= label["l"] and label["r"] <= view["w"], label
    assert sorted(axis["text"] for axis in boxes["axes"]) == ["Im(dt·λ)", "Re(dt·λ)"]
    # the legend, off the plot: the ×, then one verdict a method, solid or dashed as drawn
    legend = boxes["legend"]
    overlap = min(legend["r"], svg["r"]) > max(legend["l"], svg["l"]) and min(
        legend["b"], svg["b"]
    ) > max(legend["t"], svg["t"])
    assert not overlap, (legend, svg)
    items = page.js(
        "[...document.querySelectorAll('#il-geometry-spring-verdicts li')].map((li) =>"
        " ({name: li.dataset.name ?? null, verdict: li.dataset.verdict ?? null,"
        "   text: li.textContent}))"
    )
    assert items[0]["name"] is None and "dt·λ" in items[0]["text"]
    assert [(i["name"], i["verdict"]) for i in items[1:]] == [
        ("euler", "false"),
        ("velocity-verlet", "true"),
        ("rk4", "true"),
    ]
    assert "diverges" in items[1]["text"] and "stable" in items[3]["text"]
    _close_geometry(page)
    assert page.errors == []


def test_every_ring_stays_in_its_frame_and_no_area_is_negative(shared_page):  # noqa: F811
    """At dt = 0.3 s Verlet is outside its region: its ring runs away and once read "area
    -6.43925" (rounding, on a ring stretched into a needle); explicit Euler's left its frame
    within seconds. After 20 s of simulated time each ring is still inside its own frame,
    the two that ran away are greyed and say "diverged", and every area shown is positive."""
    page = shared_page(QUERY.replace("spring.dt=0.2", "spring.dt=0.3") + "&speed=4")
    _open_geometry(page)
    page.wait("window.integratorLab.status().systems.spring.simTime > 20", timeout=120_000)
    drawn = page.js(f"{STATE}.updates")
    page.wait(f"{STATE}.updates > {drawn + 1}")  # the rings have caught up with 20 s
    rings = page.js(RINGS)
    assert [ring["name"] for ring in rings] == ["euler", "velocity-verlet", "rk4"]
    for ring in rings:
        assert _inside(ring["ring"], ring["frame"]), ring
        number = re.search(r"×([^ ]+)$", ring["text"])
        if ring["diverged"]:
            assert "diverged" in ring["label"], ring
            assert re.fullmatch(r"diverged at t = \d+\.\d\d s", ring["text"]), ring
        else:
            assert number and not number.group(1).startswith(("-", "−")), ring
    by_name = {ring["name"]: ring for ring in rings}
    assert by_name["euler"]["diverged"] and by_name["velocity-verlet"]["diverged"]
    assert by_name["euler"]["stroke"] == by_name["velocity-verlet"]["stroke"]  # greyed alike
    # RK4 is stable at this dt and loses area (|R(i dt omega)| < 1): its bar points down
    assert not by_name["rk4"]["diverged"]
    assert page.js(f"{STATE}.areas.rk4") < 1
    side = "#il-geometry-spring-card-rk4 .il-geometry-bar"
    assert page.js(f"document.querySelector('{side}').dataset.side") == "down"
    _close_geometry(page)
    assert page.errors == []


def test_the_time_step_is_set_beside_the_stability_plot(shared_page):  # noqa: F811
    """The dt control sits beside the plot, on the same screen: ×2, ÷2 and its slider set the
    panel's time step (the live run restarts with it) and the points move out of and back
    into the regions: Verlet's limit is dt = 2/omega = 0.258 s, RK4's 2 sqrt 2/omega = 0.365 s."""
    page = shared_page(QUERY, viewport=LAPTOP)
    _open_geometry(page)
    near = page.js(
        """() => {
            const box = (id) => document.getElementById(id).getBoundingClientRect();
            const plot = box("il-geometry-spring-region");
            const dt = box("il-geometry-spring-dt");
            return {gap: dt.left - plot.right, overlap: Math.min(plot.bottom, dt.bottom) -
                    Math.max(plot.top, dt.top), top: Math.min(plot.top, dt.top),
                    bottom: Math.max(plot.bottom, dt.bottom), height: window.innerHeight};
        }"""
    )
    assert 0 <= near["gap"] <= 80 and near["overlap"] > 0, near  # to its right, level with it
    assert near["bottom"] - near["top"] <= near["height"], near  # both on one screen
    control = page.page.locator("#il-geometry-spring .il-geometry-dt")
    dt_model = "window.integratorLab.model('spring:dt').value"

    def points_at(dt):
        page.wait(
            f"{STATE}.points && Math.abs(Math.max(...{STATE}.points.map((p) => p[1]))"
            f" - {dt * OMEGA}) < 1e-9"
        )

    control.get_by_role("button", name="Double the time step (×2)").click()
    points_at(0.4)
    assert page.js(dt_model) == pytest.approx(0.4)
    assert page.js(STATE)["verdicts"] == {"euler": False, "velocity-verlet": False, "rk4": False}
    assert control.locator("output").inner_text() == "0.4 s"
    for _ in range(2):
        control.get_by_role("button", name="Halve the time step (÷2)").click()
        page.wait(f"{dt_model} < 0.35")
    points_at(0.1)
    assert page.js(STATE)["verdicts"] == {"euler": False, "velocity-verlet": True, "rk4": True}
    # the slider runs over log10(dt); released at 0.3 s, Verlet's point leaves its region
    control.locator("input[type=range]").fill(str(round(math.log10(0.3), 2)))
    page.wait(f"{dt_model} > 0.29 && {dt_model} < 0.31")
    page.wait(f"{STATE}.verdicts && {STATE}.verdicts['velocity-verlet'] === false")
    assert page.js(STATE)["verdicts"]["rk4"] is True
    _close_geometry(page)
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
