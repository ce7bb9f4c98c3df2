"""Phase-space area (``core.area``): what a ring of states does under each integrator.

On the undamped spring every integrator is a linear map, so the ring's polygon changes its
area by the map's determinant in each step, to rounding: ``1 + (h omega)^2`` for explicit
Euler, ``1/(1 + (h omega)^2)`` for implicit Euler, ``|R(i h omega)|^2`` for RK4 and 1 for a
symplectic method (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, VI.2). On the
pendulum the ring deforms and the polygon of N points only approximates its area; the
polygon's error falls as 1/N^2, which measures the resolution.
"""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import get_system
from integrator_lab.core.area import Ring, area_runs, ring, ring_area, ring_scale

SYMPLECTIC = ("symplectic-euler", "velocity-verlet", "leapfrog", "yoshida4", "implicit-midpoint")


def rk4_gain(y: float) -> float:
    """|R(iy)|^2 of RK4: R(iy) = (1 - y^2/2 + y^4/24) + i (y - y^3/6)."""
    return (1 - y * y / 2 + y**4 / 24) ** 2 + (y - y**3 / 6) ** 2


EXPECTED = {
    "euler": lambda y: 1 + y * y,
    "implicit-euler": lambda y: 1 / (1 + y * y),
    "rk4": rk4_gain,
    **{name: (lambda y: 1.0) for name in SYMPLECTIC},
}


@pytest.mark.parametrize("name", list(EXPECTED))
@pytest.mark.parametrize("dt", [0.01, 0.1, 0.4])
def test_undamped_spring_area_ratio_per_step(name, dt):
    spring = get_system("spring", damping=0.0, stiffness=15.0, mass=1.0)
    y = dt * math.sqrt(15.0)
    (run,) = area_runs(spring, [name], dt, 5)
    per_step = EXPECTED[name](y)
    for k, ratio in enumerate(run.area_ratio):
        assert ratio == pytest.approx(per_step**k, rel=1e-12 * (k + 1))
    assert run.t == pytest.approx([k * dt for k in range(6)], rel=1e-15)


def test_pendulum_symplectic_methods_keep_the_area_over_1000_steps():
    pendulum = get_system("pendulum")  # theta0 = 1 rad: well into the nonlinear range

    def ratios(name):
        coarse, fine = (
            area_runs(pendulum, [name], 0.02, 1000, points=n, every=1000)[0].area_ratio[-1]
            for n in (32, 64)
        )
        # the 64-gon's error is a quarter of the 32-gon's (1/N^2): what remains of
        # fine - 1 beyond that estimate is the method's own change of area
        resolution = abs(coarse - fine) / 3
        extrapolated = (4 * fine - coarse) / 3
        return fine, resolution, extrapolated

    for name in SYMPLECTIC:
        fine, resolution, extrapolated = ratios(name)
        assert resolution < 1e-3  # the ring is resolved
        assert abs(fine - 1) <= 1.5 * resolution, name
        # and with the polygon's leading error removed, the area is kept to 1 % of it
        assert abs(extrapolated - 1) <= 0.01 * resolution, name
    # the same test fails for a method that changes area
    fine, resolution, extrapolated = ratios("heun")
    assert abs(fine - 1) > 1.5 * resolution
    for name in ("euler", "implicit-euler"):
        (run,) = area_runs(pendulum, [name], 0.02, 1000, points=32, every=1000)
        assert abs(run.area_ratio[-1] - 1) > 0.5


def test_ring_is_an_inscribed_polygon_of_the_ellipse():
    pendulum = get_system("pendulum", theta0=0.4, omega0=0.0, length=1.0, gravity=9.81)
    scale = ring_scale(pendulum, 0.1)
    omega = math.sqrt(9.81 * math.cos(0.4))
    assert scale.radius_q == pytest.approx(0.1 * 0.4)
    assert scale.radius_v == pytest.approx(0.1 * 0.4 * omega)
    for n in (8, 64):
        states = ring(pendulum, 0.1, n)
        assert len(states) == n
        # an n-gon inscribed in an ellipse with semi-axes a, b: (n/2) sin(2 pi/n) a b
        expected = n / 2 * math.sin(2 * math.pi / n) * scale.radius_q * scale.radius_v
        assert ring_area(pendulum, states) == pytest.approx(expected, rel=1e-12)


def test_cradle_ring_lies_in_the_lifted_ball_plane():
    cradle = get_system("cradle")
    scale = ring_scale(cradle, 0.05)
    assert scale.coordinate == 0
    assert scale.radius_q == pytest.approx(0.05 * 0.5)
    ring_ = Ring(cradle, "velocity-verlet", 1e-3, 0.05, 16)
    ring_.advance(10)  # before the first impact: a pendulum's swing, area kept
    assert ring_.area_ratio() == pytest.approx(1.0, abs=1e-3)


def test_bad_input_names_the_parameter():
    spring = get_system("spring")
    with pytest.raises(ValueError, match=r"radius: .*\[1e-06, 1\]"):
        area_runs(spring, ["euler"], 0.01, 10, radius=2.0)
    with pytest.raises(ValueError, match=r"points: .*\[8, 4096\]"):
        area_runs(spring, ["euler"], 0.01, 10, points=3)
    with pytest.raises(ValueError, match="dt"):
        area_runs(spring, ["euler"], math.nan, 10)
    with pytest.raises(ValueError, match="steps"):
        area_runs(spring, ["euler"], 0.01, 0)
    with pytest.raises(ValueError, match="unknown integrator"):
        area_runs(spring, ["nope"], 0.01, 10)


def test_divergence_stops_the_run():
    spring = get_system("spring", damping=0.0)
    (run,) = area_runs(spring, ["euler"], 0.5, 5000, every=10)
    assert run.diverged_at is not None
    assert all(math.isfinite(x) for x in run.area_ratio)
