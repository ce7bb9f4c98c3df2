"""One divergence rule for the runner and the study (issue 24, item 2): a run the runner calls
healthy is not excluded from a study as "energy ran away", and one it calls diverged is."""

from __future__ import annotations

import sys

import pytest

from integrator_lab.core import Runner, get_system, study


def test_engine_drag_study_marks_no_point():
    # the audit's command: the runner keeps both methods alive here (terminal velocity
    # F/(m k) = 1 m/s; the ledger of the engine's velocity scaling is not a state); the error
    # of the engine's terminal velocity is first order in dt (v_T (1 - k dt)-style factors)
    result = study(
        "drag",
        ["euler", "symplectic-euler"],
        duration=150.0,
        dt_max=0.05,
        dt_min=0.02,
        points=3,
        model="unity",
        drag=10.0,
    )
    for run in result.runs:
        assert run.excluded == [None, None, None], (run.integrator, run.excluded)
        assert run.slope == pytest.approx(1.0, abs=0.05)


def test_euler_on_a_constant_force_is_not_excluded_and_its_error_is_exact():
    # explicit Euler's velocity is exact on a constant force a = F/m, and its position lags by
    # a T dt / 2 exactly (x_n = a dt^2 n (n - 1) / 2)
    force, duration = 10.0, 2000.0
    result = study(
        "constant-force", ["euler"], duration=duration, dt_max=0.1, dt_min=0.05, points=3
    )
    run = result.run("euler")
    assert run.excluded == [None, None, None]
    for dt, steps, error in zip(run.dt, run.steps, run.position_error):
        # rounding: at most eps per step of the position a T^2 / 2
        rounding = steps * sys.float_info.epsilon * force * duration**2 / 2
        assert error == pytest.approx(force * duration * dt / 2, abs=rounding)


@pytest.mark.parametrize(
    ("system", "integrator", "steps", "params"),
    [
        ("spring", "euler", 20, {}),  # omega dt = 1.94 over 5 s: runs away
        ("spring", "euler", 2000, {}),  # small steps: healthy
        ("drag", "euler", 100, {"model": "unity", "drag": 10.0}),  # k dt = 0.5: healthy
        ("drag", "euler", 20, {"model": "linear", "drag": 10.0}),  # k dt = 2.5: unstable
        ("constant-force", "euler", 50, {}),
        ("pendulum", "euler", 50, {}),
    ],
)
def test_the_study_and_the_runner_agree_on_which_runs_diverged(system, integrator, steps, params):
    duration = 5.0
    runner = Runner(get_system(system, **params), [integrator], duration / steps, every=steps)
    runner.advance(steps)
    diverged = runner.lanes[0].diverged_at is not None
    run = study(system, [integrator], duration=duration, steps=[steps], **params).runs[0]
    excluded = run.excluded[0] is not None and run.excluded[0].startswith("diverged")
    assert excluded == diverged, (runner.lanes[0].reason, run.excluded)
