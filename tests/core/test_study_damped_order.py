"""On a system with velocity-dependent forces the study compares a method's slope with the
order that holds there (issue 24, item 9): Yoshida's fourth order rests on forces of the
positions alone, and with damping its kicks at the predicted velocity are second order."""

from __future__ import annotations

import pytest

from integrator_lab.core import study
from integrator_lab.core.custom import TEMPLATES

FOREST_RUTH = TEMPLATES["forest-ruth"]["definition"]  # Yoshida's coefficients as data


def test_yoshida_on_the_damped_spring_is_compared_with_second_order():
    result = study("spring", ["yoshida4", FOREST_RUTH], duration=10.0)
    for run in result.runs:
        assert run.order == 2, run.integrator
        assert run.slope == pytest.approx(2.0, abs=0.15)
        assert run.order_matches is True, run.note
        assert "velocity-dependent" in run.order_note and "4 without" in run.order_note


def test_yoshida_without_damping_is_compared_with_fourth_order():
    result = study("spring", ["yoshida4"], damping=0.0, duration=2.0, dt_max=0.1, dt_min=0.005)
    run = result.run("yoshida4")
    assert run.order == 4 and run.order_note is None
    assert run.slope == pytest.approx(4.0, abs=0.15) and run.order_matches is True


def test_methods_whose_order_holds_with_damping_keep_it():
    run = study("spring", ["rk4"], duration=10.0).run("rk4")
    assert run.order == 4 and run.order_note is None and run.order_matches is True
