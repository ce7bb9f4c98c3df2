"""Convergence studies: fitted slopes against the methods' known orders, the exclusion of
unstable and roundoff-limited points, exact landing on T, counted cost, slicing, bad input.

Kept fast (this file also runs inside Pyodide): two-second spring runs, dt from 0.5 s (beyond
explicit Euler's stability, omega dt = 1.9) down to 1 ms, twelve points per integrator.
"""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import Study, get_system, study
from integrator_lab.core.study import (
    EPS,
    ROUNDOFF_FACTOR,
    SLOPE_BAND,
    UNSTABLE_ERROR,
    fit_power_law,
    plan_steps,
)

SPAN = {"duration": 2.0, "dt_max": 0.5, "dt_min": 1e-3, "points": 12}
#: the orders of accuracy of the methods (issue 16), not the core's declarations
ORDERS = {
    "euler": 1,
    "symplectic-euler": 1,
    "velocity-verlet": 2,
    "leapfrog": 2,
    "midpoint": 2,
    "heun": 2,
    "rk4": 4,
    "implicit-euler": 1,
    "implicit-midpoint": 2,
    "yoshida4": 4,
}
SLOPE_TOLERANCE = 0.15  # a method of another order is off by at least 1


@pytest.fixture(scope="module")
def undamped():
    return study("spring", list(ORDERS), damping=0.0, **SPAN)


@pytest.fixture(scope="module")
def damped():
    return study("spring", ["yoshida4", "velocity-verlet"], **SPAN)


@pytest.mark.parametrize("integrator", list(ORDERS))
def test_fitted_slopes_on_the_undamped_spring_are_the_orders(undamped, integrator):
    run = undamped.run(integrator)
    assert run.slope == pytest.approx(ORDERS[integrator], abs=SLOPE_TOLERANCE)
    assert run.order_matches is True and run.note is None
    # the fit spans a real range: at least a factor 10 in dt
    lo, hi = run.slope_range
    assert hi / lo >= 10


def test_the_reference_is_stated(undamped):
    assert undamped.reference == {"method": "exact"}
    assert undamped.to_dict()["reference"] == {"method": "exact"}


def test_yoshida_drops_to_second_order_with_damping_and_the_study_says_so(damped):
    # its cancellations assume forces of the positions alone: the study compares its slope
    # with the order that holds under damping, and says why it is not 4
    yoshida = damped.run("yoshida4")
    assert yoshida.slope == pytest.approx(2.0, abs=SLOPE_TOLERANCE)
    assert yoshida.order == 2 and yoshida.order_matches is True
    assert "4 without" in yoshida.order_note
    # velocity Verlet keeps its second order under the same damping: nothing to flag
    verlet = damped.run("velocity-verlet")
    assert verlet.slope == pytest.approx(2.0, abs=SLOPE_TOLERANCE)
    assert verlet.order_matches is True and verlet.note is None


def test_unstable_points_are_excluded_from_the_fit_and_marked(undamped):
    run = undamped.run("euler")
    # explicit Euler multiplies the oscillator's amplitude by sqrt(1 + (omega dt)^2) per step:
    # at dt = 0.5 s (omega dt = 1.94) four steps make it 20 times larger
    assert run.dt[0] == 0.5
    assert run.excluded[0] is not None and run.excluded[0].split(":")[0] in ("unstable", "diverged")
    lo, hi = run.slope_range
    for dt, error, reason in zip(run.dt, run.error, run.excluded):
        if not error < UNSTABLE_ERROR:
            assert reason is not None and reason.split(":")[0] in ("unstable", "diverged")
            assert dt > hi  # outside the fitted range
        if lo <= dt <= hi:
            assert reason is None
    # the JSON form carries no infinities: a diverged point's errors are null
    data = undamped.to_dict()["runs"][0]
    assert data["integrator"] == "euler"
    assert all(e is None or math.isfinite(e) for e in data["error"])


def test_roundoff_limited_points_are_excluded_and_the_slope_holds():
    # RK4's error at T = 2 s is ~1e-11 at dt = 1 ms; at 0.1 ms it would be ~1e-15, far
    # below what 20,000 steps of rounding leave
    result = study("spring", ["rk4"], damping=0.0, duration=2.0, dt_max=0.1, dt_min=1e-4, points=10)
    run = result.run("rk4")
    assert run.slope == pytest.approx(4.0, abs=SLOPE_TOLERANCE)
    assert run.excluded[-1] is not None and run.excluded[-1].startswith("roundoff")
    assert run.slope_range[0] > run.dt[-1]
    floor = ROUNDOFF_FACTOR * EPS * math.sqrt(run.steps[-1])
    assert run.error[-1] < 10 * floor


