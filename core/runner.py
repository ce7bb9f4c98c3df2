"""The lockstep runner: several integrators advance one system with one fixed time step.

The time step is decoupled from wall-clock time by an accumulator ("Fix your timestep",
G. Fiedler, 2004): a view asks the runner to cover some wall time at some speed, the runner
takes as many fixed steps as fit, and when that would exceed its step budget it drops the
excess, so the simulation clock slows down instead of falling ever further behind.
Samples (every ``every``-th step) are kept in bounded buffers and handed out as flat
``array('d')`` batches ready to stream into a plot.

Divergence is a property of the state at every step, judged by the one rule of
:mod:`integrator_lab.core.divergence` (which the study applies too): the integrator hands every
state it passes through to a :class:`~integrator_lab.core.divergence.Watch` and stops at the
first one that diverged, so the reported time is that of the step where the state ran away,
whatever the sampling interval, and an excursion between two samples is not missed.
"""

from __future__ import annotations

import math
from array import array
from collections import deque
from collections.abc import Iterable
from typing import Any, TypeAlias

from .custom import (
    Method,
    MethodEntry,
    make_integrator,
    method_entries,
    method_name,
    resolve_method,
)
from .divergence import RUNAWAY_FACTOR, STEP_FAILURES, DivergenceRule, Watch
from .divergence import failure_reason as _failure
from .integrators import Integrator
from .params import positive_time
from .systems import System

__all__ = ["DEFAULT_CAPACITY", "RUNAWAY_FACTOR", "Lane", "Runner", "Sample"]

#: samples kept per integrator for the views, and pending in an untaken batch
DEFAULT_CAPACITY = 20_000

#: one sample: ``(t, *q, *v, kinetic, potential, dissipated, total)``
Sample: TypeAlias = tuple[float, ...]


class Lane:
    """One integrator's run: its state, counters, divergence record and sample buffers."""

    def __init__(self, name: Method, system: System, capacity: int | None) -> None:
        # ``name``: an integrator's name or a user's definition (see ``core.custom``)
        self.integrator: Integrator = make_integrator(name)
        self.name: str = self.integrator.name
        q, v = system.initial_state()
        self.q, self.v, self.w = q, v, 0.0
        self.kinetic, self.potential = system.energy(q, v)
        self.diverged_at: float | None = None
        self.reason: str | None = None
        self.history: deque[Sample] = deque(maxlen=capacity)
        self.pending: deque[Sample] = deque(maxlen=capacity)

    @property
    def alive(self) -> bool:
        return self.diverged_at is None


