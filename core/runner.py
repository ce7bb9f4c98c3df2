"""The lockstep runner: several integrators advance one system with one fixed time step.

The time step is decoupled from wall-clock time by an accumulator ("Fix your timestep",
G. Fiedler, 2004): a view asks the runner to cover some wall time at some speed, the runner
takes as many fixed steps as fit, and when that would exceed its step budget it drops the
excess, so the simulation clock slows down instead of falling ever further behind.
Samples (every ``every``-th step) are kept in bounded buffers and handed out as flat
``array('d')`` batches ready to stream into a plot.
"""

from __future__ import annotations

import math
from array import array
from collections import deque

from .custom import is_method_entry, make_integrator, method_name, resolve_method
from .integrators import ConvergenceError
from .params import positive_time

#: an integrator is diverged when |total - total(0)| exceeds this many times the system's
#: characteristic energy
RUNAWAY_FACTOR = 100.0
#: samples kept per integrator for the views, and pending in an untaken batch
DEFAULT_CAPACITY = 20_000


class Lane:
    """One integrator's run: its state, counters, divergence record and sample buffers."""

    def __init__(self, name, system, capacity):
        # ``name``: an integrator's name or a user's definition (see ``core.custom``)
        self.integrator = make_integrator(name)
        self.name = self.integrator.name
        q, v = system.initial_state()
        self.q, self.v, self.w = q, v, 0.0
        self.diverged_at = None
        self.reason = None
        self.history = deque(maxlen=capacity)
        self.pending = deque(maxlen=capacity)

    @property
    def alive(self):
        return self.diverged_at is None


class Runner:
    """Advance the integrators ``names`` in lockstep on ``system`` with time step ``dt``.

    Each entry of ``names`` is an integrator's name or a user's method (a definition or its
    dict, see :mod:`integrator_lab.core.custom`), known by its own name.
    """

    def __init__(self, system, names, dt=None, *, every=1, capacity=DEFAULT_CAPACITY):
        if is_method_entry(names):
            names = [names]
        entries = [resolve_method(entry) for entry in names]
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
        lane = self.lanes[0]
        self.energy0 = system.energies(lane.q, lane.v, lane.w)[3]
        self.runaway = RUNAWAY_FACTOR * system.energy_scale()
        for lane in self.lanes:
            self._check_and_record(lane, 0.0)

    @property
    def time(self) -> float:
        return self.step_count * self.dt

    def columns(self):
        n = self.system.ndof
        return (["t"] + [f"q{i}" for i in range(n)] + [f"v{i}" for i in range(n)]
                + ["kinetic", "potential", "dissipated", "total"])

    # -- stepping -----------------------------------------------------------------------
    def advance(self, steps: int) -> None:
        """Advance every live integrator by ``steps`` steps, sampling every ``every``-th."""
        every, dt, lanes = self.every, self.dt, self.lanes
        advance_lane, record = self._advance_lane, self._check_and_record
        while steps > 0:
            to_sample = every - self.step_count % every
            block = steps if steps < to_sample else to_sample
            start = self.step_count * dt
            for lane in lanes:
                if lane.diverged_at is None:
                    advance_lane(lane, start, block)
            self.step_count += block
            steps -= block
            if block == to_sample:
                now = self.step_count * dt
                for lane in lanes:
                    if lane.diverged_at is None:
                        record(lane, now)

    def _advance_lane(self, lane, start, block):
        try:
            lane.q, lane.v, lane.w = lane.integrator.advance(
                self.system, lane.q, lane.v, lane.w, start, self.dt, block)
        except ConvergenceError as exc:
            self._diverge(lane, start, str(exc))
        except (OverflowError, ZeroDivisionError, ValueError) as exc:
            self._diverge(lane, start, f"arithmetic failure ({exc})")

    def _check_and_record(self, lane, now):
        q, v, w = lane.q, lane.v, lane.w
        try:
            kinetic, potential = self.system.energy(q, v)
            total = kinetic + potential + w
        except (OverflowError, ValueError):
            total = math.nan
        # a non-finite state gives a non-finite (or failing) energy: one test catches both
        if not abs(total - self.energy0) <= self.runaway:
            finite = math.isfinite(sum(q) + sum(v) + w) and math.isfinite(total)
            self._diverge(lane, now, "energy ran away" if finite else
                          "state is no longer finite")
            return
        sample = (now, *q, *v, kinetic, potential, w, total)
        lane.history.append(sample)
        lane.pending.append(sample)

    def _diverge(self, lane, when, reason):
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
    def take_batch(self, everything: bool = False) -> dict:
        """New samples since the last call: per integrator a flat ``array('d')`` of
        ``len(columns())`` values per sample, row after row. With ``everything``, every
        sample still kept instead (for a view that must start over)."""
        out = {}
        for lane in self.lanes:
            flat = array("d")
            for sample in lane.history if everything else lane.pending:
                flat.extend(sample)
            lane.pending.clear()
            out[lane.name] = flat
        return {"columns": self.columns(), "stride": self.stride, "time": self.time,
                "lanes": out, "diverged": self.diverged()}

    def diverged(self) -> dict:
        return {lane.name: {"at": lane.diverged_at, "reason": lane.reason}
                for lane in self.lanes if lane.diverged_at is not None}
