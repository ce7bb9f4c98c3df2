"""Each system's scene geometry (what a view draws around ``drawing``) follows from its
declared parameters: pivots, rod, wall, body size and the box the exact motion stays in."""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import SYSTEMS, get_system
from integrator_lab.core.systems import SceneGeometry

ANGLES = [i * math.pi / 8.0 for i in range(-16, 17)]


def _inside(geometry, x, y):
    x0, x1, y0, y1 = geometry.bounds
    half_w, half_h = geometry.body_width / 2.0, geometry.body_height / 2.0
    eps = 1e-12
    return (
        x0 - eps <= x - half_w
        and x + half_w <= x1 + eps
        and (y0 - eps <= y - half_h and y + half_h <= y1 + eps)
    )


@pytest.mark.parametrize("length", [0.5, 1.0, 7.0])
def test_pendulum_bob_hangs_from_one_pivot_at_the_rod_length_and_every_angle_is_in_bounds(
    length,
):
    system = get_system("pendulum", length=length, theta0=0.3)
    g = system.scene_geometry()
    assert g.shape == "circle" and g.pivots == ((0.0, 0.0),) and g.rod == length
    assert g.body_width == g.body_height > 0.0
    for theta in ANGLES:  # any angle an integrator reaches, not only the exact swing
        d = system.drawing([theta])
        assert math.hypot(d["x"][0], d["y"][0]) == pytest.approx(length)
        assert _inside(g, d["x"][0], d["y"][0]), theta


@pytest.mark.parametrize(
    "params",
    [{}, {"balls": 3, "radius": 0.05, "gap": 0.0, "length": 1.0}, {"balls": 7, "lifted": 2}],
)
def test_cradle_pivots_are_spaced_by_a_diameter_and_the_gap(params):
    system = get_system("cradle", **params)
    p = system.params
    g = system.scene_geometry()
    assert g.shape == "circle" and g.body_width == g.body_height == 2.0 * p["radius"]
    assert g.rod == p["length"] and len(g.pivots) == p["balls"]
    spacing = 2.0 * p["radius"] + p["gap"]
    for i, (x, y) in enumerate(g.pivots):
        assert x == pytest.approx(g.pivots[0][0] + i * spacing) and y == 0.0
    # every ball hangs from its pivot at the string's length
    q = [0.3 * (i - 1) for i in range(p["balls"])]
    d = system.drawing(q)
    for (px, py), x, y in zip(g.pivots, d["x"], d["y"]):
        assert math.hypot(x - px, y - py) == pytest.approx(p["length"])
    # at rest and pulled out by the declared angle, every ball is in bounds
    start = system.drawing(system.initial_state()[0])
    assert all(_inside(g, x, y) for x, y in zip(start["x"], start["y"]))
    out = [p["angle"]] * p["balls"]  # every ball as far right as the lift
    right = system.drawing(out)
    assert _inside(g, right["x"][-1], right["y"][-1])


def test_cradle_bounds_hold_a_light_ball_thrown_higher_than_the_lift():
    # a lifted ball 4 times heavier can give the last ball 4 times its potential energy:
    # 1 - cos(b) = 4 (1 - cos a)
    system = get_system("cradle", angle=0.5, mass_ratio=4.0)
    g = system.scene_geometry()
    b = math.acos(1.0 - 4.0 * (1.0 - math.cos(0.5)))
    n = system.params["balls"]
    d = system.drawing([0.0] * (n - 1) + [b])
    assert _inside(g, d["x"][-1], d["y"][-1])


@pytest.mark.parametrize(
    "params", [{}, {"x0": 0.3, "v0": 2.0, "stiffness": 4.0, "mass": 2.0}, {"x0": 0.0, "v0": 0.0}]
)
def test_spring_amplitude_comes_from_the_energy_and_the_block_never_reaches_the_wall(params):
    system = get_system("spring", **params)
    p = system.params
    g = system.scene_geometry()
    # E = k x0^2/2 + m v0^2/2 = k A^2/2 (1 m for a spring at rest in equilibrium)
    amplitude = math.sqrt(p["x0"] ** 2 + p["mass"] * p["v0"] ** 2 / p["stiffness"]) or 1.0
    assert g.shape == "rect" and g.pivots == () and g.rod == 0.0
    half = g.body_width / 2.0
    assert g.bounds[0] == pytest.approx(-amplitude - half)
    assert g.bounds[1] == pytest.approx(amplitude + half)
    assert g.wall is not None and g.wall < -amplitude - half  # clear of the block
    for x in (-amplitude, 0.0, amplitude):
        d = system.drawing([x])
        assert d["x"][0] == x and _inside(g, d["x"][0], d["y"][0])


def test_every_system_says_whether_it_has_a_scene():
    for name, cls in SYSTEMS.items():
        g = cls().scene_geometry()
        assert g is None or isinstance(g, SceneGeometry), name
    assert {n for n, c in SYSTEMS.items() if c().scene_geometry()} == {
        "pendulum",
        "cradle",
        "spring",
        "balls",
    }
