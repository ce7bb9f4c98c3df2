"""Linear stability (``core.stability``): the limits, functions and regions that mathematics
fixes, for every kind of integrator.

References: Hairer & Wanner, *Solving ODEs II* (1996), IV.2 (stability functions, the RK4
limits 2 sqrt 2 on the imaginary axis and -2.7853 on the real axis, A-stability); Hairer,
Lubich & Wanner, *Geometric Numerical Integration* (2006), I.5 (symplectic Euler, Stormer-
Verlet: stable on the harmonic oscillator exactly for h omega < 2).
"""

from __future__ import annotations

import cmath
import math
from fractions import Fraction

import pytest

from integrator_lab.core import get_system
from integrator_lab.core.custom import parse_definition
from integrator_lab.core.stability import (
    a_stable,
    axis_limit,
    cradle_contact,
    linear_modes,
    method,
    one_step_matrix,
    region,
    scaled_points,
    spectral_radius,
    stability,
    tableau_stability_function,
)

EXPLICIT_TWO_OR_LESS = ("euler", "midpoint", "heun")
SPLITTING_SECOND_ORDER = ("symplectic-euler", "velocity-verlet", "leapfrog")
RUNGE_KUTTA = ("euler", "midpoint", "heun", "rk4", "implicit-euler", "implicit-midpoint")


def test_rk4_limits_on_the_axes():
    rk4 = method("rk4")
    # |R(iy)|^2 = 1 - y^6/72 + y^8/576 <= 1 exactly for y^2 <= 8
    assert axis_limit(rk4, 1j) == pytest.approx(2.0 * math.sqrt(2.0), rel=1e-10)
    # the published real-axis limit (Hairer & Wanner II, IV.2, Fig. 2.1)
    assert -axis_limit(rk4, -1) == pytest.approx(-2.7853, abs=5e-5)
    # and it is the real root of R(x) = 1, i.e. of 1 + x/2 + x^2/6 + x^3/24 = 0
    x = -axis_limit(rk4, -1)
    assert 1 + x / 2 + x * x / 6 + x**3 / 24 == pytest.approx(0.0, abs=1e-10)


@pytest.mark.parametrize("name", EXPLICIT_TWO_OR_LESS)
def test_no_stable_interval_on_the_imaginary_axis(name):
    m = method(name)
    assert axis_limit(m, 1j) == 0.0
    # |R(iy)|^2 = 1 + y^2 (Euler), 1 + y^4/4 (both two-stage second-order methods): > 1
    for y in (1e-2, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0):
        expected = 1 + y * y if name == "euler" else 1 + y**4 / 4
        assert m.growth(1j * y) ** 2 == pytest.approx(expected, rel=1e-12)
    assert not a_stable(m)


@pytest.mark.parametrize("name", SPLITTING_SECOND_ORDER)
def test_splitting_methods_stable_exactly_below_h_omega_2(name):
    m = method(name)
    assert m.kind == "splitting"
    assert axis_limit(m, 1j) == pytest.approx(2.0, abs=1e-9)
    for h_omega in (0.1, 1.0, 1.9, 1.999):
        # on the stable segment the one-step map is a rotation in disguise: |eigenvalues| = 1
        matrix = one_step_matrix(m.make, 1j * h_omega)
        assert spectral_radius(matrix) == pytest.approx(1.0, abs=1e-12)
        (a, b), (c, d) = matrix
        assert a * d - b * c == pytest.approx(1.0, abs=1e-13)  # area-preserving
        # trace 2 - (h omega)^2 for all three (the same map, up to a change of variables)
        assert a + d == pytest.approx(2.0 - h_omega**2, abs=1e-13)
    for h_omega in (2.001, 2.5, 4.0):
        # beyond: real eigenvalues, one of them below -1
        assert spectral_radius(one_step_matrix(m.make, 1j * h_omega)) > 1.0 + 1e-3
    assert not a_stable(m)


