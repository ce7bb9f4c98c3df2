"""Each system's physics: exact solutions against an independent high-accuracy integration,
the pendulum's period against the elliptic-integral formula and published tables, and the
special functions behind it."""

from __future__ import annotations

import decimal
import itertools
import json
import math
import sys

import pytest

from integrator_lab.core import SYSTEMS, catalog, get_system, simulate
from integrator_lab.core.integrators.adaptive import RK45
from integrator_lab.core.special import ellipf, ellipk, jacobi

# The reference is rk45 with tolerances tightened to rtol 1e-12, atol 1e-14: over 10 s its
# global error stays near 1e-12 of the solution's scale, ~1e-10 close to the pendulum's
# separatrix, where the period's sensitivity to energy amplifies phase errors. 1e-8 leaves room
# for that and still rejects any exact solution with a wrong phase, amplitude, decay or sign.
REFERENCE_TOLERANCE = 1e-8
EPS = sys.float_info.epsilon
OUTPUT_INTERVAL = 0.05  # s
DURATION = 10.0  # s


def reference_run(system):
    """(t, q, v) every OUTPUT_INTERVAL for DURATION, by tightly controlled Dormand-Prince."""
    integrator = RK45(rtol=1e-12, atol=1e-14)
    q, v = system.initial_state()
    w = 0.0
    samples = []
    for i in range(round(DURATION / OUTPUT_INTERVAL)):
        q, v, w = integrator.step(system, q, v, w, i * OUTPUT_INTERVAL, OUTPUT_INTERVAL)
        samples.append(((i + 1) * OUTPUT_INTERVAL, q, v))
    return samples


EXACT_CASES = {
    "spring-underdamped": ("spring", {}),
    "spring-underdamped-moving-start": ("spring", {"x0": -0.5, "v0": 3.0, "damping": 1.0}),
    "spring-critical": ("spring", {"mass": 1.0, "stiffness": 4.0, "damping": 4.0}),
    "spring-critical-moving-start": (
        "spring",
        {"mass": 1.0, "stiffness": 4.0, "damping": 4.0, "x0": 0.5, "v0": -4.0},
    ),
    "spring-overdamped": ("spring", {"damping": 10.0}),
    "spring-undamped": ("spring", {"damping": 0.0, "v0": 2.0}),
    "pendulum-linear": ("pendulum", {"model": "linear", "theta0": 1.0, "omega0": 0.7}),
    "pendulum-nonlinear-at-rest": ("pendulum", {"theta0": 1.0}),
    "pendulum-nonlinear-pushed-forward": ("pendulum", {"theta0": 1.0, "omega0": 1.5}),
    "pendulum-nonlinear-pushed-back": ("pendulum", {"theta0": 1.0, "omega0": -1.5}),
    "pendulum-nonlinear-from-bottom": ("pendulum", {"theta0": 0.0, "omega0": -4.0}),
    "pendulum-nonlinear-large": ("pendulum", {"theta0": -2.8, "omega0": 0.5}),
    "pendulum-rotating-forward": ("pendulum", {"theta0": 1.0, "omega0": 8.0}),
    "pendulum-rotating-backward": ("pendulum", {"theta0": -2.0, "omega0": -7.0}),
    "pendulum-rotating-barely": ("pendulum", {"theta0": 3.1, "omega0": 0.5}),
    "constant-force": ("constant-force", {"x0": 1.0, "v0": -2.0, "force": 3.0, "mass": 2.0}),
    "drag-linear": ("drag", {"v0": -3.0}),
    "drag-linear-faster-than-terminal": ("drag", {"v0": 25.0, "drag": 0.5}),
}


@pytest.mark.parametrize("case", list(EXACT_CASES))
def test_exact_solution_matches_rk45(case):
    name, params = EXACT_CASES[case]
    system = get_system(name, **params)
    samples = reference_run(system)
    exact = [system.exact(t) for t, _q, _v in samples]
    assert all(e is not None for e in exact), case
    q_scale = max(abs(q[0]) for q, _ in exact)
    v_scale = max(abs(v[0]) for _, v in exact)
    for (t, q, v), (q_exact, v_exact) in zip(samples, exact):
        assert q[0] == pytest.approx(q_exact[0], abs=REFERENCE_TOLERANCE * q_scale), t
        assert v[0] == pytest.approx(v_exact[0], abs=REFERENCE_TOLERANCE * v_scale), t


