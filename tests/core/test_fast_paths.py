"""The one-degree-of-freedom fast paths (plain floats instead of lists) compute what the
general list-based code computes: Runge-Kutta stages, splitting methods and Newton's method
alike."""

from __future__ import annotations

import pytest

from integrator_lab.core import INTEGRATORS, SYSTEMS, get_integrator

ONE_DOF = [name for name, cls in SYSTEMS.items() if cls().ndof == 1]
FAST = [
    "euler",
    "midpoint",
    "heun",
    "rk4",
    "rk45",
    "symplectic-euler",
    "velocity-verlet",
    "leapfrog",
    "yoshida4",
    "implicit-euler",
    "implicit-midpoint",
]


class WithoutFastPath:
    """The same system, minus its ``scalar_forces``: integrators take the general path."""

    def __init__(self, system):
        self._system = system

    def __getattr__(self, name):
        return None if name == "scalar_forces" else getattr(self._system, name)


def test_fast_path_integrators_exist():
    assert set(FAST) <= set(INTEGRATORS)


@pytest.mark.parametrize("integrator", FAST)
@pytest.mark.parametrize("system", ONE_DOF)
def test_fast_path_equals_the_general_path(system, integrator):
    sys_ = SYSTEMS[system]()
    assert sys_.scalar_forces is not None
    q, v = sys_.initial_state()
    dt = sys_.recommended_dt
    fast = get_integrator(integrator).advance(sys_, q, v, 0.0, 0.0, dt, 300)
    general = get_integrator(integrator).advance(WithoutFastPath(sys_), q, v, 0.0, 0.0, dt, 300)
    for a, b in zip([*fast[0], *fast[1], fast[2]], [*general[0], *general[1], general[2]]):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12)