@pytest.mark.parametrize("name", ["implicit-euler", "implicit-midpoint"])
def test_implicit_methods_are_a_stable(name):
    m = method(name)
    assert a_stable(m)
    assert axis_limit(m, 1j) == math.inf
    assert axis_limit(m, -1) == math.inf


@pytest.mark.parametrize("name", ["rk4", "velocity-verlet", "yoshida4", "rk45"])
def test_explicit_methods_are_not_a_stable(name):
    assert not a_stable(method(name))


def test_stability_functions_from_the_tableaux():
    rk4 = method("rk4")
    assert rk4.rational is not None
    p, q = rk4.rational
    # the Taylor polynomial of exp: R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24
    assert p == [Fraction(1), Fraction(1), Fraction(1, 2), Fraction(1, 6), Fraction(1, 24)]
    assert q == [1]
    assert method("implicit-euler").rational == ([1], [1, -1])
    assert method("implicit-midpoint").rational == ([1, Fraction(1, 2)], [1, Fraction(-1, 2)])
    # Dormand-Prince 5: exp's Taylor polynomial to z^5, then z^6/600 (Hairer & Wanner I, II.5)
    dp = method("rk45").rational
    assert dp is not None
    assert dp[0] == [Fraction(1, math.factorial(k)) for k in range(6)] + [Fraction(1, 600)]
    # an implicit tableau, 2-stage Gauss: R is the (2,2) Pade approximant of exp
    s3 = Fraction(1, 6) * 0  # placeholders keep the rational arithmetic exact below
    gauss_a = [[Fraction(1, 4), Fraction(1, 4) - s3], [Fraction(1, 4) + s3, Fraction(1, 4)]]
    p, q = tableau_stability_function(gauss_a, [Fraction(1, 2), Fraction(1, 2)])
    # with sqrt(3)/6 set to 0 the tableau is no longer Gauss, but det(I - zA) is still exact:
    # A has trace 1/2 and determinant 0, so Q(z) = 1 - z/2 and P(z) = 1 + z/2
    assert (p, q) == ([1, Fraction(1, 2)], [1, Fraction(-1, 2)])


@pytest.mark.parametrize("name", RUNGE_KUTTA)
def test_one_step_matrix_agrees_with_the_stability_function(name):
    """The matrix of a step on the oscillator with eigenvalues z, conj z has the eigenvalues
    R(z) and R(conj z): both ways give the same growth (off the real axis, where the pair is
    a defective double eigenvalue and the matrix's eigenvalues lose half their digits; so do
    points where R(z) = R(conj z), such as -1 + 2.5i for the two-stage methods)."""
    m = method(name)
    assert m.rational is not None
    for z in (0.3j, 1.5j, -0.5 + 0.5j, -2 + 1j, -1 + 2.4j, 0.4 + 1j, -4 + 3j, -0.1 + 0.05j):
        matrix = spectral_radius(one_step_matrix(m.make, z))
        assert matrix == pytest.approx(m.growth(z), rel=1e-9)


def test_user_tableau_region_equals_the_built_in():
    rk4 = stability("rk4")
    exact = parse_definition(
        {
            "kind": "tableau",
            "name": "my-rk4",
            "a": [[0, 0, 0, 0], ["1/2", 0, 0, 0], [0, "1/2", 0, 0], [0, 0, 1, 0]],
            "b": ["1/6", "1/3", "1/3", "1/6"],
            "c": [0, "1/2", "1/2", 1],
        }
    )
    floats = parse_definition(
        {
            "kind": "tableau",
            "name": "float-rk4",
            "a": [[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0]],
            "b": [1 / 6, 1 / 3, 1 / 3, 1 / 6],
            "c": [0, 0.5, 0.5, 1],
        }
    )
    for definition in (exact, floats):
        mine = stability(definition)
        assert mine.kind == "runge-kutta"
        assert mine.stability_function == rk4.stability_function
        assert mine.boundary == rk4.boundary
        assert (mine.imaginary_limit, mine.real_limit, mine.a_stable) == (
            rk4.imaginary_limit,
            rk4.real_limit,
            rk4.a_stable,
        )


