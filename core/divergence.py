"""When a run has diverged: the one rule the runner and the study both apply.

A state has diverged when it is no longer finite, or when its mechanical energy ``K + P``
exceeds the initial one by more than :data:`RUNAWAY_FACTOR` times the larger of the system's
energy scale and the most kinetic energy its exact motion can have by then
(:meth:`System.kinetic_bound`, which grows for a body a constant force accelerates).
The work dissipated by damping, drag or an engine's velocity scaling is a ledger, not a state:
its bookkeeping error (a constant force's ``m a^2 dt^2 / 2`` per step under engine drag)
says nothing about stability and is not judged, except that it must stay finite. Losing energy
is damping, not a runaway. A system may also say why a state is none of its states
(:attr:`System.fault`: a ball outside its box), and that reason ends the run too.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .integrators import ConvergenceError

if TYPE_CHECKING:
    from .systems import System
    from .systems.base import Vector

#: a run has diverged when K + P exceeds its initial value by this many times the system's
#: characteristic energy (or the kinetic energy its exact motion can reach, if larger)
RUNAWAY_FACTOR = 100.0
NOT_FINITE = "state is no longer finite"
RAN_AWAY = "energy ran away"


class DivergenceRule:
    """The rule for runs of ``system`` from its initial state.

    :attr:`limit` caches the runaway limit at the latest time judged (``kinetic_bound`` never
    decreases in time), so that the common case (finite, within it) costs two comparisons.
    """

    def __init__(self, system: System) -> None:
        self.system = system
        q, v = system.initial_state()
        kinetic, potential = system.energy(q, v)
        #: the initial mechanical energy ``K + P``
        self.energy0 = kinetic + potential
        self.scale = system.energy_scale()
        self.limit = self.runaway_limit(0.0)
        #: the system's own test of a state (None for most systems)
        self.fault = system.fault

    def runaway_limit(self, now: float) -> float:
        """The most ``K + P - energy0`` may be at time ``now``."""
        return RUNAWAY_FACTOR * max(self.scale, self.system.kinetic_bound(now))

    def judge(
        self, q: Vector, v: Vector, w: float, now: float, limit: float | None = None
    ) -> tuple[str | None, float, float]:
        """``(reason, kinetic, potential)`` for the state ``(q, v, w)`` at time ``now``:
        reason None when it has not diverged. ``limit``: the runaway limit to try first
        (default the cached one; a state beyond it is judged by the limit at ``now``)."""
        try:
            kinetic, potential = self.system.energy(q, v)
        except (OverflowError, ValueError):
            return NOT_FINITE, math.nan, math.nan
        excess = kinetic + potential - self.energy0
        first = self.limit if limit is None else limit
        # NaN fails every comparison; -inf (a position at infinity under a constant force)
        # and a non-finite ledger are caught by the bounds
        if -math.inf < excess <= first and -math.inf < w < math.inf:
            return self._fault(q), kinetic, potential
        if not (math.isfinite(excess) and math.isfinite(w)):
            return NOT_FINITE, kinetic, potential
        at_now = self.runaway_limit(now)  # the bound may have grown since it was cached
        if excess > at_now:
            return RAN_AWAY, kinetic, potential
        self.limit = max(self.limit, at_now)
        return self._fault(q), kinetic, potential

    def _fault(self, q: Vector) -> str | None:
        """The system's reason why ``q`` is none of its states, or None."""
        return None if self.fault is None else self.fault(q)


class Watch:
    """The rule applied to every state a block of steps passes through, in order.

    An integrator's ``advance(..., watch)`` calls it after each step and stops at the first
    state it refuses, so that a run's divergence is judged at every step whatever the sampling
    interval (an excursion inside a block is seen, and nothing is stepped twice). It keeps the
    last sound state with its energies (:attr:`q`, :attr:`v`, :attr:`w`, :attr:`kinetic`,
    :attr:`potential`), counts the sound steps (:attr:`count`) and keeps the reason of the
    state it refused (:attr:`reason`).
    """

    __slots__ = (
        "count",
        "dt",
        "fault",
        "first",
        "kinetic",
        "potential",
        "q",
        "reason",
        "rule",
        "v",
        "w",
    )

    def __init__(self, rule: DivergenceRule, dt: float) -> None:
        self.rule, self.dt = rule, dt
        self.fault = rule.fault
        self.first = self.count = 0
        self.reason: str | None = None
        self.q: Vector = []
        self.v: Vector = []
        self.w = self.kinetic = self.potential = 0.0

    def start(self, first: int, q: Vector, v: Vector, w: float) -> None:
        """Watch a block that starts after step ``first`` from the sound state ``q, v, w``."""
        self.first, self.count, self.reason = first, 0, None
        self.q, self.v, self.w = q, v, w

    def time_of_next(self) -> float:
        """The time of the step after the last sound one: when a run that stopped diverged."""
        return (self.first + self.count + 1) * self.dt

    def __call__(self, q: Vector, v: Vector, w: float) -> bool:
        """Judge the state after the next step: True (and keep it) when it is sound."""
        rule = self.rule
        try:
            kinetic, potential = rule.system.energy(q, v)
            excess = kinetic + potential - rule.energy0
        except (OverflowError, ValueError):
            excess = math.nan
        # the common case inline: finite and within the cached limit (x - x == 0 is false for
        # inf and NaN)
        if not (excess <= rule.limit and excess - excess == 0.0 and w - w == 0.0):
            reason, kinetic, potential = rule.judge(q, v, w, self.time_of_next())
            if reason is not None:
                self.reason = reason
                return False
        elif self.fault is not None:
            reason = self.fault(q)
            if reason is not None:
                self.reason = reason
                return False
        self.q, self.v, self.w = q, v, w
        self.kinetic, self.potential = kinetic, potential
        self.count += 1
        return True


#: what a step may raise that ends one integrator's run (the others go on)
STEP_FAILURES = (ArithmeticError, ValueError)


def failure_reason(exc: Exception) -> str:
    """Why a step that raised ``exc`` (one of :data:`STEP_FAILURES`) ended the run."""
    if isinstance(exc, ConvergenceError):
        return str(exc)
    return f"arithmetic failure ({exc})"
