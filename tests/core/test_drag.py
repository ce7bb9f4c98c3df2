"""Drag: the velocity scalings of game engines against their closed-form terminal velocities,
and true linear drag against its exact solution.

Derivation. An engine integrates ``m x'' = F`` (a = F/m constant) and then scales the
velocity by a factor r per step of length dt:

    v_{n+1} = r (v_n + a dt).

Every consistent integrator updates the velocity by exactly ``a dt`` under a constant force,
so the recurrence does not depend on the integrator. Its fixed point is

    v* = r (v* + a dt)   =>   v* = a dt r / (1 - r),

and ``v_n - v* = r^n (v_0 - v*)``: a geometric approach for 0 <= r < 1. Per model:

- unity / physx, r = max(0, 1 - k dt): v* = a dt (1 - k dt) / (k dt) = (F/(m k)) (1 - k dt),
  slower than true drag and dependent on dt; for k dt >= 1, r = 0 and v* = 0;
- box2d, r = 1 / (1 + k dt): 1 - r = k dt r, so v* = F/(m k) exactly, for every dt;
- bullet, r = (1 - k)^dt: v* = a dt (1 - k)^dt / (1 - (1 - k)^dt), which tends to
  F / (m (-ln(1 - k))) as dt -> 0.

True linear drag ``m v' = F - m k v`` has ``v = F/(m k) + (v0 - F/(m k)) exp(-k t)``.

Energy: the kinetic energy a scaling removes is booked as dissipated. With a constant force,
kinetic + potential (-F x) changes in one step by exactly ``m a (x-update error)``: zero for
methods that move x by ``v dt + a dt^2 / 2`` (every method of order >= 2), ``+m a^2 dt^2 / 2``
for explicit Euler (x += v dt) and ``-m a^2 dt^2 / 2`` for symplectic and implicit Euler
(x += (v + a dt) dt).
"""

from __future__ import annotations

import math
import sys

import pytest

from integrator_lab.core import INTEGRATORS, get_system, simulate

EPS = sys.float_info.epsilon
FORCE, MASS = 10.0, 2.0  # N, kg: a = 5 m/s^2
ACCEL = FORCE / MASS


def factor(model, k, dt):
    if model in ("unity", "physx"):
        return max(0.0, 1 - k * dt)
    if model == "box2d":
        return 1 / (1 + k * dt)
    assert model == "bullet"
    return (1 - k) ** dt


def fixed_point(r, dt):
    return ACCEL * dt * r / (1 - r)


ENGINE_CASES = [
    pytest.param("unity", 2.0, 0.01, id="unity-dt0.01"),
    pytest.param("unity", 2.0, 0.1, id="unity-dt0.1"),
    pytest.param("physx", 2.0, 0.05, id="physx-dt0.05"),
    pytest.param("box2d", 2.0, 0.01, id="box2d-dt0.01"),
    pytest.param("box2d", 2.0, 0.2, id="box2d-dt0.2"),
    pytest.param("bullet", 0.5, 0.01, id="bullet-dt0.01"),
    pytest.param("bullet", 0.5, 0.1, id="bullet-dt0.1"),
]
# integrators of every kind: the velocity recurrence must not depend on them
INTEGRATORS_TRIED = [
    "euler",
    "symplectic-euler",
    "velocity-verlet",
    "rk4",
    "implicit-euler",
    "yoshida4",
    "rk45",
]


def steps_to_converge(r):
    """Steps after which r^n < 1e-13: the transient is below rounding of v*."""
    return math.ceil(math.log(1e-13) / math.log(r)) if r > 0 else 1


@pytest.mark.parametrize("integrator", INTEGRATORS_TRIED)
@pytest.mark.parametrize(("model", "k", "dt"), ENGINE_CASES)
def test_engine_drag_follows_its_recurrence_to_the_closed_form_terminal_velocity(
    model, k, dt, integrator
):
    system = get_system("drag", model=model, drag=k, force=FORCE, mass=MASS, v0=1.0)
    r = factor(model, k, dt)
    terminal = fixed_point(r, dt)
    steps = steps_to_converge(r)
    result = simulate(system, integrator, dt=dt, duration=steps * dt)
    for n, v in enumerate(result.v):
        # each step rounds a few times on numbers of size v*: errors add up to n eps v*
        expected = terminal + r**n * (1.0 - terminal)
        assert v[0] == pytest.approx(expected, abs=4 * (n + 1) * EPS * terminal)
    assert result.v[-1][0] == pytest.approx(terminal, rel=1e-10)
    assert system.terminal_velocity(dt) == pytest.approx(terminal, rel=1e-14)
    assert system.velocity_factor(dt) == pytest.approx(r, rel=1e-15)


