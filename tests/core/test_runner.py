"""The lockstep runner: shared clock, sampling, divergence, bounded memory, the fixed-timestep
accumulator and the batch format handed to views."""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import Runner, get_integrator, get_system, simulate
from integrator_lab.core.runner import RUNAWAY_FACTOR

LANES = ["euler", "symplectic-euler", "velocity-verlet", "rk4"]


def test_lanes_advance_in_lockstep():
    runner = Runner(get_system("spring"), LANES, dt=0.01)
    for steps in (1, 7, 30, 62):
        runner.advance(steps)
        assert runner.time == pytest.approx(0.01 * runner.step_count, rel=1e-15)
        times = [lane.history[-1][0] for lane in runner.lanes]
        assert times == [runner.time] * len(LANES)
    histories = [[s[0] for s in lane.history] for lane in runner.lanes]
    assert all(h == histories[0] for h in histories)
    assert runner.step_count == 100


@pytest.mark.parametrize("every", [1, 3, 10])
def test_sampling_every_n_steps(every):
    """First sample at t = 0 (the initial state), then every N steps, whatever the chunks."""
    system = get_system("spring")
    dt = 0.01
    runner = Runner(system, ["rk4"], dt=dt, every=every)
    for chunk in (1, 2, 5, 11, 4, 7):  # 30 steps in chunks that straddle sample points
        runner.advance(chunk)
    times = [s[0] for s in runner.lanes[0].history]
    assert len(times) == 30 // every + 1
    for i, t in enumerate(times):
        assert t == pytest.approx(i * every * dt, rel=1e-14, abs=0)
    first = runner.lanes[0].history[0]
    q0, v0 = system.initial_state()
    assert first[1:3] == (q0[0], v0[0])


def test_simulate_samples_every_n_and_reaches_the_duration():
    result = simulate("pendulum", "velocity-verlet", dt=0.02, duration=2.0, every=5)
    assert result.t[0] == 0.0
    assert len(result.t) == 21
    assert result.t[-1] == pytest.approx(2.0, rel=1e-14)
    assert all(b - a == pytest.approx(0.1, rel=1e-12) for a, b in zip(result.t, result.t[1:]))


def stiff_cradle():
    """Linear contacts at 1e7 N/m: contact time pi sqrt(m_eff/k) = 0.2 ms, so at dt = 1 ms
    omega dt ~ 14, far outside every explicit method's stability region."""
    return get_system("cradle", stiffness=1e7, contact="linear")


def test_divergence_is_flagged_per_lane_and_the_others_go_on():
    runner = Runner(stiff_cradle(), ["euler", "symplectic-euler", "rk45"], dt=1e-3)
    runner.advance(500)  # the first impact comes at a quarter swing, ~0.28 s
    euler, symplectic, reference = runner.lanes
    for lane in (euler, symplectic):
        assert lane.diverged_at is not None and 0.2 < lane.diverged_at < 0.5
        assert lane.reason
        frozen = (list(lane.q), list(lane.v), len(lane.history))
        # samples stop at the divergence and contain nothing but finite numbers
        assert lane.history[-1][0] <= lane.diverged_at
        assert all(math.isfinite(x) for sample in lane.history for x in sample)
        runner.advance(100)
        assert (list(lane.q), list(lane.v), len(lane.history)) == frozen
    # the adaptive reference resolves the contacts and keeps going
    assert reference.diverged_at is None
    assert reference.history[-1][0] == pytest.approx(runner.time, rel=1e-15)
    assert all(math.isfinite(x) for sample in reference.history for x in sample)
    # its energy stays within the physics: never above the initial total
    e0 = reference.history[0][-1]
    assert all(sample[-1] <= e0 * (1 + 1e-6) for sample in reference.history)
    batch = runner.take_batch()
    assert set(batch["diverged"]) == {"euler", "symplectic-euler"}
    assert batch["diverged"]["euler"]["at"] == euler.diverged_at
    assert batch["diverged"]["euler"]["reason"] == euler.reason


