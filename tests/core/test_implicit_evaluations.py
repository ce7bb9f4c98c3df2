"""What the implicit methods declare about their force evaluations is what they make (issue 24,
item 6): an explicit Euler predictor, one evaluation per Newton iteration (the second one
confirms that the first converged) and the dissipated power at the end: 4 on a linear force,
more when Newton needs more iterations, plus one per coordinate and iteration with a
finite-difference Jacobian."""

from __future__ import annotations

import pytest

from integrator_lab.core import INTEGRATORS, get_system, study

IMPLICIT = [name for name, cls in INTEGRATORS.items() if cls.implicit]


def per_step(system, name, **params):
    run = study(system, [name], duration=1.0, steps=[100, 200], **params).run(name)
    return [e / n for e, n in zip(run.evaluations, run.steps)], run


@pytest.mark.parametrize("name", IMPLICIT)
def test_on_a_linear_force_the_count_is_the_declared_one(name):
    # Newton solves the linear spring in one iteration and a second confirms it: 1 + 2 + 1
    counts, run = per_step("spring", name)
    assert counts == [INTEGRATORS[name].evaluations] * 2 == [4, 4]
    assert run.declared_evaluations == 4
    assert "per Newton iteration" in run.declared_evaluations_note


@pytest.mark.parametrize("name", IMPLICIT)
def test_a_nonlinear_force_takes_at_least_the_declared_count(name):
    counts, _ = per_step("pendulum", name)
    assert all(c >= INTEGRATORS[name].evaluations for c in counts)


@pytest.mark.parametrize("name", IMPLICIT)
def test_without_a_jacobian_each_iteration_adds_one_per_coordinate(name):
    system = get_system("cradle")
    assert system.jacobian is None
    n = system.ndof
    counts, _ = per_step("cradle", name)
    # at least two iterations of 1 + n evaluations, the predictor and the power
    assert all(c >= 2 + 2 * (1 + n) for c in counts), counts


def test_the_description_says_what_happens():
    for name in IMPLICIT:
        info = INTEGRATORS[name].describe()
        assert info["evaluations_text"] == "4 or more"
        assert "per Newton iteration" in info["evaluations_note"]
        assert "per coordinate" in info["evaluations_note"]
    assert INTEGRATORS["rk4"].describe()["evaluations_text"] == "4"
