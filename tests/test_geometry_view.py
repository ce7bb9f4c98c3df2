"""The geometry view's shared logic (``views.geometry``): the points and verdicts the
dashboards show, the rings that follow the live run, and the figures' data."""

from __future__ import annotations

import math

import pytest

from integrator_lab.views.geometry import (
    JUDGED_STEPS,
    OUTSIDE_COLOR,
    RING_FIT_FACTOR,
    GeometrySession,
    color_of,
)
from integrator_lab.views.geometry_figures import GeometryFigures

METHODS = ["euler", "velocity-verlet", "rk4"]


def session(dt):
    # undamped, omega = sqrt(60): Verlet stable for dt < 2/omega = 0.258 s, RK4 for
    # dt < 2 sqrt 2/omega = 0.365 s, explicit Euler never
    return GeometrySession("spring", {"damping": 0, "stiffness": 60}, METHODS, dt)


def test_verdicts_follow_the_limits():
    s = session(0.2)
    assert s.verdicts() == {"euler": False, "velocity-verlet": True, "rk4": True}
    assert s.verdicts(0.25) == {"euler": False, "velocity-verlet": True, "rk4": True}
    assert s.verdicts(0.27) == {"euler": False, "velocity-verlet": False, "rk4": True}
    assert s.verdicts(0.37) == {"euler": False, "velocity-verlet": False, "rk4": False}
    points = s.points()
    assert points == [(0.0, 0.2 * math.sqrt(60)), (0.0, -0.2 * math.sqrt(60))]


def test_point_markers_take_the_outside_colour():
    columns = session(0.3).point_columns()
    colours = dict(zip(columns["name"], columns["color"]))
    assert colours == {
        "euler": OUTSIDE_COLOR,
        "velocity-verlet": OUTSIDE_COLOR,
        "rk4": color_of("rk4"),
    }
    # every verdict stays visible: one ring per integrator, of distinct sizes
    assert len(set(columns["size"])) == len(METHODS)


def test_rings_follow_the_run_and_keep_their_area_when_symplectic():
    s = session(0.05)
    s.advance_to(1.0)
    ratios = s.area_ratios()
    y2 = (0.05 * math.sqrt(60)) ** 2
    assert ratios["velocity-verlet"] == pytest.approx(1.0, abs=1e-12)
    assert ratios["euler"] == pytest.approx((1 + y2) ** 20, rel=1e-10)
    assert all(ring.steps == 20 for ring in s.rings.values())
    rings = s.ring_columns()
    assert all(xs[0] == xs[-1] and len(xs) == 49 for xs in rings["xs"])  # closed
    # a new dt starts the rings again
    s.set_dt(0.1)
    assert all(ring.steps == 0 for ring in s.rings.values())
    assert [h[-1] for h in s.area_columns()["ys"]] == [1.0, 1.0, 1.0]


def test_a_diverged_ring_leaves_the_picture():
    s = session(0.3)  # Verlet outside its region: its ring runs away
    for k in range(1, 200):
        s.advance_to(k * 3.0)
    assert s.area_ratios()["velocity-verlet"] is None
    assert "velocity-verlet" not in s.ring_columns()["name"]
    assert all(math.isfinite(a) for ys in s.area_columns()["ys"] for a in ys)


def test_the_rings_are_framed_on_those_that_kept_their_area():
    """Implicit Euler's ring shrinks by 1 / (1 + (dt omega)^2) per step (1.15^-120 = 5e-8 in
    6 s) onto the spring's rest state: framed on it, the symplectic and RK4 rings would be
    dots. The window (the Panel dashboard's frame) holds the rings whose area stayed within
    RING_FIT_FACTOR of the start, with a margin, and is square; the shrunk ring is left out."""
    s = GeometrySession(
        "spring",
        {"damping": 0, "stiffness": 60},
        ["implicit-euler", "velocity-verlet", "rk4"],
        0.05,
    )
    s.advance_to(6.0)
    ratios = s.area_ratios()
    assert ratios["implicit-euler"] < 1 / (1e5 * RING_FIT_FACTOR)
    x0, x1, y0, y1 = s.ring_window()
    assert x1 - x0 == pytest.approx(y1 - y0)  # square: a circle is drawn round
    rings = s.ring_columns()
    extent = {}
    for name, xs, ys in zip(rings["name"], rings["xs"], rings["ys"]):
        extent[name] = (min(xs), max(xs), min(ys), max(ys))
    kept = [extent["velocity-verlet"], extent["rk4"]]
    for lo_x, hi_x, lo_y, hi_y in kept:  # held, with a margin
        assert x0 < lo_x and hi_x < x1 and y0 < lo_y and hi_y < y1
    # together they fill it but for the margin (each has drifted round the orbit its own way)
    span = max(
        max(e[1] for e in kept) - min(e[0] for e in kept),
        max(e[3] for e in kept) - min(e[2] for e in kept),
    )
    assert x1 - x0 == pytest.approx(1.1 * span)
    lo_x, hi_x, lo_y, hi_y = extent["implicit-euler"]
    assert not (x0 < lo_x and hi_x < x1 and y0 < lo_y and hi_y < y1)  # at the rest state
    # the Panel dashboard's figure shows that window
    figures = GeometryFigures()
    figures.update(s)
    phase = figures.figures["phase"]
    assert [phase.x_range.start, phase.x_range.end, phase.y_range.start, phase.y_range.end] == [
        x0,
        x1,
        y0,
        y1,
    ]


