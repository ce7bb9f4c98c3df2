"""The physics core of Integrator Lab: systems, integrators, the lockstep runner.

Standard library only, so that the same files run in CPython and in Pyodide.
"""

from __future__ import annotations

from typing import Any

from .integrators import DEFAULT_INTEGRATORS, INTEGRATORS, ConvergenceError, get_integrator
from .params import Param, ParamError
from .runner import Runner
from .simulate import SimulationResult, simulate, simulate_many
from .study import Study, StudyResult, study
from .systems import SYSTEMS, get_system


def catalog() -> dict[str, list[dict[str, Any]]]:
    """Every system and integrator with its declarations (for listings and user interfaces)."""
    return {
        "systems": [cls.describe() for cls in SYSTEMS.values()],
        "integrators": [cls.describe() for cls in INTEGRATORS.values()],
    }


__all__ = [
    "SYSTEMS",
    "INTEGRATORS",
    "DEFAULT_INTEGRATORS",
    "get_system",
    "get_integrator",
    "Runner",
    "simulate",
    "simulate_many",
    "SimulationResult",
    "ConvergenceError",
    "Param",
    "ParamError",
    "catalog",
    "Study",
    "StudyResult",
    "study",
]