def test_divergence_of_an_oscillator_beyond_the_stability_limit():
    """rk4 is stable on the imaginary axis up to |omega dt| = 2 sqrt(2); at omega dt = 3 its
    energy grows by |R(3i)|^2 ~ 1.7 per step and must be flagged, with a finite last sample."""
    system = get_system("spring", damping=0.0)
    runner = Runner(system, ["rk4", "implicit-midpoint"], dt=3.0 / math.sqrt(15.0))
    runner.advance(200)
    rk4, midpoint = runner.lanes
    assert rk4.diverged_at is not None
    assert all(math.isfinite(x) for sample in rk4.history for x in sample)
    assert midpoint.diverged_at is None


def euler_runaway_step(omega_dt):
    """Explicit Euler on an undamped harmonic oscillator multiplies the energy by exactly
    1 + (omega dt)^2 per step (it scales (x, v/omega) by sqrt(1 + (omega dt)^2)), so K + P
    first exceeds E0 by RUNAWAY_FACTOR E0 at step ceil(ln(1 + factor) / ln(1 + (omega dt)^2))
    (not an integer here, so rounding cannot move the step)."""
    steps = math.log1p(RUNAWAY_FACTOR) / math.log1p(omega_dt * omega_dt)
    assert 0.01 < steps % 1 < 0.99
    return math.ceil(steps)


@pytest.mark.parametrize("every", [1, 7, 2000])
def test_divergence_time_is_the_step_where_it_happens_whatever_the_sampling(every):
    """The undamped spring (k = 15, m = 1, energy scale E0) under explicit Euler at dt = 0.05:
    the step where the energy gain passes the limit is fixed by the growth factor, 126 steps,
    and the reported time is that step's, not the next sample's (every = 2000 reported 100 s)."""
    dt = 0.05
    n = euler_runaway_step(math.sqrt(15.0) * dt)
    expected = Runner(get_system("spring", damping=0.0), ["euler"], dt=dt)
    expected.advance(300)
    runner = Runner(get_system("spring", damping=0.0), ["euler", "rk4"], dt=dt, every=every)
    for chunk in (1, 2, 50, 13, 1000, 4000):  # blocks straddling samples and the divergence
        runner.advance(chunk)
    euler, rk4 = runner.lanes
    assert euler.diverged_at == expected.lanes[0].diverged_at == n * dt
    assert euler.reason == "energy ran away"
    # the last state kept is the one before the runaway step, and it is within the limit
    kinetic, potential = runner.system.energy(euler.q, euler.v)
    assert kinetic + potential - 7.5 <= RUNAWAY_FACTOR * 7.5
    assert rk4.diverged_at is None


def first_runaway_step(system, integrator, dt, steps):
    """The first step whose state has K + P above E0 + RUNAWAY_FACTOR x the energy scale (the
    pendulum's kinetic bound is 0), stepping one step at a time: an independent reading of the
    rule, or None."""
    q, v = system.initial_state()
    kinetic, potential = system.energy(q, v)
    energy0, limit = kinetic + potential, RUNAWAY_FACTOR * system.energy_scale()
    method, w = get_integrator(integrator), 0.0
    for n in range(1, steps + 1):
        q, v, w = method.step(system, q, v, w, (n - 1) * dt, dt)
        kinetic, potential = system.energy(q, v)
        if kinetic + potential - energy0 > limit:
            return n
    return None