def test_a_runaway_ring_diverges_when_its_live_run_does():
    """Explicit Euler's energy grows by 1 + (dt omega)^2 = 1.15 per step on the undamped
    spring: its live run diverges within seconds (core.divergence), and so does its ring,
    which keeps its last sound area; until then the area grew by exactly that factor a step."""
    from integrator_lab.core import simulate

    dt = 0.05
    s = session(dt)
    for k in range(1, 121):
        s.advance_to(k * dt)
    live_at = simulate("spring", "euler", dt=dt, duration=6.0, damping=0, stiffness=60).diverged_at
    ring_at = s.rings["euler"].diverged_at
    assert live_at is not None and ring_at is not None
    # the ring's states differ from the start state by 8 % of its amplitude (an energy within
    # 17 %, a step of growth), and the ring is judged every JUDGED_STEPS steps
    assert abs(ring_at - live_at) <= (1 + JUDGED_STEPS) * dt + 1e-9
    assert s.area_ratios()["euler"] is None
    (card,) = [c for c in s.ring_cards() if c["name"] == "euler"]
    y2 = (dt * math.sqrt(60)) ** 2
    last_t, last_ratio = s.history["euler"][-1]
    assert card["ratio"] == last_ratio == pytest.approx((1 + y2) ** round(last_t / dt), rel=1e-9)
    assert card["diverged_at"] == ring_at
    assert all(math.isfinite(x) for x in card["xs"] + card["ys"])


def test_verlet_outside_its_region_never_shows_a_wrong_area():
    """At dt = 0.3 s Verlet is outside its region (dt omega = 2.32 > 2): its ring runs away
    along one eigenvector and flattens into a needle whose polygon area rounding turns to
    noise (the page once read "velocity-verlet -6.43925"). Verlet's one-step map has
    determinant 1, so every area it shows is 1 to rounding, until its ring diverges, as its
    live run does."""
    s = session(0.3)
    for k in range(1, 201):  # 20 s, in the page's updates of 0.1 s
        s.advance_to(k * 0.1)
    assert s.rings["velocity-verlet"].diverged_at is not None
    assert all(a == pytest.approx(1.0, abs=1e-9) for _, a in s.history["velocity-verlet"])
    for card in s.ring_cards():
        assert math.isfinite(card["ratio"]) and card["ratio"] > 0


def test_the_ring_cards_measure_the_ring_in_start_radii():
    """The page draws each ring in units of the start ring's radii: the start ring is a circle
    of radius 1, and a ring's polygon area there over the start's is its area ratio (one
    degree of freedom)."""
    from integrator_lab.core.area import shoelace

    s = session(0.05)
    for card in s.ring_cards():
        cx, cy = card["centre"]
        for x, y in zip(card["xs"], card["ys"]):
            assert math.hypot(x - cx, y - cy) == pytest.approx(1.0, abs=1e-5)
    start = shoelace(s.ring_cards()[0]["xs"][:-1], s.ring_cards()[0]["ys"][:-1])
    assert start == pytest.approx(math.pi, rel=0.01)  # a 48-gon
    s.advance_to(1.0)
    for card in s.ring_cards():
        area = shoelace(card["xs"][:-1], card["ys"][:-1])
        assert area / start == pytest.approx(card["ratio"], rel=1e-4)


def test_verdict_lines_say_one_verdict_per_method():
    lines = session(0.3).verdict_lines()
    assert [(line["name"], line["ok"]) for line in lines] == [
        ("euler", False),
        ("velocity-verlet", False),
        ("rk4", True),
    ]
    assert lines[2]["text"] == "rk4: stable"


def test_figures_take_the_columns():
    s = session(0.2)
    figures = GeometryFigures()
    figures.show_regions(s)
    figures.update(s)
    assert figures.regions.data["name"] == METHODS
    assert len(figures.points.data["x"]) == 2 * len(METHODS)
    assert set(figures.figures) == {"region", "phase", "area"}


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="stiffness"):
        GeometrySession("spring", {"stiffness": -1}, METHODS, 0.1)
    with pytest.raises(ValueError, match="unknown integrator"):
        GeometrySession("spring", {}, ["nope"], 0.1)


def test_the_geometry_lessons_say_what_the_core_computes():
    from integrator_lab.core import get_system
    from integrator_lab.core.area import area_runs
    from integrator_lab.views.scenarios import get_scenario

    limit = get_scenario("stability-limit").settings()
    assert limit["geometry"] == ["spring"]
    params = limit["params"]["spring"]
    omega = math.sqrt(params["stiffness"])
    assert omega == pytest.approx(7.75, abs=5e-3)
    s = GeometrySession("spring", params, limit["integrators"], limit["dt"]["spring"])
    assert s.points()[0][1] == pytest.approx(1.55, abs=5e-3)
    assert s.verdicts() == {"velocity-verlet": True, "rk4": True}
    assert 2 / omega == pytest.approx(0.258, abs=5e-4)
    assert 2 * math.sqrt(2) / omega == pytest.approx(0.365, abs=5e-4)
    assert s.verdicts(0.26) == {"velocity-verlet": False, "rk4": True}
    assert s.verdicts(0.37) == {"velocity-verlet": False, "rk4": False}

    ring = get_scenario("ring-area").settings()
    assert ring["geometry"] == ["pendulum"]
    dt = ring["dt"]["pendulum"]
    euler, verlet = area_runs(
        get_system("pendulum"), ring["integrators"], dt, round(10 / dt), radius=0.08, points=48
    )
    assert euler.area_ratio[-1] > 2.0
    assert max(abs(a - 1) for a in verlet.area_ratio) < 1e-3  # the 48-gon's resolution