def test_a_system_integrated_exactly_has_no_slope_and_says_why():
    # under a constant force the trajectory is a parabola: second-order methods are exact
    run = study(
        "constant-force", ["velocity-verlet"], duration=1.0, dt_max=0.1, dt_min=0.01, points=4
    ).run("velocity-verlet")
    assert run.slope is None and run.order_matches is None
    assert all(r.startswith("roundoff") for r in run.excluded)
    assert "roundoff" in run.note


def test_every_run_ends_exactly_at_the_duration():
    steps = plan_steps(2.0, 0.5, 1e-3, 12)
    assert steps[0] == 4 and steps[-1] == 2000
    assert all(isinstance(n, int) for n in steps)
    assert all(a < b for a, b in zip(steps, steps[1:]))
    # geometric: the ratios between neighbours are close to (2000/4)^(1/11) = 1.76
    ratios = [b / a for a, b in zip(steps, steps[1:])]
    assert all(1.6 < r < 1.9 for r in ratios)
    plan = Study("spring", ["euler"], **SPAN).points()
    for _, dt, n in plan:
        assert dt == 2.0 / n and n * dt == pytest.approx(2.0, rel=4 * EPS)


def test_force_evaluations_are_counted(undamped):
    # explicit Runge-Kutta methods evaluate once per stage
    for name, stages in (("euler", 1), ("midpoint", 2), ("heun", 2), ("rk4", 4)):
        run = undamped.run(name)
        finished = [
            n for n, r in zip(run.steps, run.excluded) if r is None or not r.startswith("diverged")
        ]
        assert [
            e
            for e, r in zip(run.evaluations, run.excluded)
            if r is None or not r.startswith("diverged")
        ] == [stages * n for n in finished]
    # velocity Verlet reuses the force at the end of a step as the next step's first: one
    # evaluation per step plus the very first one
    run = undamped.run("velocity-verlet")
    assert run.evaluations[1:] == [n + 1 for n in run.steps[1:]]
    # implicit methods iterate: at least one evaluation per step, more than declared
    run = undamped.run("implicit-euler")
    assert all(e > 2 * n for e, n in zip(run.evaluations, run.steps))
    assert all(s >= 0.0 for s in run.seconds)


def test_energy_error_of_a_symplectic_method_stays_bounded_and_shrinks(undamped):
    run = undamped.run("symplectic-euler")
    fitted = [e for e, r in zip(run.energy_error, run.excluded) if r is None]
    assert all(0.0 <= e < 1.0 for e in fitted)
    assert fitted[-1] < fitted[0] / 10


def test_a_study_run_in_slices_gives_the_same_numbers():
    whole = study(
        "spring", ["velocity-verlet", "rk4"], duration=1.0, dt_max=0.1, dt_min=0.005, points=5
    ).to_dict()
    sliced = Study(
        "spring", ["velocity-verlet", "rk4"], duration=1.0, dt_max=0.1, dt_min=0.005, points=5
    )
    first = sliced.run_next()  # one point, the coarsest step of the first integrator
    assert [p.to_dict()["dt"] for p in first] == [0.1] and first[0].integrator == "velocity-verlet"
    point = first[0].to_dict()
    assert point["done"] and point["error"] == whole["runs"][0]["error"][0]
    progress = [sliced.progress]
    calls = 0
    while not sliced.done:
        sliced.run_next(max_steps=7)
        progress.append(sliced.progress)
        calls += 1
    assert calls > 10 and progress == sorted(progress) and progress[-1] == pytest.approx(1.0)
    out = sliced.result().to_dict()
    for a, b in zip(whole["runs"], out["runs"]):
        for key in ("dt", "error", "energy_error", "evaluations", "slope", "excluded"):
            assert a[key] == b[key], key
    # a time budget: every call still makes progress
    timed = Study("spring", ["rk4"], duration=1.0, dt_max=0.1, dt_min=0.005, points=5)
    while not timed.done:
        timed.run_next(budget_seconds=0.0)
    assert timed.result().to_dict()["runs"][0]["error"] == out["runs"][1]["error"]