@pytest.mark.parametrize("model", ["unity", "physx"])
def test_unity_terminal_velocity_depends_on_the_time_step(model):
    """Same body, same drag, two time steps: (F/(m k))(1 - k dt) = 2.45 and 2.0 m/s."""
    k = 2.0
    system = get_system("drag", model=model, drag=k, force=FORCE, mass=MASS)
    ends = []
    for dt in (0.01, 0.1):
        steps = steps_to_converge(1 - k * dt)
        ends.append(simulate(system, "symplectic-euler", dt=dt, duration=steps * dt).v[-1][0])
    true_terminal = FORCE / (MASS * k)
    assert ends[0] == pytest.approx(true_terminal * (1 - k * 0.01), rel=1e-10)
    assert ends[1] == pytest.approx(true_terminal * (1 - k * 0.1), rel=1e-10)
    assert ends[0] - ends[1] == pytest.approx(true_terminal * k * 0.09, rel=1e-8)


def test_box2d_terminal_velocity_is_exact_for_every_step():
    k = 2.0
    for dt in (0.001, 0.05, 0.5):
        system = get_system("drag", model="box2d", drag=k, force=FORCE, mass=MASS)
        steps = steps_to_converge(1 / (1 + k * dt))
        end = simulate(system, "rk4", dt=dt, duration=steps * dt).v[-1][0]
        assert end == pytest.approx(FORCE / (MASS * k), rel=1e-10)


def test_bullet_terminal_velocity_tends_to_the_decay_rate_limit():
    """As dt -> 0, (1 - k)^dt = exp(dt ln(1 - k)): true drag at rate -ln(1 - k); the fixed
    point differs from the limit by a relative O(rate dt / 2)."""
    k, dt = 0.5, 1e-3
    rate = -math.log(1 - k)
    r = factor("bullet", k, dt)
    assert fixed_point(r, dt) == pytest.approx(ACCEL / rate, rel=rate * dt)
    system = get_system("drag", model="bullet", drag=k, force=FORCE, mass=MASS)
    assert system.terminal_velocity(dt) == pytest.approx(ACCEL / rate, rel=rate * dt)


def test_unity_factor_clamps_at_zero_when_k_dt_exceeds_one():
    """k dt = 2: the factor 1 - k dt would reverse the velocity; clamped, it stops the body
    after every step (v* = 0)."""
    system = get_system("drag", model="unity", drag=200.0, force=FORCE, mass=MASS, v0=3.0)
    result = simulate(system, "velocity-verlet", dt=0.01, duration=0.1)
    assert all(v[0] == 0.0 for v in result.v[1:])
    assert system.terminal_velocity(0.01) == 0.0


@pytest.mark.parametrize("integrator", list(INTEGRATORS))
@pytest.mark.parametrize("model", ["unity", "box2d", "bullet"])
def test_engine_drag_energy_balance_is_exact_per_step(model, integrator):
    """Kinetic + potential + dissipated changes by exactly s m a^2 dt^2 / 2 per step with
    s = +1 (explicit Euler), -1 (implicit Euler), 0 (velocity Verlet and the RK methods).

    Symplectic Euler and leapfrog scale the velocity right after their kick, as engines do,
    so the drift uses the damped velocity. One symplectic Euler step (v1 = v0 + a dt,
    v2 = r v1, x += v2 dt, the scaling's kinetic-energy loss counted as dissipated) changes the
    total by F dt (v0 - v2) + m a^2 dt^2 / 2; leapfrog (half drifts with v0 and v2) by half the
    first term plus the same second. Summed over n steps the first term telescopes to
    c F dt (v(0) - v(n dt)) with c = 1 (symplectic Euler) or 1/2 (leapfrog); with r = 1 both
    reduce to the undamped values -m a^2 dt^2 / 2 and 0 per step."""
    k = 0.5 if model == "bullet" else 2.0
    dt, steps = 0.01, 400
    system = get_system("drag", model=model, drag=k, force=FORCE, mass=MASS, v0=-1.0)
    result = simulate(system, integrator, dt=dt, duration=steps * dt)
    half_m_a2_dt2 = 0.5 * MASS * ACCEL**2 * dt**2
    telescoping = {"symplectic-euler": 1.0, "leapfrog": 0.5}.get(integrator)
    for n in range(1, len(result.t)):
        scale = abs(result.kinetic[n]) + abs(result.potential[n]) + abs(result.dissipated[n])
        drift = result.total[n] - result.total[0]
        if telescoping is None:
            sign = {"euler": 1, "implicit-euler": -1}.get(integrator, 0)
            expected = n * sign * half_m_a2_dt2
        else:
            expected = (
                telescoping * FORCE * dt * (result.v[0][0] - result.v[n][0]) + n * half_m_a2_dt2
            )
        # rounding: a few ulps of the largest energy term per step, accumulated
        assert drift == pytest.approx(expected, abs=8 * n * EPS * scale)


