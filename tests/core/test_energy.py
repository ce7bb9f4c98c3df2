"""Energy behaviour of the integrators, checked against what the mathematics of each method
fixes exactly on the harmonic oscillator, and the energy balance
``kinetic + potential + dissipated = constant`` on dissipative systems.

On ``x'' = -omega^2 x`` every method here is a linear map ``y_{n+1} = M y_n`` of
``y = (x, v)``; with ``u = (omega x, v)`` the energy is ``|u|^2 / 2`` (m = 1), so:

- a Runge-Kutta method with stability function R multiplies the energy by exactly
  ``|R(i omega dt)|^2`` per step (M acts on u as multiplication by R(i omega dt));
- a symplectic map (det M = 1) keeps a quadratic form Q exactly, and the energy error is the
  bounded oscillation of E on the ellipse Q = Q(0): no drift, ever.
"""

from __future__ import annotations

import math
import sys

import pytest

from integrator_lab.core import INTEGRATORS, get_integrator, get_system, simulate
from integrator_lab.core.integrators.splitting import YOSHIDA_WEIGHTS

EPS = sys.float_info.epsilon
STIFFNESS = 15.0  # N/m, mass 1 kg: the classic test case, omega = sqrt(15) 1/s
OMEGA = math.sqrt(STIFFNESS)


def oscillator():
    return get_system("spring", mass=1.0, stiffness=STIFFNESS, damping=0.0, x0=1.0, v0=0.0)


def oscillator_energy(q, v):
    return 0.5 * (STIFFNESS * q[0] * q[0] + v[0] * v[0])


def energies_per_step(integrator_name, omega_dt, steps):
    """Energy after each of ``steps`` steps on the undamped oscillator (E[0] initial)."""
    system, integrator = oscillator(), get_integrator(integrator_name)
    dt = omega_dt / OMEGA
    q, v = system.initial_state()
    w = 0.0
    out = [oscillator_energy(q, v)]
    for n in range(steps):
        q, v, w = integrator.step(system, q, v, w, n * dt, dt)
        out.append(oscillator_energy(q, v))
    return out


# ---------------------------------------------------------------------------------------------
# exact energy factors per step


def truncated_exponential(order):
    return lambda z: sum(z**j / math.factorial(j) for j in range(order + 1))


# stability functions: explicit s-stage methods of order s <= 4 have R = the Taylor
# polynomial of exp; implicit Euler 1/(1 - z); implicit midpoint (1 + z/2)/(1 - z/2)
STABILITY = {
    "euler": truncated_exponential(1),
    "midpoint": truncated_exponential(2),
    "heun": truncated_exponential(2),
    "rk4": truncated_exponential(4),
    "implicit-euler": lambda z: 1 / (1 - z),
    "implicit-midpoint": lambda z: (1 + z / 2) / (1 - z / 2),
}
OMEGA_DT = [0.05, 0.5, 1.0, 2.5, 3.0]  # rk4's imaginary-axis stability limit is 2 sqrt(2)


@pytest.mark.parametrize("omega_dt", OMEGA_DT, ids=[f"wdt={x}" for x in OMEGA_DT])
@pytest.mark.parametrize("name", list(STABILITY))
def test_energy_factor_per_step_is_the_stability_function_on_the_imaginary_axis(name, omega_dt):
    """E_{n+1}/E_n = |R(i omega dt)|^2 exactly: euler gains (1 + (omega dt)^2), rk4 loses
    (1 - (omega dt)^6/72 + (omega dt)^8/576) below its stability limit and gains above it,
    implicit Euler damps by 1/(1 + (omega dt)^2), implicit midpoint keeps it."""
    factor = abs(STABILITY[name](1j * omega_dt)) ** 2
    energy = energies_per_step(name, omega_dt, steps=20)
    for before, after in zip(energy, energy[1:]):
        # a step is a dozen roundings of numbers of the size of the state
        assert after / before == pytest.approx(factor, rel=1e-13, abs=0)
    if factor > 1:
        assert all(b < a for a, b in zip(energy[1:], energy))
    elif factor < 1 - 1e-13:
        assert all(b > a for a, b in zip(energy[1:], energy))


