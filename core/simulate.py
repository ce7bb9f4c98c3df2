"""One-call simulation: a system, an integrator, a duration; every sample kept."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .custom import MethodEntry, is_method_entry
from .params import positive_time
from .runner import Lane, Runner
from .systems import System, get_system

#: most steps one call may take (a guard against a mistyped dt or duration)
MAX_STEPS = 50_000_000


class SimulationResult:
    """Samples of one integrator's run: time, state and energy breakdown."""

    def __init__(self, runner: Runner, lane: Lane) -> None:
        self.system = runner.system
        self.integrator = lane.name
        self.dt = runner.dt
        self.every = runner.every
        self.diverged_at = lane.diverged_at
        self.reason = lane.reason
        n = runner.system.ndof
        samples = list(lane.history)
        self.t = [s[0] for s in samples]
        self.q = [list(s[1 : 1 + n]) for s in samples]
        self.v = [list(s[1 + n : 1 + 2 * n]) for s in samples]
        self.kinetic = [s[-4] for s in samples]
        self.potential = [s[-3] for s in samples]
        self.dissipated = [s[-2] for s in samples]
        self.total = [s[-1] for s in samples]

    def to_dict(self) -> dict[str, Any]:
        return {
            "integrator": self.integrator,
            "t": self.t,
            "q": self.q,
            "v": self.v,
            "kinetic": self.kinetic,
            "potential": self.potential,
            "dissipated": self.dissipated,
            "total": self.total,
            "diverged_at": self.diverged_at,
        }


def step_count(duration: float, dt: float) -> int:
    """Number of steps of ``dt`` that cover ``duration`` (the last one may overshoot)."""
    ratio = duration / dt  # may be inf (1e308 s at 1e-10 s): compared before any int()
    if not ratio <= MAX_STEPS:
        needed = f"{ratio:.3g}" if math.isfinite(ratio) else "more than 1e308"
        raise ValueError(
            f"'duration'/'dt': {duration!r} s at dt = {dt!r} s needs {needed} "
            f"steps, expected at most {MAX_STEPS}"
        )
    return max(math.ceil(ratio - 1e-9), 1)


def simulate_many(
    system: str | System,
    integrators: MethodEntry | Iterable[MethodEntry],
    *,
    dt: float | None = None,
    duration: float,
    every: int = 1,
    **params: object,
) -> tuple[System, list[SimulationResult]]:
    """Run several integrators in lockstep; return ``(system, [SimulationResult, ...])``."""
    if isinstance(system, str):
        system = get_system(system, **params)
    elif params:
        raise ValueError("parameters go with a system name, not a system instance")
    duration = positive_time("duration", duration)
    runner = Runner(system, integrators, dt, every=every, capacity=None)
    runner.advance(step_count(duration, runner.dt))
    runner.record_last()
    return system, [SimulationResult(runner, lane) for lane in runner.lanes]


def simulate(
    system: str | System,
    integrator: MethodEntry,
    *,
    dt: float | None = None,
    duration: float,
    every: int = 1,
    **params: object,
) -> SimulationResult:
    """Simulate ``system`` (a name, with ``params``, or an instance) under ``integrator`` (a
    name, or a user's method: see :mod:`integrator_lab.core.custom`).

    ``dt`` defaults to the system's recommended step. The first sample is the initial state at
    t = 0, then every ``every``-th step, and the last step's. Bad input raises ``ValueError``
    naming the culprit.
    """
    if not is_method_entry(integrator):
        raise ValueError(
            f"integrator: got {integrator!r}, expected an integrator name or a definition"
        )
    return simulate_many(system, [integrator], dt=dt, duration=duration, every=every, **params)[1][
        0
    ]