def test_true_linear_drag_terminal_velocity_and_exact_solution():
    k = 2.0
    system = get_system("drag", model="linear", drag=k, force=FORCE, mass=MASS, v0=-1.0)
    assert system.terminal_velocity() == pytest.approx(FORCE / (MASS * k), rel=1e-15)
    # the time step plays no part in true drag
    assert system.terminal_velocity(0.1) == pytest.approx(FORCE / (MASS * k), rel=1e-15)
    # rk4 at k dt = 0.02: global error ~ (k dt)^4 / 120 ~ 1e-9 relative
    result = simulate(system, "rk4", dt=0.01, duration=10.0)
    terminal = FORCE / (MASS * k)
    for t, q, v in zip(result.t, result.q, result.v):
        v_exact = terminal + (-1.0 - terminal) * math.exp(-k * t)
        x_exact = terminal * t + (-1.0 - terminal) * (1 - math.exp(-k * t)) / k
        assert v[0] == pytest.approx(v_exact, abs=1e-8 * terminal)
        assert q[0] == pytest.approx(x_exact, abs=1e-8 * terminal * max(t, 1.0))
        assert system.exact(t)[1][0] == pytest.approx(v_exact, rel=1e-13, abs=1e-14)
    assert result.v[-1][0] == pytest.approx(terminal, rel=1e-8)  # exp(-20) ~ 2e-9


def test_linear_drag_dissipated_energy_is_the_drag_work():
    """The drag dissipates m k v^2; at terminal velocity that equals the force's power F v*
    (the body no longer speeds up), so w grows by F v* per second and the total holds."""
    k = 2.0
    system = get_system("drag", model="linear", drag=k, force=FORCE, mass=MASS, v0=0.0)
    result = simulate(system, "rk4", dt=0.01, duration=20.0)
    terminal = FORCE / (MASS * k)
    rate = (result.dissipated[-1] - result.dissipated[-101]) / (result.t[-1] - result.t[-101])
    assert rate == pytest.approx(FORCE * terminal, rel=1e-8)
    assert result.total[-1] == pytest.approx(result.total[0], abs=1e-8 * result.dissipated[-1])


@pytest.mark.parametrize("model", ["unity", "physx", "box2d", "bullet"])
def test_symplectic_euler_with_engine_drag_is_the_engine_update(model):
    """Engines update v += a dt, then scale v, then move x += v dt with the scaled v: the
    trajectory equals that loop, written out here from each engine's formula."""
    k, dt = 0.5, 0.02
    formula = {
        "unity": lambda: max(0.0, 1 - k * dt),
        "physx": lambda: max(0.0, 1 - k * dt),
        "box2d": lambda: 1 / (1 + k * dt),
        "bullet": lambda: (1 - k) ** dt,
    }[model]
    system = get_system("drag", model=model, drag=k, force=FORCE, mass=MASS, v0=-1.0)
    result = simulate(system, "symplectic-euler", dt=dt, duration=50 * dt)
    x, v = 0.0, -1.0
    for n in range(1, 51):
        v = (v + ACCEL * dt) * formula()
        x += v * dt
        assert result.v[n][0] == pytest.approx(v, rel=1e-14, abs=1e-15)
        assert result.q[n][0] == pytest.approx(x, rel=1e-13, abs=1e-15)


POSITION_SPEED_OFFSET = {
    # how far past v* (in units of a dt) each method moves the body per step: the scaling
    # follows the velocity update (the last kick) of a splitting method and the whole step of
    # the others, which move as under the force alone, x += v* dt + a dt^2 / 2 when exact for a
    # constant force, x += (v* + a dt) dt for implicit Euler
    "euler": 0.0,
    "symplectic-euler": 0.0,
    "leapfrog": 0.0,
    "velocity-verlet": 0.5,
    "yoshida4": 0.5,
    "midpoint": 0.5,
    "heun": 0.5,
    "rk4": 0.5,
    "implicit-midpoint": 0.5,
    "rk45": 0.5,
    "implicit-euler": 1.0,
}


@pytest.mark.parametrize("model", ["unity", "box2d"])
@pytest.mark.parametrize("integrator", list(POSITION_SPEED_OFFSET))
def test_speed_of_the_position_at_the_terminal_velocity(model, integrator):
    """unity, k = 0.5, dt = 0.1, F/m = 10: v* = (F/mk)(1 - k dt) = 19 m/s, and symplectic
    Euler (the engines' update) moves the body at exactly that; box2d: v* = F/(mk) = 20 m/s."""
    assert set(POSITION_SPEED_OFFSET) == set(INTEGRATORS)
    k, dt = 0.5, 0.1
    system = get_system("drag", model=model, drag=k, force=10.0, mass=1.0)
    terminal = {"unity": 10.0 / k * (1 - k * dt), "box2d": 10.0 / k}[model]
    result = simulate(system, integrator, dt=dt, duration=60.0)
    assert result.v[-1][0] == pytest.approx(terminal, rel=1e-12)
    speed = (result.q[-1][0] - result.q[-2][0]) / dt
    assert speed == pytest.approx(
        terminal + POSITION_SPEED_OFFSET[integrator] * 10.0 * dt, rel=1e-11
    )