def test_user_splitting_region_equals_the_built_in():
    verlet = parse_definition(
        {
            "kind": "splitting",
            "name": "my-verlet",
            "sequence": [["kick", 0.5], ["drift", 1], ["kick", 0.5]],
        }
    )
    assert method(verlet).kind == "splitting"
    assert stability(verlet).boundary == stability("velocity-verlet").boundary


def test_python_method_has_the_region_of_its_map():
    code = (
        "def step(accel, q, v, t, dt):\n"
        "    a = accel(q, v, t)\n"
        "    v = [vi + dt * ai for vi, ai in zip(v, a)]\n"
        "    return [qi + dt * vi for qi, vi in zip(q, v)], v\n"
    )
    mine = method(parse_definition({"kind": "python", "name": "my-se", "code": code}))
    assert mine.kind == "python"
    assert axis_limit(mine, 1j) == pytest.approx(2.0, abs=1e-9)  # symplectic Euler's


def test_region_boundaries_lie_on_the_unit_level():
    # implicit Euler: |1/(1 - z)| = 1 on the circle |z - 1| = 1; the polygon's vertices lie on
    # it to the resolution of the linear interpolation on a 0.05 grid
    pieces = region(method("implicit-euler"))
    assert len(pieces) == 1
    distances = [abs(abs(complex(x, y) - 1) - 1) for x, y in pieces[0]]
    assert max(distances) < 2e-3
    assert pieces[0][0] == pieces[0][-1]  # closed
    # Euler: the circle |z + 1| = 1
    (euler,) = region(method("euler"))
    assert max(abs(abs(complex(x, y) + 1) - 1) for x, y in euler) < 2e-3
    # RK4: every vertex has |R| = 1 to the grid's resolution; the closed curve reaches the
    # axes at the limits
    rk4 = method("rk4")
    (curve,) = region(rk4)
    assert max(abs(math.log(rk4.growth(complex(x, y)))) for x, y in curve) < 5e-3
    assert min(x for x, _ in curve) == pytest.approx(-2.7853, abs=2e-3)
    assert max(y for _, y in curve) > 2.0 * math.sqrt(2.0) - 1e-3


def test_symplectic_boundary_runs_along_the_imaginary_axis():
    # Verlet: stable (growth exactly 1) on the segment |im| < 2 of the axis, damped to its left,
    # growing to its right: that segment is part of the boundary (to the interpolation on the
    # grid: growth is 1 -/+ 0.025 at the nodes either side)
    pieces = region(method("velocity-verlet"))
    on_axis = [y for piece in pieces for x, y in piece if abs(x) < 1e-3]
    assert on_axis and max(abs(y) for y in on_axis) < 2.0 + 0.05


# -- the systems' eigenvalues ------------------------------------------------------------------
def test_spring_modes():
    spring = get_system("spring", mass=2.0, stiffness=18.0, damping=1.2)
    (mode,) = linear_modes(spring)
    gamma = 1.2 / (2 * 2.0)
    assert mode.eigenvalue == pytest.approx(complex(-gamma, math.sqrt(9.0 - gamma**2)), rel=1e-14)
    # overdamped: two real rates whose product is k/m and whose sum is -b/m
    slow, fast = (m.eigenvalue for m in linear_modes(get_system("spring", damping=20.0)))
    assert slow.imag == fast.imag == 0.0
    assert (slow * fast).real == pytest.approx(15.0, rel=1e-14)
    assert (slow + fast).real == pytest.approx(-20.0, rel=1e-14)


