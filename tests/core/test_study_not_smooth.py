"""On the Newton's cradle the study names the real reason its errors follow no order: contacts
switch on and off, so the forces are not smooth and a method's order cannot show (issue 24,
item 4). It reports the error's trend as dt -> 0 and no order comparison; an error far above
the rounding floor is never called roundoff."""

from __future__ import annotations

import pytest

from integrator_lab.core import get_system, study
from integrator_lab.core.study import fit_power_law, roundoff_floor


@pytest.fixture(scope="module")
def cradle():
    # the audit's command: integrator-lab study cradle --duration 0.5 -i rk4 ...
    return study("cradle", ["rk4", "heun", "implicit-midpoint"], duration=0.5)


def test_the_cradle_says_it_is_not_smooth_and_compares_no_order(cradle):
    assert get_system("cradle").not_smooth and "contacts" in get_system("cradle").not_smooth
    for run in cradle.runs:
        assert run.order_matches is None, run.integrator
        assert run.note.startswith("the system is not smooth: contacts"), run.note
        assert "not a method's order" in run.note


def test_no_cradle_point_far_above_the_floor_is_called_roundoff(cradle):
    for run in cradle.runs:
        for n, error, reason in zip(run.steps, run.error, run.excluded):
            if reason is not None and reason.startswith("roundoff"):
                assert error <= 100 * roundoff_floor(n, cradle.reference["estimated_error"])


def test_the_trend_is_taken_as_dt_goes_to_zero_over_the_finer_half(cradle):
    # contacts resolved by ever more steps: the error falls far slower than RK4's dt^4
    # (the audit's envelope: about 1.2); the trend covers the finest points
    run = cradle.run("rk4")
    assert run.slope_range[0] == run.dt[-1]
    assert run.fit_points >= len(run.dt) // 2
    assert run.slope < 2.5


def test_a_synthetic_kinked_error_is_a_trend_not_a_fit():
    # an error that falls like dt^4 at coarse steps and like dt at fine ones: on a system that
    # is not smooth the slope is the fine trend (1), not the coarse power law
    dts = [0.01 / 1.6**k for k in range(10)]
    errors = [max(1e6 * dt**4, 1e-3 * dt) for dt in dts]  # crossover at dt = 1 ms
    slope, (lo, hi), reasons = fit_power_law(dts, errors, [1e-16] * 10, "contacts")
    assert hi == 9 and lo == 5 and slope == pytest.approx(1.0, abs=1e-9)
    assert all(r.startswith("pre-asymptotic") for r in reasons[:5])