class Runner:
    """Advance the integrators ``names`` in lockstep on ``system`` with time step ``dt``.

    Each entry of ``names`` is an integrator's name or a user's method (a definition or its
    dict, see :mod:`integrator_lab.core.custom`), known by its own name.
    """

    def __init__(
        self,
        system: System,
        names: MethodEntry | Iterable[MethodEntry],
        dt: float | None = None,
        *,
        every: int = 1,
        capacity: int | None = DEFAULT_CAPACITY,
    ) -> None:
        entries = [resolve_method(entry) for entry in method_entries(names)]
        names = [method_name(entry) for entry in entries]
        if not names:
            raise ValueError("integrators: got none, expected at least one integrator name")
        if len(set(names)) != len(names):
            raise ValueError(f"integrators: got duplicates in {names}, expected distinct names")
        self.system = system
        self.dt = positive_time("dt", dt, allow_none=True) or system.recommended_dt
        if not (isinstance(every, int) and not isinstance(every, bool) and every >= 1):
            raise ValueError(f"'every': got {every!r}, expected an integer >= 1")
        self.every = every
        self.capacity = capacity
        self.lanes = [Lane(entry, system, capacity) for entry in entries]
        self.step_count = 0
        self.accumulator = 0.0
        self.stride = 1 + 2 * system.ndof + 4  # t, q, v, kinetic, potential, dissipated, total
        self.rule = DivergenceRule(system)
        self._watch = Watch(self.rule, self.dt)
        self.energy0 = self.rule.energy0
        self.scale = self.rule.scale
        for lane in self.lanes:
            self._record(lane, 0.0)

    @property
    def time(self) -> float:
        return self.step_count * self.dt

    def columns(self) -> list[str]:
        n = self.system.ndof
        return (
            ["t"]
            + [f"q{i}" for i in range(n)]
            + [f"v{i}" for i in range(n)]
            + ["kinetic", "potential", "dissipated", "total"]
        )

    # -- stepping -----------------------------------------------------------------------
    def advance(self, steps: int) -> None:
        """Advance every live integrator by ``steps`` steps, sampling every ``every``-th."""
        every, lanes = self.every, self.lanes
        advance_lane, record = self._advance_lane, self._record
        while steps > 0:
            to_sample = every - self.step_count % every
            block = steps if steps < to_sample else to_sample
            first = self.step_count
            for lane in lanes:
                if lane.diverged_at is None:
                    advance_lane(lane, first, block)
            self.step_count += block
            steps -= block
            if block == to_sample:
                now = self.step_count * self.dt
                for lane in lanes:
                    if lane.diverged_at is None:
                        record(lane, now)

    def _advance_lane(self, lane: Lane, first: int, block: int) -> None:
        """Take steps ``first`` to ``first + block``, judging the state after every one: the
        lane stops at the first that diverged (or at a step that failed)."""
        watch = self._watch
        watch.start(first, lane.q, lane.v, lane.w)
        try:
            lane.integrator.advance(
                self.system, lane.q, lane.v, lane.w, first * self.dt, self.dt, block, watch
            )
        except STEP_FAILURES as exc:
            watch.reason = _failure(exc)
        if watch.count:
            lane.q, lane.v, lane.w = watch.q, watch.v, watch.w
            lane.kinetic, lane.potential = watch.kinetic, watch.potential
        if watch.reason is not None:
            self._diverge(lane, watch.time_of_next(), watch.reason)

    def record_last(self) -> None:
        """Keep the live lanes' current state as a sample unless the last step was sampled
        already (the end of a run whose length is not a multiple of ``every``)."""
        if self.step_count % self.every:
            for lane in self.lanes:
                if lane.diverged_at is None:
                    self._record(lane, self.time)

    def _record(self, lane: Lane, now: float) -> None:
        q, v, w, kinetic, potential = lane.q, lane.v, lane.w, lane.kinetic, lane.potential
        sample = (now, *q, *v, kinetic, potential, w, kinetic + potential + w)
        lane.history.append(sample)
        lane.pending.append(sample)

    def _diverge(self, lane: Lane, when: float, reason: str) -> None:
        lane.diverged_at = when
        lane.reason = reason

    def tick(self, wall_seconds: float, speed: float = 1.0, max_steps: int = 10_000) -> int:
        """Cover ``wall_seconds`` of wall time at ``speed``; return the steps taken.

        At most ``max_steps`` steps are taken: the rest of the accumulated time is dropped,
        which slows the simulation clock smoothly when the machine cannot keep up.
        """
        if not (wall_seconds >= 0.0 and math.isfinite(wall_seconds)):
            return 0
        self.accumulator += wall_seconds * speed
        steps = int(self.accumulator / self.dt + 1e-9)
        if steps > max_steps:
            steps = max_steps
            self.accumulator = 0.0
        else:
            self.accumulator -= steps * self.dt
        if steps:
            self.advance(steps)
        return steps

    # -- output -------------------------------------------------------------------------
    def take_batch(self, everything: bool = False) -> dict[str, Any]:
        """New samples since the last call: per integrator a flat ``array('d')`` of
        ``len(columns())`` values per sample, row after row. With ``everything``, every
        sample still kept instead (for a view that must start over)."""
        out: dict[str, array[float]] = {}
        for lane in self.lanes:
            flat = array("d")
            for sample in lane.history if everything else lane.pending:
                flat.extend(sample)
            lane.pending.clear()
            out[lane.name] = flat
        return {
            "columns": self.columns(),
            "stride": self.stride,
            "time": self.time,
            "lanes": out,
            "diverged": self.diverged(),
        }

    def diverged(self) -> dict[str, dict[str, float | str | None]]:
        return {
            lane.name: {"at": lane.diverged_at, "reason": lane.reason}
            for lane in self.lanes
            if lane.diverged_at is not None
        }