def test_without_an_exact_solution_the_reference_is_rk45_and_stated():
    result = study("cradle", ["rk4"], balls=2, duration=0.01, dt_max=0.005, dt_min=0.001, points=3)
    reference = result.reference
    assert reference["method"] == "rk45" and reference["rtol"] <= 1e-10
    assert 0.0 <= reference["estimated_error"] < 1e-6
    assert get_system("cradle").exact(0.0) is None


def test_fit_on_a_synthetic_power_law_with_a_floor_and_an_unstable_point():
    dts = [0.5 / 2**k for k in range(12)]
    errors = [3.0] + [7.0 * dt**3 for dt in dts[1:9]] + [1e-14, 2e-14, 1e-14]
    slope, (lo, hi), reasons = fit_power_law(dts, errors, [1e-13] * 12)
    assert slope == pytest.approx(3.0, abs=1e-12) and (lo, hi) == (1, 8)
    assert reasons[0].startswith("unstable") and all(r is None for r in reasons[1:9])
    assert all(r.startswith("roundoff") for r in reasons[9:])


def test_fit_takes_the_finest_power_law_when_the_slope_changes():
    # C4 dt^4 + C2 dt^2: slope 4 at large steps, 2 in the limit dt -> 0
    # (crossover at dt = 0.01), sampled from 0.4 down to 1.8e-4
    dts = [0.4 / 1.5**k for k in range(20)]
    errors = [dt**4 + 1e-4 * dt**2 for dt in dts]
    slope, (lo, hi), reasons = fit_power_law(dts, errors, [0.0] * 20)
    # the range is the finest one, whose local slopes stay within SLOPE_BAND of each other
    assert slope == pytest.approx(2.0, abs=SLOPE_BAND)
    assert hi == 19 and dts[lo] < 0.01
    assert reasons[0].startswith("pre-asymptotic")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"duration": 0.0}, "'duration'"),
        ({"duration": math.nan}, "'duration'"),
        ({"duration": 1.0, "dt_max": 2.0}, "'dt_max'"),
        ({"duration": 1.0, "dt_max": -0.1}, "'dt_max'"),
        ({"duration": 1.0, "dt_max": 0.1, "dt_min": 0.1}, "'dt_min'"),
        ({"duration": 1.0, "points": 2}, "'points'"),
        ({"duration": 1.0, "points": 3.5}, "'points'"),
        ({"duration": 1.0, "dt_max": 0.5, "dt_min": 0.2, "points": 5}, "'points'"),
        ({"duration": 1e6, "dt_min": 1e-4}, "'dt_min'"),
        ({"duration": 1e6}, "'dt_min'"),
        ({"duration": 1.0, "dt_min": 5e-324}, "'dt_min'"),
        ({"duration": 1e308}, "'dt_min'"),
        ({"duration": 1.0, "dt_max": 1e-300}, "'dt_min'"),
        ({"duration": 1.0, "stiffness": -1.0}, "'stiffness'"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError) as info:
        Study("spring", ["euler"], **kwargs)
    assert name in str(info.value) and "expected" in str(info.value)


def test_bad_integrators_and_budgets_are_rejected():
    with pytest.raises(ValueError, match="unknown integrator 'rk5'"):
        Study("spring", ["rk5"], duration=1.0)
    with pytest.raises(ValueError, match="duplicates"):
        Study("spring", ["rk4", "rk4"], duration=1.0)
    s = Study("spring", ["rk4"], duration=1.0)
    with pytest.raises(ValueError, match="'budget_seconds'"):
        s.run_next(budget_seconds=-1.0)
    with pytest.raises(ValueError, match="'max_steps'"):
        s.run_next(max_steps=0)


def test_explicit_step_counts():
    result = study("spring", ["rk4"], duration=1.0, steps=[40, 10, 20])
    assert result.run("rk4").dt == [0.1, 0.05, 0.025]
    for steps in ([], [0], [2.5], [True], "10", list(range(1, 62))):
        with pytest.raises(ValueError, match="'steps'"):
            Study("spring", ["rk4"], duration=1.0, steps=steps)
    with pytest.raises(ValueError, match="'steps'"):
        Study("spring", ["rk4"], duration=1.0, steps=[10**8])
