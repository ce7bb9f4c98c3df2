"""A user's Python method may keep state in its module (the docs' exercise: the last
acceleration in a global). The runner never takes such a method's steps again, so the time
of its divergence does not depend on the sampling interval (issue 24, item 1)."""

from __future__ import annotations

import pytest

from integrator_lab.core import Runner, get_system

CACHED_VERLET = """
NAME = "cached-verlet"
ORDER = 2
_a = None  # the acceleration at the end of the last step, reused as the next one's first


def step(accel, q, v, t, dt):
    global _a
    if _a is None:
        _a = accel(q, v, t)
    half = [u + 0.5 * dt * b for u, b in zip(v, _a)]
    q_new = [x + dt * u for x, u in zip(q, half)]
    _a = accel(q_new, half, t + dt)
    return q_new, [u + 0.5 * dt * b for u, b in zip(half, _a)]
"""

COUNTER = """
NAME = "fails-at-37"
_count = 0


def step(accel, q, v, t, dt):
    global _count
    _count += 1
    if _count == 37:
        raise RuntimeError("the 37th call")
    a = accel(q, v, t)
    return [x + dt * u for x, u in zip(q, v)], [u + dt * b for u, b in zip(v, a)]
"""


@pytest.mark.parametrize("every", [1, 7, 100])
def test_cached_acceleration_verlet_diverges_when_the_builtin_does_whatever_every(every):
    # undamped spring, omega = sqrt(15) rad/s: omega dt = 2.002 is just beyond Verlet's
    # stability limit 2, so both runs grow and cross the runaway limit at the same step (the
    # cached acceleration is the one the built-in reuses: the arithmetic is the same)
    dt, duration = 0.517, 200.0
    runner = Runner(
        get_system("spring", damping=0.0),
        [{"kind": "python", "code": CACHED_VERLET}, "velocity-verlet"],
        dt,
        every=every,
    )
    runner.advance(round(duration / dt))
    own, builtin = runner.lanes
    assert builtin.diverged_at is not None and 0.0 < builtin.diverged_at < duration
    assert own.diverged_at == builtin.diverged_at, (own.reason, builtin.reason)
    assert own.reason == builtin.reason


@pytest.mark.parametrize("every", [1, 7, 100])
def test_a_failing_step_is_dated_to_its_call_whatever_every(every):
    dt = 0.01
    runner = Runner(get_system("spring"), [{"kind": "python", "code": COUNTER}], dt, every=every)
    runner.advance(200)
    lane = runner.lanes[0]
    assert lane.diverged_at == pytest.approx(37 * dt, abs=1e-12)
    assert "step 37" in lane.reason and "the 37th call" in lane.reason