@pytest.mark.parametrize("every", [1, 50, 375, 10_000])
def test_an_excursion_between_two_samples_is_a_divergence(every):
    """Leapfrog on the pendulum (theta0 = 1.5, dt = 0.8: omega dt = 2.5, beyond its limit of
    2) passes the runaway limit and comes back under it within a few steps, again and again:
    sampled every 50 steps it was called diverged at 59.2 s, every 375 steps never (while the
    bob spun to 3027 rad with 84 times its initial energy). Every state is judged, so the time
    is the first step over the limit, whatever the sampling."""
    system = get_system("pendulum", theta0=1.5)
    dt, duration = 0.8, 300.0
    n = first_runaway_step(system, "leapfrog", dt, round(duration / dt))
    assert n is not None and n * dt < 10.0
    result = simulate(system, "leapfrog", dt=dt, duration=duration, every=every)
    assert result.diverged_at == n * dt
    assert result.reason == "energy ran away"
    # nothing after the divergence is sampled, and the last sample is a sound state
    assert result.t[-1] < n * dt
    assert result.kinetic[-1] + result.potential[-1] - result.total[0] <= (
        RUNAWAY_FACTOR * system.energy_scale()
    )


def test_a_users_python_method_is_judged_at_every_step_too():
    """The same excursion under the same leapfrog written as a user's Python step."""
    code = (
        "def step(accel, q, v, t, dt):\n"
        "    q = [x + 0.5 * dt * u for x, u in zip(q, v)]\n"
        "    v = [u + dt * a for u, a in zip(v, accel(q, v, t + 0.5 * dt))]\n"
        "    return [x + 0.5 * dt * u for x, u in zip(q, v)], v\n"
    )
    system = get_system("pendulum", theta0=1.5)
    n = first_runaway_step(system, "leapfrog", 0.8, 375)
    method = {"name": "my-leapfrog", "kind": "python", "code": code}
    result = simulate(system, method, dt=0.8, duration=300.0, every=375)
    assert result.diverged_at == n * 0.8


@pytest.mark.parametrize("every", [3, 1000])
def test_the_last_state_of_a_run_is_kept(every):
    """A run of 100 steps sampled every 3 (or 1000) steps still ends with its last state: the
    spring's exact solution at t = 1 s, within RK4's error."""
    system = get_system("spring")
    result = simulate(system, "rk4", dt=0.01, duration=1.0, every=every)
    assert result.t[-1] == pytest.approx(1.0, abs=1e-12)
    exact_q, _exact_v = system.exact(1.0)
    assert result.q[-1][0] == pytest.approx(exact_q[0], abs=1e-7)


def test_euler_on_the_linear_pendulum_diverges_where_its_energy_growth_says():
    """The small-angle pendulum is a harmonic oscillator (omega^2 = g/L): Euler multiplies its
    energy by 1 + (omega dt)^2 per step, from E0 = m g L theta0^2 / 2, and the limit is 100 m g L
    (its energy scale): the step where E0 ((1 + (omega dt)^2)^n - 1) first exceeds it."""
    system = get_system("pendulum", model="linear", theta0=1.0)
    runner = Runner(system, ["euler", "symplectic-euler"], every=500)
    runner.advance(5000)
    x = system.w2 * runner.dt**2
    steps = math.log1p(RUNAWAY_FACTOR * 2.0 / 1.0**2) / math.log1p(x)
    assert 0.01 < steps % 1 < 0.99
    assert runner.lanes[0].diverged_at == math.ceil(steps) * runner.dt
    assert runner.lanes[1].diverged_at is None


def test_euler_diverges_on_the_default_cradle_and_stable_methods_do_not():
    """Each impact of the default (Hertz) cradle kicks Euler's energy up; symplectic, rk4 and
    implicit Euler keep it bounded (or lose it) over the same 5 s."""
    runner = Runner(
        get_system("cradle"), ["euler", "symplectic-euler", "rk4", "implicit-euler"], every=100
    )
    runner.advance(5000)
    diverged = {lane.name: lane.diverged_at for lane in runner.lanes}
    assert diverged["euler"] is not None and 0.3 < diverged["euler"] < 5.0
    assert [diverged[n] for n in ("symplectic-euler", "rk4", "implicit-euler")] == [None] * 3


