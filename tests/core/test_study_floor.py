"""The study's rounding floor follows the rounding a run accumulates, so a clean power law keeps
its slope down to its finest points (issue 24, item 3: a floor of 1e3 eps sqrt(n) was 1,000 to
2,000 times the real rounding and cut RK4's slope on the pendulum)."""

from __future__ import annotations

import math
import sys

import pytest

from integrator_lab.core import study
from integrator_lab.core.study import roundoff_floor

EPS = sys.float_info.epsilon


def test_rk4_on_the_pendulum_keeps_its_fourth_order_slope_over_three_clean_points():
    # RK4 is fourth order: halving dt divides the error by 16 while truncation dominates
    # (here 7e-10 down to 3e-12, 1,000 times what 2,000 steps of rounding leave)
    result = study("pendulum", ["rk4"], duration=2.0, steps=[500, 1000, 2000])
    run = result.run("rk4")
    assert run.excluded == [None, None, None], run.excluded
    assert run.slope == pytest.approx(4.0, abs=0.1)
    assert run.order_matches is True


def test_the_floor_lies_above_the_rounding_of_an_exactly_integrated_run():
    # velocity Verlet is exact on a constant force (a parabola): its error is rounding alone,
    # and the floor must cover it, or the study would fit a slope through noise
    run = study(
        "constant-force", ["velocity-verlet"], duration=1.0, steps=[10, 30, 100, 300, 1000]
    ).run("velocity-verlet")
    for n, error in zip(run.steps, run.error):
        assert error <= roundoff_floor(n), (n, error)
    assert run.slope is None


def test_the_floor_is_a_random_walk_of_rounding_with_a_margin_of_ten():
    assert roundoff_floor(10_000) == pytest.approx(10 * EPS * math.sqrt(10_000))
    # a numerical reference's own error raises it
    assert roundoff_floor(100, reference_error=1e-12) == pytest.approx(1e-10)