def test_euler_factor_is_one_plus_k_over_m_dt_squared_for_any_mass():
    """The textbook statement, in the spring's own parameters (m = 2 kg, k = 15 N/m)."""
    mass, k, dt = 2.0, 15.0, 0.01
    system = get_system("spring", mass=mass, stiffness=k, damping=0.0)
    result = simulate(system, "euler", dt=dt, duration=1.0)
    for before, after in zip(result.total, result.total[1:]):
        assert after / before == pytest.approx(1 + k / mass * dt * dt, rel=1e-13, abs=0)


@pytest.mark.parametrize("damping", [0.5, 3.0])
def test_euler_gains_energy_on_the_damped_spring_by_an_exact_amount(damping):
    """With damping, x1 = x + v dt and v1 = v + a dt give, after the first-order terms cancel
    against the dashpot work b v^2 dt, a gain of exactly (m a^2 + k v^2) dt^2 / 2 per step in
    kinetic + potential + dissipated: the balance is violated upwards at every step."""
    mass, k, dt = 2.0, 15.0, 0.01
    system = get_system("spring", mass=mass, stiffness=k, damping=damping)
    result = simulate(system, "euler", dt=dt, duration=2.0)
    for n in range(len(result.t) - 1):
        x, v = result.q[n][0], result.v[n][0]
        a = -(k * x + damping * v) / mass
        gain = 0.5 * (mass * a * a + k * v * v) * dt * dt
        scale = result.kinetic[n] + result.potential[n] + result.dissipated[n]
        assert result.total[n + 1] - result.total[n] == pytest.approx(gain, abs=32 * EPS * scale)


@pytest.mark.parametrize("dt", [0.001, 0.005, 0.02])
def test_euler_energy_grows_at_every_step_on_the_pendulum(dt):
    """Per step, euler changes the pendulum's energy by (g/L)(g/L sin^2 th + w^2 cos th) dt^2/2
    + O(dt^3) > 0 while |theta| < pi/2; from theta0 = 0.5 rad the growth over 5 s
    (about exp((g/L) dt t)) keeps the amplitude below 0.9 rad at the largest dt."""
    result = simulate("pendulum", "euler", dt=dt, duration=5.0, theta0=0.5)
    assert all(abs(q[0]) < math.pi / 2 for q in result.q)
    assert all(b > a for a, b in zip(result.total, result.total[1:]))
    # and the growth is the predicted size: at least half of exp((g/L) dt T) - 1 for the
    # small-angle factor 1 + (g/L) dt^2 per step (cos theta >= 0.6 reduces it by at most 40%)
    g_over_l = 9.81
    assert result.total[-1] / result.total[0] - 1 >= 0.5 * (math.exp(g_over_l * dt * 5.0) - 1)


# ---------------------------------------------------------------------------------------------
# symplectic methods: bounded energy error from the exactly conserved quadratic form


def _mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(2)) for j in range(2)] for i in range(2)]


def _compose(*maps):
    """Matrix of applying ``maps`` left to right to (x, v)."""
    m = [[1.0, 0.0], [0.0, 1.0]]
    for step in maps:
        m = _mul(step, m)
    return m


def _kick(h):
    return [[1.0, 0.0], [-(OMEGA**2) * h, 1.0]]


def _drift(h):
    return [[1.0, h], [0.0, 1.0]]


def _verlet(h):
    return _compose(_kick(h / 2), _drift(h), _kick(h / 2))


_CBRT2 = 2.0 ** (1.0 / 3.0)
# Yoshida, Phys. Lett. A 150 (1990) 262, eq. (5.19): w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3) w1
_YOSHIDA = (1 / (2 - _CBRT2), -_CBRT2 / (2 - _CBRT2), 1 / (2 - _CBRT2))

# each method's one-step matrix on x'' = -omega^2 x, written from its textbook definition
STEP_MATRIX = {
    "symplectic-euler": lambda h: _compose(_kick(h), _drift(h)),
    "velocity-verlet": _verlet,
    "leapfrog": lambda h: _compose(_drift(h / 2), _kick(h), _drift(h / 2)),
    "yoshida4": lambda h: _compose(*(_verlet(w * h) for w in _YOSHIDA)),
    "implicit-midpoint": lambda h: (
        lambda z: [[(1 - z) / (1 + z), h / (1 + z)], [-(OMEGA**2) * h / (1 + z), (1 - z) / (1 + z)]]
    )((OMEGA * h) ** 2 / 4),
}