@pytest.mark.parametrize("every", [1, 3, 1000])
@pytest.mark.parametrize("system", ["spring", "pendulum"])
def test_non_finite_state_is_dated_to_its_step(every, system):
    """At dt = 1e160 s the first Euler step's velocity is ~1e161 and its kinetic energy
    overflows: the state is no longer finite at t = dt, whatever the sampling interval (the
    state was judged only at the next sample, a NaN by then)."""
    runner = Runner(get_system(system), ["euler"], dt=1e160, every=every)
    runner.advance(2000)
    lane = runner.lanes[0]
    assert (lane.diverged_at, lane.reason) == (1e160, "state is no longer finite")
    assert lane.q == [get_system(system).initial_state()[0][0]]  # the last finite state


@pytest.mark.parametrize("model", ["unity", "physx", "box2d", "bullet"])
@pytest.mark.parametrize("integrator", ["euler", "symplectic-euler", "velocity-verlet", "rk4"])
def test_engine_drag_at_its_terminal_velocity_is_not_diverged(model, integrator):
    """Engine drag holds the velocity at its fixed point v* = a dt r / (1 - r) (r the factor
    per step): a stable motion. Its energy ledger picks up m a^2 dt^2 / 2 of bookkeeping error
    per step, which flagged euler and symplectic-euler as diverged at ~100 s (F = 10 N, m = 1,
    k = 10 /s, dt = 0.01 s); divergence must not be judged on the ledger."""
    drag = 0.9 if model == "bullet" else 10.0
    system = get_system("drag", model=model, drag=drag)
    runner = Runner(system, [integrator], dt=0.01, every=100)
    runner.advance(15_000)  # 150 s
    lane = runner.lanes[0]
    assert lane.diverged_at is None, lane.reason
    assert lane.v[0] == pytest.approx(system.terminal_velocity(0.01), rel=1e-9)


def test_constant_force_under_euler_is_not_diverged():
    """Euler lags the exact position by a t dt / 2, so its K + P exceeds E0 by m a^2 t dt / 2,
    growing without bound but ever smaller next to the kinetic energy m a^2 t^2 / 2: the motion
    converges, and was flagged as diverged at 1100 s with dt = 0.1 s."""
    runner = Runner(get_system("constant-force"), ["euler", "symplectic-euler"], dt=0.1, every=1000)
    runner.advance(50_000)  # 5000 s
    for lane in runner.lanes:
        assert lane.diverged_at is None, lane.reason
        assert lane.v[0] == pytest.approx(10.0 * 5000.0, rel=1e-12)
        assert lane.q[0] == pytest.approx(5.0 * 5000.0**2, rel=2 * 0.1 / 5000.0)


def test_unstable_linear_drag_is_diverged_and_stable_is_not():
    """True linear drag under explicit Euler: v - v_t is multiplied by 1 - k dt per step, so it
    is stable for k dt < 2 and grows geometrically beyond. From rest at k = 300 /s, dt = 0.01 s
    (factor -2), |v - v_t| = v_t 2^n: K exceeds 100 times its bound m v_t^2 / 2 at 2^n > 11."""
    stable = Runner(get_system("drag", drag=150.0), ["euler"], dt=0.01)
    stable.advance(10_000)
    assert stable.lanes[0].diverged_at is None
    unstable = Runner(get_system("drag", drag=300.0), ["euler"], dt=0.01, every=1000)
    unstable.advance(10_000)
    assert unstable.lanes[0].diverged_at is not None
    assert 3 * 0.01 <= unstable.lanes[0].diverged_at <= 5 * 0.01


def test_memory_is_bounded_by_the_capacity():
    capacity = 50
    runner = Runner(get_system("spring"), ["euler", "rk4"], dt=0.01, capacity=capacity)
    taken = 0
    for _ in range(20):
        runner.advance(100)
        batch = runner.take_batch()
        for flat in batch["lanes"].values():
            assert len(flat) % batch["stride"] == 0
            assert len(flat) // batch["stride"] <= capacity
        taken += len(batch["lanes"]["rk4"]) // batch["stride"]
    for lane in runner.lanes:
        assert len(lane.history) == capacity
        assert lane.history[-1][0] == pytest.approx(runner.time, rel=1e-14)
        assert len(lane.pending) == 0
    # 2001 samples were taken (t = 0 and 2000 steps); every batch of 100 (101 the first time)
    # kept only the newest `capacity`
    assert taken == 20 * capacity


