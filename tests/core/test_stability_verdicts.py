"""The stability verdict against runs (issue 45, items 1 to 4): every built-in on every system,
at a step below its limit and one above, is called stable exactly when its run stays bounded.

The verdict is the Geometry view's and the CLI's (``stability --system S --dt DT``):
:func:`~integrator_lab.core.stability.verdict` on the system's linearised modes. The run is
the runner's, judged by its divergence rule; nothing of the verdict's computation is reused.
"""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import INTEGRATORS, get_system, simulate
from integrator_lab.core.stability import (
    axis_limit,
    linear_modes,
    method,
    mode_growth,
    mode_stable,
    verdict,
)

#: the systems, with parameters that put their modes in every part of the plane: the damped
#: spring (light, strong and over-damping: two real eigenvalues), the undamped one, drag (a pure
#: decay), the constant force (no mode at all), both cradles (swing and stiff contact), the
#: pendulum swinging a little and the default swing
CASES = [
    ("spring", {}),
    ("spring", {"damping": 0.0}),
    ("spring", {"damping": 7.0}),
    ("spring", {"damping": 10.0}),
    ("drag", {}),
    ("constant-force", {}),
    ("cradle", {}),
    ("cradle", {"contact": "linear"}),
    ("pendulum", {"theta0": 0.2}),
    ("pendulum", {}),
]
#: steps of each run (a diverging run needs far fewer), and the steps below and above a limit
STEPS = 3000
BELOW, ABOVE = 0.7, 1.4
#: the least growth per step a step above the limit is tried at (its runs show it within ~7,000
#: steps)
VISIBLE = 1.002
#: the same for a cradle, whose contact mode grows only during collisions
CONTACT_VISIBLE = 1.2


def stable_limit(m, modes, largest: float) -> float:
    """The largest dt up to which every mode is stable (0: none; inf: beyond ``largest``),
    by a geometric scan and bisection."""
    dt, previous = largest * 1e-6, 0.0
    while dt <= largest:
        if not all(mode_stable(m, mode, dt) for mode in modes):
            if previous == 0.0:
                return 0.0
            lo, hi = previous, dt
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                lo, hi = (
                    (mid, hi) if all(mode_stable(m, mode, mid) for mode in modes) else (lo, mid)
                )
            return lo
        previous, dt = dt, dt * 1.3
    return math.inf


def growth(m, modes, dt) -> float:
    return max((mode_growth(m, mode, dt) for mode in modes), default=1.0)


def steps_to_try(system, m, modes) -> list[float]:
    """A step below the method's limit (0.7 of it) and one above, the nearest of 1.4, 2, 4 or
    10 times it where the growth per step is large enough to show within a run (at least
    :data:`VISIBLE`); a step large enough for that where the method has no stable interval (or
    one that rounding alone opens: explicit midpoint's growth 1 + (h omega)^4 / 8 stays under
    1e-12 below h omega = 2e-3); twice the recommended step where it has no limit."""
    recommended = system.recommended_dt
    limit = stable_limit(m, modes, 1e4 * recommended)
    # a cradle's contact mode acts only during its collisions, a few dozen steps each
    visible = CONTACT_VISIBLE if system.name == "cradle" else VISIBLE
    if math.isinf(limit):
        return [2.0 * recommended]  # A-stable (or no mode): past the explicit methods' limits
    above = [f * limit for f in (ABOVE, 2.0, 4.0, 10.0) if growth(m, modes, f * limit) >= visible]
    if limit < 0.1 * recommended or not above:
        tried = [f * recommended for f in (10.0, 30.0, 100.0)]
        return [next((dt for dt in tried if growth(m, modes, dt) >= visible), tried[0])]
    return [BELOW * limit, above[0]]


def run_steps(m, modes, dt) -> int:
    """Steps for a run to show its growth: enough for the linear growth per step g to raise the
    energy ten-thousandfold three times over (at least :data:`STEPS`)."""
    g = growth(m, modes, dt)
    needed = 3.0 * math.log(1e4) / (2.0 * math.log(g)) if g >= VISIBLE else 0.0
    return int(max(needed, STEPS))