def test_pendulum_modes_follow_cos_theta():
    pendulum = get_system("pendulum", length=2.0, gravity=9.81)
    for theta in (0.0, 0.5, 1.2):
        (mode,) = linear_modes(pendulum, [theta], [0.0])
        assert mode.eigenvalue == pytest.approx(1j * math.sqrt(9.81 / 2 * math.cos(theta)))
    # beyond the horizontal the linearisation is a saddle: lambda = +/- sqrt(g/L |cos theta|)
    modes = linear_modes(pendulum, [2.5], [0.0])
    rate = math.sqrt(9.81 / 2 * -math.cos(2.5))
    assert sorted(m.eigenvalue.real for m in modes) == pytest.approx([-rate, rate])
    points = scaled_points(linear_modes(pendulum, [0.0], [0.0]), 0.1)
    flat = [c for point in points for c in point]
    assert flat == pytest.approx([0.0, 0.1 * math.sqrt(4.905), 0.0, -0.1 * math.sqrt(4.905)])


def test_cradle_linear_contact_mode():
    cradle = get_system("cradle", contact="linear", stiffness=1e4, mass=0.2, restitution=1.0)
    swing, contact = linear_modes(cradle)
    assert swing.eigenvalue == pytest.approx(1j * math.sqrt(9.81 / 0.3))
    # equal balls: m_eff = m/2, omega = sqrt(k/m_eff), no damping at e = 1
    assert contact.eigenvalue == pytest.approx(1j * math.sqrt(1e4 / 0.1), rel=1e-14)
    damped = get_system("cradle", contact="linear", stiffness=1e4, mass=0.2, restitution=0.5)
    mode = cradle_contact(damped)
    assert abs(mode.eigenvalue) == pytest.approx(math.sqrt(1e4 / 0.1), rel=1e-12)
    assert mode.eigenvalue.real == pytest.approx(-damped.damping[0] / (2 * 0.1), rel=1e-12)


def test_cradle_hertz_contact_mode():
    cradle = get_system("cradle", restitution=1.0)  # Hertz by default
    k, m_eff = cradle.k, cradle.masses[0] / 2
    # no contact at the start: the typical overlap, where the impact's kinetic energy is all
    # stored in the contact, (2/5) k d^(5/2) = m_eff u^2 / 2
    omega2 = abs(cradle_contact(cradle).eigenvalue) ** 2
    overlap = (omega2 * m_eff / (1.5 * k)) ** 2
    angle = cradle.params["angle"]
    speed2 = 2 * 9.81 * 0.3 * (1 - math.cos(angle))
    assert 0.4 * k * overlap**2.5 == pytest.approx(0.5 * m_eff * speed2, rel=1e-12)
    # at a state with balls 0 and 1 overlapping by d: the tangent stiffness 1.5 k sqrt(d)
    q, _v = cradle.initial_state()
    d = 2e-4
    spacing = 2 * cradle.radius + cradle.params["gap"]
    theta = math.asin((spacing - 2 * cradle.radius + d) / cradle.length)
    state = [theta] + [0.0] * (cradle.n - 1)
    mode = cradle_contact(cradle, state, [0.0] * cradle.n)
    # (the line of centres tilts with theta, which changes d at the 1e-3 level)
    assert abs(mode.eigenvalue) ** 2 == pytest.approx(1.5 * k * math.sqrt(d) / m_eff, rel=2e-3)
    # the cradle's recommended step resolves the contact: the point lies in Verlet's region
    dt = cradle.recommended_dt
    verlet = method("velocity-verlet")
    assert verlet.stable(dt * cradle_contact(cradle).eigenvalue)
    assert not verlet.stable(30 * dt * cradle_contact(cradle).eigenvalue)


def test_unknown_names_and_bad_windows():
    with pytest.raises(ValueError, match="unknown integrator"):
        method("nope")
    with pytest.raises(ValueError, match="window"):
        region(method("euler"), window=(1.0, 2.0, -1.0, 1.0))
    assert cmath.isclose(method("rk4").growth(2j), method("rk4").growth(-2j))