def predicted_energy_error(omega_dt, method) -> float:
    """Largest |E/E0 - 1| on the orbit from (x, v) = (1, 0), from the invariant of the map.

    For M = [[a, b], [c, d]] with det M = 1 the form Q = c x^2 + (d - a) x v - b v^2 satisfies
    Q(M y) = Q(y). In u = (omega x, v), Q has the symmetric matrix S below; on Q = Q0 the energy
    |u|^2/2 ranges over Q0 / (2 mu) for the eigenvalues mu of S, and E0 = Q0 / (2 S_11).
    """
    (a, b), (c, d) = STEP_MATRIX[method](omega_dt / OMEGA)
    assert a * d - b * c == pytest.approx(1.0, abs=1e-14)  # symplectic: area preserving
    s11, s12, s22 = c / OMEGA**2, (d - a) / (2 * OMEGA), -b
    if s11 < 0:  # Q is defined up to sign: make it positive definite
        s11, s12, s22 = -s11, -s12, -s22
    mean, radius = (s11 + s22) / 2, math.hypot((s11 - s22) / 2, s12)
    mu_min, mu_max = mean - radius, mean + radius
    assert mu_min > 0, "stable symplectic maps have a definite invariant"
    return max(s11 / mu_min - 1, 1 - s11 / mu_max)


# method, omega dt, steps, C of the bound C (omega dt)^order from the leading term of the
# prediction (symplectic Euler: omega dt / 2; Verlet: (omega dt)^2 / 4, leapfrog the same to
# leading order; Yoshida: 0.077 (omega dt)^4, from the composition's matrix), rounded up by 20%
SYMPLECTIC = [
    pytest.param("symplectic-euler", 0.1, 100_000, 0.6, id="symplectic-euler"),
    pytest.param("velocity-verlet", 0.1, 100_000, 0.3, id="velocity-verlet"),
    pytest.param("leapfrog", 0.1, 100_000, 0.3, id="leapfrog"),
    # a larger step, so that the 1e-4 energy error stands far above rounding
    pytest.param("yoshida4", 0.2, 100_000, 0.1, id="yoshida4"),
    # the energy is an exact invariant: 20 000 steps show rounding as well as 100 000 would,
    # at a fifth of the cost of a Newton solve per step
    pytest.param("implicit-midpoint", 0.2, 20_000, 0.0, id="implicit-midpoint"),
]


@pytest.mark.parametrize(("name", "omega_dt", "steps", "constant"), SYMPLECTIC)
def test_symplectic_energy_error_is_bounded_and_does_not_drift(name, omega_dt, steps, constant):
    assert INTEGRATORS[name].symplectic
    energy = energies_per_step(name, omega_dt, steps)
    e0 = energy[0]
    errors = [abs(e / e0 - 1) for e in energy]
    predicted = predicted_energy_error(omega_dt, name)
    order = INTEGRATORS[name].order
    # rounding: a few ulps per step, accumulated at worst linearly over the run
    rounding = 8 * EPS * steps
    assert predicted <= constant * omega_dt**order + 1e-15
    assert max(errors) <= predicted * (1 + 1e-9) + rounding
    # the orbit fills the invariant ellipse, so the bound is reached (within the step's angle)
    assert max(errors) >= predicted * (1 - omega_dt**2)
    # no drift: both halves sample the same ellipse
    half = len(errors) // 2
    assert max(errors[half:]) <= max(errors[:half]) * (1 + omega_dt**2) + rounding


def test_yoshida_weights_are_the_published_ones():
    assert YOSHIDA_WEIGHTS == pytest.approx(_YOSHIDA, rel=1e-15)
    assert sum(YOSHIDA_WEIGHTS) == pytest.approx(1.0, abs=1e-15)
    # fourth order: the cubes cancel
    assert sum(w**3 for w in YOSHIDA_WEIGHTS) == pytest.approx(0.0, abs=1e-14)


@pytest.mark.parametrize("damping", [0.0, 0.1, 2.0])
def test_implicit_midpoint_keeps_the_energy_balance_to_rounding(damping):
    """For a quadratic energy the midpoint rule changes E by exactly dt times the power at
    the midpoint, -b u^2, which is what it adds to the dissipated work: the balance is exact."""
    result = simulate("spring", "implicit-midpoint", dt=0.01, duration=10.0, damping=damping)
    e0 = result.total[0]
    rounding = 8 * EPS * len(result.t)
    assert max(abs(e - e0) for e in result.total) <= rounding * e0