@pytest.mark.parametrize("case", list(EXACT_CASES))
def test_exact_solution_starts_at_the_initial_state(case):
    name, params = EXACT_CASES[case]
    system = get_system(name, **params)
    q0, v0 = system.initial_state()
    q, v = system.exact(0.0)
    assert q[0] == pytest.approx(q0[0], abs=1e-14)
    assert v[0] == pytest.approx(v0[0], abs=1e-13)


CONSERVATIVE_EXACT = [
    c for c in EXACT_CASES if c.startswith("pendulum") or c in ("spring-undamped", "constant-force")
]


@pytest.mark.parametrize("case", CONSERVATIVE_EXACT)
def test_exact_solution_conserves_energy(case):
    """Independent of any integrator: the exact motion of a frictionless system keeps
    kinetic + potential constant (to the rounding of the special functions, ~1e-14)."""
    name, params = EXACT_CASES[case]
    system = get_system(name, **params)
    e0 = sum(system.energy(*system.initial_state()))
    scale = max(abs(e0), system.energy_scale())
    for i in range(201):
        t = 0.05 * i
        q, v = system.exact(t)
        assert sum(system.energy(q, v)) == pytest.approx(e0, abs=1e-12 * scale), t


@pytest.mark.parametrize("case", list(EXACT_CASES))
def test_exact_velocity_is_the_derivative_of_the_exact_position(case):
    """Central difference with h = 1e-4 s: truncation h^2 |q'''| / 6 <= h^2 lambda^2 / 6 of the
    velocity scale, with rates lambda <= 8.2 1/s here: ~1e-7; rounding ~1e-16/h ~ 1e-12.
    A velocity formula missing a factor (or with a wrong sign) is off by percents."""
    name, params = EXACT_CASES[case]
    system = get_system(name, **params)
    h = 1e-4
    v_scale = max(abs(system.exact(0.05 * i)[1][0]) for i in range(101)) or 1.0
    for i in range(1, 100):
        t = 0.05 * i + 0.0123
        slope = (system.exact(t + h)[0][0] - system.exact(t - h)[0][0]) / (2 * h)
        assert system.exact(t)[1][0] == pytest.approx(slope, abs=1e-6 * v_scale), t


def test_near_critical_damping_is_continuous_with_critical():
    """The three branches of the spring's solution must join: b = 4 (1 +- 1e-8) differs from
    b = 4 by O(1e-8) times t (the solution is smooth in b), far below 1e-6."""
    critical = get_system("spring", mass=1.0, stiffness=4.0, damping=4.0)
    for b in (4.0 * (1 - 1e-8), 4.0 * (1 + 1e-8)):
        near = get_system("spring", mass=1.0, stiffness=4.0, damping=b)
        for t in (0.1, 0.5, 1.0, 3.0, 10.0):
            assert near.exact(t)[0][0] == pytest.approx(critical.exact(t)[0][0], abs=1e-6)
            assert near.exact(t)[1][0] == pytest.approx(critical.exact(t)[1][0], abs=1e-6)


