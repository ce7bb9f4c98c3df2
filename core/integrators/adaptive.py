"""An adaptive embedded Runge-Kutta pair used as a high-accuracy reference."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .base import ConvergenceError
from .runge_kutta import (
    DORMAND_PRINCE,
    EmbeddedTableau,
    FlatState,
    RungeKutta,
    Stage,
    flat,
    rk_combine,
    stage_function,
    unflat,
)

if TYPE_CHECKING:
    from ..systems.base import Dynamics, State, Vector


class RK45(RungeKutta):
    """Dormand-Prince 5(4) with error control.

    ``dt`` is the output interval and the largest internal step: each call of :meth:`step`
    reaches ``t + dt`` exactly through as many accepted internal steps as the tolerances need.
    The internal step size carries over from one call to the next.
    """

    name = "rk45"
    title = "Dormand-Prince 5(4), adaptive"
    order = 5
    evaluations = 6  # seven stages, the last one reused as the next step's first
    tableau: EmbeddedTableau = DORMAND_PRINCE
    description = (
        "Adaptive embedded RK pair (error control, rtol 1e-9): a high-accuracy "
        "reference; evaluations are per internal step"
    )
    reference = "J. R. Dormand & P. J. Prince, J. Comput. Appl. Math. 6 (1980) 19-26"

    rtol = 1e-9
    atol = 1e-12
    SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 5.0

    def __init__(self, rtol: float | None = None, atol: float | None = None) -> None:
        super().__init__()
        if rtol is not None:
            self.rtol = rtol
        if atol is not None:
            self.atol = atol
        self._h: float | None = None
        #: the flat state an accepted step ended at, and its derivative (the last stage)
        self._last_stage: tuple[FlatState, Stage | None] | None = None
        self._error_weights = tuple(b - e for b, e in zip(self.tableau.b, self.tableau.b_error))
        self.internal_steps = 0
        self.rejected_steps = 0
        #: where a call of :meth:`reach` stopped short: (time, end, internal step size)
        self._resume: tuple[float, float, float] | None = None

    def step(self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float) -> State:
        return self.reach(system, q, v, w, t, t + dt, dt)[0]

    def reach(
        self,
        system: Dynamics,
        q: Vector,
        v: Vector,
        w: float,
        t: float,
        end: float,
        max_h: float,
        max_steps: int | None = None,
    ) -> tuple[State, float]:
        """Internal steps from ``t`` towards ``end``, none longer than ``max_h``, as
        :meth:`step` takes them, but at most ``max_steps`` of them (accepted or rejected):
        returns the state and the time reached. A call that goes on from where the last one
        stopped (the state and time it returned, the same ``end``) takes exactly the steps
        that one uninterrupted call would have taken: a caller with a time budget (a study's
        reference in the page's worker) cuts a long interval into short calls."""
        resume = self._resume
        self._resume = None
        if resume is not None and resume[0] == t and resume[1] == end:
            h = resume[2]
        else:
            h = max_h if self._h is None else min(self._h, max_h)
        dt = max_h
        taken = 0
        tab, rows = self.tableau, self._rows
        n, y = len(q), flat(q, v, w)
        stages = stage_function(system, n)
        # first same as last: the last stage of an accepted step is the derivative at its
        # end, the next step's first stage (kept while the state handed back is unchanged)
        first = self._last_stage[1] if self._last_stage and self._last_stage[0] == y else None
        zeros = [0.0] * len(y)
        while t < end:
            if max_steps is not None and taken >= max_steps:
                self._resume = (t, end, h)
                break
            taken += 1
            last = h >= end - t
            if last:
                h = end - t
            ks = stages(rows, tab.c, y, t, h, first)
            first = ks[0]
            y5 = rk_combine(tab.b, ks, y, h)
            # the error estimate y5 - y4 = h sum (b_i - b*_i) k_i, in one sum
            err = _error_norm(
                y, y5, rk_combine(self._error_weights, ks, zeros, h), self.rtol, self.atol
            )
            if err <= 1.0:
                t = end if last else t + h
                y = y5
                first = ks[-1]
                self.internal_steps += 1
                grow = self.MAX_FACTOR if err == 0.0 else self.SAFETY * err**-0.2
                proposal = min(h * min(self.MAX_FACTOR, grow), dt)
                if not last:  # a step shortened to land on ``end`` says little about h
                    self._h = proposal
                h = proposal
            else:
                self.rejected_steps += 1
                shrink = self.SAFETY * err**-0.2 if math.isfinite(err) else 0.0
                h *= max(self.MIN_FACTOR, shrink)
                if h <= 1e-14 * max(1.0, abs(t)):
                    raise ConvergenceError("adaptive step size underflow")
        self._last_stage = (y, first)
        return unflat(y, n), t


def _error_norm(
    y0: Sequence[float], y5: Sequence[float], delta: Sequence[float], rtol: float, atol: float
) -> float:
    """RMS of the error estimate ``delta`` scaled by ``atol + rtol max(|y0|, |y5|)``."""
    total = 0.0
    for a, b, d in zip(y0, y5, delta):
        e = d / (atol + rtol * max(abs(a), abs(b)))
        total += e * e
    return math.sqrt(total / len(y0))