# ---------------------------------------------------------------------------------------------
# energy balance on dissipative systems: zero for the exact flow, O(dt^p) for the methods


def balance_residual(system, integrator, dt, duration):
    """max |total - total(0)| over the run, relative to the largest energy term involved."""
    result = simulate(system, integrator, dt=dt, duration=duration)
    assert result.diverged_at is None
    scale = max(
        max(map(abs, result.kinetic)),
        max(map(abs, result.potential)),
        max(map(abs, result.dissipated)),
    )
    e0 = result.total[0]
    return max(abs(e - e0) for e in result.total) / scale


BALANCE_CASES = {
    # a strongly damped spring: the dashpot removes all the energy within 10 s
    "damped-spring": (lambda: get_system("spring", damping=2.0), 10.0, 0.01),
    # true linear drag from v0 = -3 m/s against a 10 N push: heavy dissipation
    "linear-drag": (lambda: get_system("drag", v0=-3.0), 10.0, 0.01),
}
# splitting methods are second order at most once forces depend on velocity
BALANCE_ORDER = {
    "rk4": 4,
    "heun": 2,
    "midpoint": 2,
    "velocity-verlet": 2,
    "leapfrog": 2,
    "yoshida4": 2,
    "symplectic-euler": 1,
    "implicit-euler": 1,
}


@pytest.mark.parametrize("integrator", list(BALANCE_ORDER))
@pytest.mark.parametrize("case", list(BALANCE_CASES))
def test_energy_balance_residual_converges_at_the_integrators_order(case, integrator):
    """The residual of kinetic + potential + dissipated vanishes for the exact dynamics, so it
    must shrink like dt^p: halving dt divides it by at least 2^(p - 0.25). A dissipated power
    booked wrongly (wrong velocity, wrong factor) would leave a residual that does not vanish."""
    make, duration, dt = BALANCE_CASES[case]
    system = make()
    coarse = balance_residual(system, integrator, dt, duration)
    fine = balance_residual(system, integrator, dt / 2, duration)
    assert math.log2(coarse / fine) >= BALANCE_ORDER[integrator] - 0.25


def test_energy_balance_of_the_default_spring_at_the_recommended_step():
    """Local errors per step on the oscillator, in units of the state, are
    (omega dt)^5/120 for rk4 (first omitted Taylor term of exp) and (omega dt)^3/6 for
    velocity Verlet (its x-update misses the z^3/6 of sin z); over omega T / (omega dt) steps
    the energy balance can drift by at most twice the accumulated state error."""
    system = get_system("spring")  # m = 1, k = 15, b = 0.1: loses 63% of its energy in 10 s
    dt, duration = system.recommended_dt, 10.0
    z, phase = OMEGA * dt, OMEGA * duration
    assert balance_residual(system, "rk4", dt, duration) <= 2 * z**4 * phase / 120
    assert balance_residual(system, "velocity-verlet", dt, duration) <= 2 * z**2 * phase / 6


CRADLES = {"hertz-e0.95": {}, "hertz-e1": {"restitution": 1.0}}


@pytest.mark.parametrize("integrator", ["rk4", "velocity-verlet"])
@pytest.mark.parametrize("params", list(CRADLES.values()), ids=list(CRADLES))
def test_cradle_energy_balance_converges_through_collisions(params, integrator):
    """One second of the default cradle: the first collision chain and the swing back.
    A Hertz force k d^1.5 has an unbounded second derivative at first touch, which limits any
    method to about second order per contact event: the residual must fall by 2^1.75 at least
    when dt halves, and at the recommended dt stay below 2% of the energy (a contact energy or
    dashpot work left out of the balance would show up as tens of percent: the contact spring
    holds nearly all the kinetic energy at peak overlap, the dashpots dissipate ~30%)."""
    system = get_system("cradle", **params)
    dt = system.recommended_dt
    coarse = balance_residual(system, integrator, dt, 1.0)
    fine = balance_residual(system, integrator, dt / 2, 1.0)
    assert coarse <= 0.02
    assert math.log2(coarse / fine) >= 1.75