def test_take_batch_layout_matches_the_history():
    system = get_system("cradle", balls=3)
    runner = Runner(system, ["velocity-verlet", "rk4"], every=4)
    runner.advance(40)
    columns = runner.columns()
    assert columns == [
        "t",
        "q0",
        "q1",
        "q2",
        "v0",
        "v1",
        "v2",
        "kinetic",
        "potential",
        "dissipated",
        "total",
    ]
    assert runner.stride == len(columns)
    batch = runner.take_batch()
    assert batch["columns"] == columns and batch["stride"] == len(columns)
    assert batch["time"] == runner.time
    for lane in runner.lanes:
        flat = batch["lanes"][lane.name]
        assert len(flat) == runner.stride * 11  # t = 0 and 10 samples
        rows = [tuple(flat[i : i + runner.stride]) for i in range(0, len(flat), runner.stride)]
        assert rows == [tuple(s) for s in lane.history]
        for row in rows:
            n = system.ndof
            q, v = list(row[1 : 1 + n]), list(row[1 + n : 1 + 2 * n])
            kinetic, potential, dissipated, total = row[-4:]
            assert (kinetic, potential) == pytest.approx(system.energy(q, v), rel=1e-15)
            assert total == pytest.approx(kinetic + potential + dissipated, rel=1e-15)
    # a second call hands out only what is new
    assert all(len(flat) == 0 for flat in runner.take_batch()["lanes"].values())
    runner.advance(4)
    assert all(len(flat) == runner.stride for flat in runner.take_batch()["lanes"].values())


def test_tick_covers_wall_time_at_the_given_speed():
    dt = 0.01
    runner = Runner(get_system("pendulum"), ["rk4"], dt=dt)
    assert runner.tick(0.1) == 10
    assert runner.time == pytest.approx(0.1, rel=1e-12)
    # fractions of a step carry over: 0.015 + 0.015 s is three steps, not two
    taken = runner.tick(0.015) + runner.tick(0.015)
    assert taken == 3
    # at double speed the clock runs twice as fast; over many uneven frames the simulated time
    # tracks wall time x speed to within one step
    wall = 0.0
    for i in range(200):
        frame = 1 / 60 + 0.004 * ((i * 7) % 5 - 2)  # jittery frames around 60 Hz
        wall += frame
        runner.tick(frame, speed=2.0)
    assert runner.time - 0.13 == pytest.approx(2.0 * wall, abs=dt)


def test_tick_caps_the_steps_and_drops_the_backlog():
    """A long stall (a background tab) must not make the runner catch up later: the excess
    beyond max_steps is dropped and the clock simply slowed down."""
    dt = 0.01
    runner = Runner(get_system("pendulum"), ["rk4"], dt=dt)
    assert runner.tick(100.0, max_steps=50) == 50
    assert runner.time == pytest.approx(0.5, rel=1e-12)
    assert runner.tick(0.0) == 0  # nothing owed
    assert runner.tick(0.05, max_steps=50) == 5


@pytest.mark.parametrize("wall", [-1.0, math.nan, math.inf])
def test_tick_ignores_nonsense_wall_times(wall):
    runner = Runner(get_system("pendulum"), ["rk4"], dt=0.01)
    assert runner.tick(wall) == 0
    assert runner.time == 0.0
    assert runner.tick(0.02) == 2


def test_default_time_step_is_the_systems_recommendation():
    for name, expected in (("pendulum", 0.02), ("spring", 0.01), ("cradle", 1e-3)):
        system = get_system(name)
        assert system.recommended_dt == expected
        assert Runner(system, ["euler"]).dt == expected