def _two_exponentials(mass, k, b, x0, v0, t):
    """The overdamped spring's exact motion x = A exp(l1 t) + B exp(l2 t), evaluated with 60
    significant digits (``decimal``), so the textbook form is safe from cancellation and
    overflow; returns (x, v, the size |A e1| + |B e2| of the terms, the same for v)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        m, k, b, x0, v0, t = (decimal.Decimal(z) for z in (mass, k, b, x0, v0, t))
        gamma = b / (2 * m)
        r = (gamma * gamma - k / m).sqrt()
        l1, l2 = r - gamma, -r - gamma
        a = (v0 - l2 * x0) / (l1 - l2)
        c = x0 - a
        e1, e2 = (l1 * t).exp(), (l2 * t).exp()
        return (
            float(a * e1 + c * e2),
            float(l1 * a * e1 + l2 * c * e2),
            float(abs(a * e1) + abs(c * e2)),
            float(abs(l1 * a * e1) + abs(l2 * c * e2)),
        )


@pytest.mark.parametrize(
    "damping, times",
    [
        (20.0, (1.0, 76.9, 77.0, 200.0, 500.0)),  # cosh(r t) overflowed from t = 77 s
        (100.0, (1.0, 14.3, 100.0, 1000.0, 4000.0)),  # from t = 14.3 s
        (1000.0, (0.01, 1.4, 100.0, 1e4)),  # from t = 1.4 s
        (1e6, (1e-6, 1e-3, 1.0, 1e3, 1e4)),  # at once
    ],
)
@pytest.mark.parametrize("x0, v0", [(1.0, 0.0), (-0.5, 30.0)])
def test_overdamped_spring_matches_the_closed_form_at_long_times(damping, times, x0, v0):
    """k = 15, m = 1: every damping in the declared range up to 1e6 and times up to 1e4 s
    (where exp(-gamma t) cosh(r t) overflowed) agree with the closed form evaluated in 60-digit
    decimal arithmetic to 1e-10 of the size of its terms (a few roundings of exp(l t) with
    |l t| <= 400 cost ~1e-13)."""
    system = get_system("spring", stiffness=15.0, mass=1.0, damping=damping, x0=x0, v0=v0)
    for t in times:
        (x,), (v,) = system.exact(t)
        x_ref, v_ref, x_size, v_size = _two_exponentials(1.0, 15.0, damping, x0, v0, t)
        assert x == pytest.approx(x_ref, rel=1e-10, abs=1e-10 * x_size), t
        assert v == pytest.approx(v_ref, rel=1e-10, abs=1e-10 * v_size), t


def test_spring_exact_solution_is_finite_over_the_declared_range():
    """No exception and finite values for damping up to 1e6 N s/m at times up to 1e4 s, at the
    corners of the declared mass, stiffness and initial-state ranges; and the values solve the
    equation of motion: the central difference of v matches -(k x + b v)/m."""
    for mass, k, b, x0, v0 in itertools.product(
        (1e-3, 1.0, 1000.0),
        (1e-3, 15.0, 1e6),
        (0.0, 0.1, 20.0, 1e3, 1e6),
        (-100.0, 1.0),
        (0.0, 1000.0),
    ):
        system = get_system("spring", mass=mass, stiffness=k, damping=b, x0=x0, v0=v0)
        for t in (0.0, 0.5, 77.0, 1e3, 1e4):
            (x,), (v,) = system.exact(t)
            assert math.isfinite(x) and math.isfinite(v), (mass, k, b, t)
    system = get_system("spring", damping=1e6, stiffness=15.0, mass=1.0)
    for t in (10.0, 1e3, 1e4):
        h = 1e-3  # the slow mode's rate is 1.5e-5 1/s: truncation ~ (h l1)^2 ~ 1e-16
        (x,), (v,) = system.exact(t)
        slope = (system.exact(t + h)[1][0] - system.exact(t - h)[1][0]) / (2 * h)
        assert slope == pytest.approx(-(15.0 * x + 1e6 * v), abs=1e-8 * 15.0 * abs(x)), t


def test_drag_exact_solution_with_a_tiny_drag_rate():
    """z = k t << 1: the motion is the constant-force one to second order in z,
    x = a t^2 (1/2 - z/6 + z^2/24), v = a t (1 - z/2 + z^2/6) (next terms ~ z^3 <= 1e-15).
    With k = 1e-12 the old form (F/(m k)) (t - relaxed) subtracted two numbers of 1e14 m; at
    k = 1e-300 it gave NaN."""
    for k in (1e-300, 1e-12, 1e-8):
        system = get_system("drag", force=10.0, mass=1.0, drag=k)
        for t in (1.0, 10.0, 1e3):
            (x,), (v,) = system.exact(t)
            z = k * t
            assert x == pytest.approx(10.0 * t * t * (0.5 - z / 6 + z * z / 24), rel=1e-14)
            assert v == pytest.approx(10.0 * t * (1 - z / 2 + z * z / 6), rel=1e-14)
    # and a z = k t near the switch between the series and the closed form (0.5)
    system = get_system("drag", force=10.0, mass=1.0, drag=0.5, v0=2.0)
    for t in (0.999, 1.0, 1.001):
        (x,), (v,) = system.exact(t)
        z = 0.5 * t
        assert x == pytest.approx(
            2.0 * (1 - math.exp(-z)) / 0.5 + 20.0 * (t - (1 - math.exp(-z)) / 0.5), rel=1e-13
        )


@pytest.mark.parametrize("omega0", [10.0, -10.0, 6.5])
def test_rotating_pendulum_turns_once_per_period(omega0):
    """Faster than 2 sqrt(g/L) = 6.26 rad/s at the bottom, the pendulum goes over the top:
    after one period the angle has grown by exactly one turn and the velocity is back. The
    period is independent of that check: the time to cross a turn, by quadrature of
    dt = dtheta / |theta'| with theta'^2 = omega0^2 - 4 (g/L) sin^2(theta/2)."""
    rotating = get_system("pendulum", theta0=0.0, omega0=omega0)
    g_over_l = rotating.params["gravity"] / rotating.params["length"]
    period = rotating.period()
    steps = 20000  # midpoint rule on a smooth periodic integrand: spectrally accurate
    quadrature = sum(
        2.0
        * math.pi
        / steps
        / math.sqrt(omega0**2 - 4.0 * g_over_l * math.sin(math.pi * (i + 0.5) / steps) ** 2)
        for i in range(steps)
    )
    assert period == pytest.approx(quadrature, rel=1e-10)
    (q0,), (v0,) = rotating.exact(0.0)
    (q1,), (v1,) = rotating.exact(period)
    assert q1 - q0 == pytest.approx(math.copysign(2.0 * math.pi, omega0), abs=1e-10)
    assert v1 == pytest.approx(v0, abs=1e-10 * abs(omega0))


def test_separatrix_and_cradle_have_no_exact_solution():
    # at the top at rest: the separatrix's energy (k = 1), no periodic motion to draw
    assert get_system("pendulum", theta0=math.pi, omega0=0.0).period() is None
    assert get_system("pendulum", theta0=math.pi, omega0=0.0).exact(1.0) is None
    assert get_system("cradle").exact(0.5) is None


def test_constant_force_and_linear_drag_closed_forms():
    """x = x0 + v0 t + F t^2/(2m); true linear drag relaxes to F/(m k) as exp(-k t)."""
    body = get_system("constant-force", x0=1.0, v0=-2.0, force=3.0, mass=2.0)
    q, v = body.exact(4.0)
    assert q[0] == pytest.approx(1.0 - 8.0 + 0.75 * 16.0, rel=1e-15)
    assert v[0] == pytest.approx(-2.0 + 1.5 * 4.0, rel=1e-15)
    drag = get_system("drag", force=10.0, mass=2.0, drag=0.5, v0=0.0)
    terminal = 10.0 / (2.0 * 0.5)
    assert drag.terminal_velocity() == pytest.approx(terminal, rel=1e-15)
    for t in (0.5, 2.0, 10.0):
        assert drag.exact(t)[1][0] == pytest.approx(terminal * (1 - math.exp(-0.5 * t)), rel=1e-14)
        assert drag.exact(t)[0][0] == pytest.approx(
            terminal * (t - (1 - math.exp(-0.5 * t)) / 0.5), rel=1e-14
        )


# ---------------------------------------------------------------------------------------------
# the pendulum's period


def zero_crossings(result):
    """Times where theta changes sign, linearly interpolated (theta'' = 0 there, so the
    interpolation error is O(dt^3))."""
    times = []
    for (t0, q0), (t1, q1) in zip(zip(result.t, result.q), zip(result.t[1:], result.q[1:])):
        a, b = q0[0], q1[0]
        if a > 0 >= b or a < 0 <= b:
            times.append(t0 + (t1 - t0) * a / (a - b))
    return times


@pytest.mark.parametrize("theta0", [0.1, 1.0, 2.5, 3.0])
def test_measured_period_is_the_elliptic_integral_formula(theta0):
    """T = 4 sqrt(L/g) K(sin(theta0/2)). rk4 at dt = 1 ms: phase error ~ (omega dt)^4 omega T
    / 120 ~ 1e-11; crossing interpolation ~ (g/L) dt^3 / 8 ~ 1e-9 s; so 1e-8 relative."""
    length, gravity = 0.8, 9.81
    system = get_system("pendulum", theta0=theta0, length=length, gravity=gravity)
    formula = 4 * math.sqrt(length / gravity) * ellipk(math.sin(theta0 / 2))
    assert system.period() == pytest.approx(formula, rel=1e-14)
    result = simulate(system, "rk4", dt=1e-3, duration=1.3 * formula)
    crossings = zero_crossings(result)
    assert len(crossings) >= 3
    # crossings 0 and 2 are a full period apart (same direction)
    assert crossings[2] - crossings[0] == pytest.approx(formula, rel=1e-8)
    assert crossings[0] == pytest.approx(formula / 4, rel=1e-8)


@pytest.mark.parametrize("theta0", [0.02, 0.05, 0.1])
def test_small_amplitude_period_series(theta0):
    """T = 2 pi sqrt(L/g) (1 + theta0^2/16 + 11 theta0^4/3072 + ...); the next term is
    173 theta0^6 / 737280 < 2.4e-10 for theta0 <= 0.1."""
    system = get_system("pendulum", theta0=theta0, length=1.0, gravity=9.81)
    series = 2 * math.pi * math.sqrt(1.0 / 9.81) * (1 + theta0**2 / 16 + 11 * theta0**4 / 3072)
    assert system.period() == pytest.approx(series, rel=3e-10)
    linear = get_system("pendulum", theta0=theta0, model="linear", length=1.0, gravity=9.81)
    assert linear.period() == pytest.approx(2 * math.pi / math.sqrt(9.81), rel=1e-15)


# ---------------------------------------------------------------------------------------------
# special functions

# Abramowitz & Stegun, table 17.1, K as a function of the modular angle alpha (k = sin alpha)
PUBLISHED_K = [
    pytest.param(0.0, math.pi / 2, id="alpha=0"),
    pytest.param(30.0, 1.685750354812596, id="alpha=30"),
    pytest.param(45.0, 1.854074677301372, id="alpha=45"),
    pytest.param(60.0, 2.156515647499643, id="alpha=60"),
    pytest.param(80.0, 3.153385251887839, id="alpha=80"),
]


@pytest.mark.parametrize(("alpha_degrees", "published"), PUBLISHED_K)
def test_ellipk_matches_published_values(alpha_degrees, published):
    # the table has 16 significant digits; the AGM converges quadratically to a few ulps
    assert ellipk(math.sin(math.radians(alpha_degrees))) == pytest.approx(published, rel=2e-15)


def test_ellipk_logarithmic_limit():
    """K(k) = ln(4/k') + O(k'^2 ln k') as k -> 1 (A&S 17.3.26)."""
    k = math.sqrt(1 - 1e-12)  # k' ~ 1e-6
    k_prime = math.sqrt((1 - k) * (1 + k))  # of the rounded k: 1 - k is exact
    # the omitted term (k'^2/4)(ln(4/k') - 1) is ~4e-12 of K ~ 15
    assert ellipk(k) == pytest.approx(math.log(4 / k_prime), rel=1e-11)


@pytest.mark.parametrize("k", [-0.1, 1.0, 1.5, math.nan])
def test_ellipk_rejects_moduli_outside_zero_one(k):
    with pytest.raises(ValueError):
        ellipk(k)


MODULI = [0.0, 0.1, 0.5, 0.9, 0.99, 0.999999]


def _arguments(k):
    """A grid over two periods in both directions, with the quarter-period multiples (where
    cn = 0) hit exactly and approached closely."""
    quarter = ellipk(k)
    grid = [quarter * i / 8 for i in range(-32, 33)]
    grid += [quarter * (1 + d) for d in (1e-12, -1e-9, 1e-6)] + [3 * quarter, -quarter]
    return grid


@pytest.mark.parametrize("k", MODULI)
def test_jacobi_identities(k):
    """sn^2 + cn^2 = 1 and dn^2 + k^2 sn^2 = 1 for every argument (A&S 16.9.1), with dn > 0."""
    for u in _arguments(k):
        sn, cn, dn = jacobi(u, k)
        assert sn * sn + cn * cn == pytest.approx(1.0, abs=1e-14), u
        assert dn * dn + k * k * sn * sn == pytest.approx(1.0, abs=1e-14), u
        assert dn > 0


@pytest.mark.parametrize("k", MODULI)
def test_jacobi_values_at_the_quarter_period(k):
    """sn(K) = 1, cn(K) = 0, dn(K) = k' = sqrt(1 - k^2) (A&S 16.5)."""
    sn, cn, dn = jacobi(ellipk(k), k)
    assert sn == pytest.approx(1.0, abs=1e-14)
    assert cn == pytest.approx(0.0, abs=1e-7)  # cn ~ k' (K - u): K is known to ~1e-16 K
    assert dn == pytest.approx(math.sqrt(1 - k * k), rel=1e-12)


@pytest.mark.parametrize("k", MODULI)
def test_jacobi_derivative(k):
    """d sn/du = cn dn (A&S 16.16.1): central difference, h = 1e-5, error ~h^2 ~ 1e-10."""
    h = 1e-5
    for u in _arguments(k)[::5]:
        slope = (jacobi(u + h, k)[0] - jacobi(u - h, k)[0]) / (2 * h)
        sn, cn, dn = jacobi(u, k)
        assert cn * dn == pytest.approx(slope, abs=1e-9), u


@pytest.mark.parametrize("k", MODULI)
def test_incomplete_integral_inverts_sn(k):
    """u = F(phi, k) means sn(u) = sin(phi), cn(u) = cos(phi) for |phi| <= pi/2, and
    F(pi/2, k) = K(k) (Carlson's algorithm against the AGM: two independent computations)."""
    for i in range(-15, 16):
        phi = 0.1 * i
        sn, cn, _dn = jacobi(ellipf(phi, k), k)
        assert sn == pytest.approx(math.sin(phi), abs=1e-13)
        assert cn == pytest.approx(math.cos(phi), abs=1e-13)
    # F needs 1 - k^2 sin^2(phi): as k -> 1 that subtraction is ill-conditioned, losing up to
    # eps / (1 - k^2) relative in the argument (K's sensitivity to it is below 1)
    conditioning = EPS / (1 - k * k)
    assert ellipf(math.pi / 2, k) == pytest.approx(ellipk(k), rel=1e-14 + 4 * conditioning)


def test_jacobi_reduces_to_trigonometry_at_k_zero():
    for u in (-2.0, 0.3, 5.0):
        assert jacobi(u, 0.0) == pytest.approx((math.sin(u), math.cos(u), 1.0), abs=1e-15)


# ---------------------------------------------------------------------------------------------
# declarations


def test_catalog_is_json_and_describes_every_system():
    data = json.loads(json.dumps(catalog()))
    assert [s["name"] for s in data["systems"]] == list(SYSTEMS)
    exact = {s["name"]: s["has_exact_solution"] for s in data["systems"]}
    assert exact == {
        "pendulum": True,
        "cradle": False,
        "spring": True,
        "constant-force": True,
        "drag": True,
        "balls": False,
    }


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_initial_state_has_one_entry_per_coordinate(name):
    system = get_system(name)
    q, v = system.initial_state()
    assert len(q) == len(v) == system.ndof >= 1
    a, power = system.forces(q, v, 0.0)
    assert len(a) == system.ndof and power >= 0.0


def test_pendulum_drawing_is_the_bob_position():
    system = get_system("pendulum", length=2.0)
    drawing = system.drawing([0.3])
    assert drawing["x"] == pytest.approx([2.0 * math.sin(0.3)], rel=1e-15)
    assert drawing["y"] == pytest.approx([-2.0 * math.cos(0.3)], rel=1e-15)