def grew(result) -> bool:
    """The run's mechanical energy ended more than ten times above where it started (a
    pendulum's runaway can be slow: spinning, it gains energy by the step, not by a factor)."""
    start = result.kinetic[0] + result.potential[0]
    return result.kinetic[-1] + result.potential[-1] > 10.0 * start


@pytest.mark.parametrize(("system_name", "params"), CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("name", list(INTEGRATORS))
def test_the_verdict_says_whether_a_run_stays_bounded(system_name, params, name):
    system = get_system(system_name, **params)
    modes = linear_modes(system) if system_name != "constant-force" else []
    m = method(name)
    for dt in steps_to_try(system, m, modes):
        said = verdict(m, modes, dt)
        if name == "rk45":
            assert said is None  # it subdivides dt: no fixed-step verdict
            continue
        steps = run_steps(m, modes, dt)
        result = simulate(system, name, dt=dt, duration=steps * dt, every=steps)
        where = f"{name} on {system_name} {params} at dt = {dt:.4g} s"
        if said:
            assert result.diverged_at is None, f"{where}: called stable, diverged"
        elif system_name == "pendulum":
            assert result.diverged_at is not None or grew(result), f"{where}: stayed bounded"
        else:
            assert result.diverged_at is not None, f"{where}: called unstable, stayed bounded"


def test_leapfrog_on_the_default_spring_just_past_its_damped_limit():
    """The audit's reproduction: at dt = 0.5061 s leapfrog's run diverges at 3.04 s; the first
    step's map (no carried force) called it stable."""
    system = get_system("spring")
    assert verdict(method("leapfrog"), linear_modes(system), 0.5061) is False
    assert simulate(system, "leapfrog", dt=0.5061, duration=300.0).diverged_at is not None


@pytest.mark.parametrize(
    ("name", "limit"),
    [("velocity-verlet", 1.0), ("leapfrog", None), ("yoshida4", None)],
)
def test_critical_damping_limits_are_those_of_runs(name, limit):
    """On the critically damped oscillator (the negative real axis of the plane), the map a
    run iterates carries the previous kick's force: velocity Verlet is stable up to h omega =
    1 (a first step alone: 4/3). Each limit is checked against runs just below and above it."""
    m = method(name)
    found = axis_limit(m, -1)
    if limit is not None:
        assert found == pytest.approx(limit, rel=1e-9)
    omega = math.sqrt(15.0)
    critical = 2.0 * omega  # damping b = 2 sqrt(k m), m = 1
    for factor, diverges in ((0.97, False), (1.03, True)):
        dt = factor * found / omega
        run = simulate("spring", name, dt=dt, duration=3000 * dt, damping=critical)
        assert (run.diverged_at is not None) is diverges, (factor, run.diverged_at)


@pytest.mark.parametrize(
    ("theta0", "dt", "names", "stable"),
    [
        # past pi/2 the release angle linearises to a saddle: every method was called outside
        (2.5, 0.02, ["implicit-euler", "implicit-midpoint", "rk4", "velocity-verlet"], True),
        # at pi/2 the release angle's frequency is 0: Euler and Verlet were called stable
        (math.pi / 2, 0.7, ["euler", "velocity-verlet"], False),
    ],
)
def test_the_pendulums_point_is_its_fastest_frequency(theta0, dt, names, stable):
    system = get_system("pendulum", theta0=theta0)
    modes = linear_modes(system)
    omega = math.sqrt(system.gravity / system.length)
    assert [mode.eigenvalue for mode in modes] == [pytest.approx(1j * omega)]
    for name in names:
        assert verdict(method(name), modes, dt) is stable
        run = simulate(system, name, dt=dt, duration=120.0, every=1000)
        assert (run.diverged_at is None) is stable, (name, run.diverged_at)
