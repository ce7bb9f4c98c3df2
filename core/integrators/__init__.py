"""Integrators and their registry: ``INTEGRATORS`` maps each name to its class."""

from __future__ import annotations

from .adaptive import RK45
from .base import ConvergenceError, Integrator
from .implicit import ImplicitEuler, ImplicitMidpoint
from .runge_kutta import ButcherTableau, ClassicRK4, ExplicitEuler, Heun, Midpoint, RungeKutta
from .splitting import Leapfrog, Splitting, SymplecticEuler, VelocityVerlet, Yoshida4

INTEGRATORS: dict[str, type[Integrator]] = {
    cls.name: cls
    for cls in (
        ExplicitEuler,
        SymplecticEuler,
        VelocityVerlet,
        Leapfrog,
        Midpoint,
        Heun,
        ClassicRK4,
        ImplicitEuler,
        ImplicitMidpoint,
        Yoshida4,
        RK45,
    )
}

#: the integrators shown when nobody chose
DEFAULT_INTEGRATORS = ("euler", "symplectic-euler", "velocity-verlet", "rk4")


def get_integrator(name: str) -> Integrator:
    """A new instance of the integrator called ``name``; unknown names list the valid ones."""
    try:
        cls = INTEGRATORS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown integrator {name!r}; valid integrators: {', '.join(INTEGRATORS)}"
        ) from None
    return cls()


__all__ = [
    "INTEGRATORS",
    "DEFAULT_INTEGRATORS",
    "get_integrator",
    "Integrator",
    "ConvergenceError",
    "ButcherTableau",
    "RungeKutta",
    "Splitting",
]
