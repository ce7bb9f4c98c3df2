"""What a study measures, and against what: the :class:`Reference` (the exact solution, or
``rk45`` at a tight tolerance with its own error estimated, advanced a piece at a time) and one
:class:`StudyPoint` (an integrator at one step count, run in slices through a
:class:`CountingSystem` that counts force evaluations, then measured at ``T``: the relative
full-state error, the position error and the energy error).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ..custom import Method, make_integrator
from ..divergence import STEP_FAILURES, DivergenceRule, failure_reason
from ..integrators import ConvergenceError, Integrator
from ..integrators.adaptive import RK45
from ..systems import System
from ..systems.base import Dynamics, Jacobian, PostStep, Vector

_T = TypeVar("_T")

#: the adaptive method that serves as the reference where there is no exact solution
REFERENCE_METHOD = "rk45"
REFERENCE_RTOL, REFERENCE_ATOL = 1e-12, 1e-15
#: reference samples along [0, T] (for the scales Q and V of the relative error)
REFERENCE_SAMPLES = 64
#: internal steps of the integrated reference per call of :meth:`Reference.advance_piece`: a
#: study run in slices against a time budget (the page's worker gives it a few ms a tick) never
#: waits long on the reference (a cradle's output interval, whole, took 0.35 s in CPython and
#: longer in the page; 8 steps of both solvers take a few ms); the steps are the same as in one
#: call (:meth:`RK45.reach`)
REFERENCE_PIECE_STEPS = 8


def _count_calls(function: Callable[..., _T], cell: list[int]) -> Callable[..., _T]:
    def counted(*args: Any) -> _T:
        cell[0] += 1
        return function(*args)

    return counted


class CountingSystem:
    """A proxy of ``system`` whose ``forces`` and ``scalar_forces`` count their calls.

    Everything else is the system's own attribute, so integrators take the same paths (and
    reuse evaluations the same way) as on the bare system. Jacobians are not force evaluations
    and are not counted.
    """

    forces: Callable[..., tuple[Vector, float]]
    scalar_forces: Callable[..., tuple[float, float]] | None
    jacobian: Jacobian | None
    post_step: PostStep | None
    velocity_dependent: bool

    def __init__(self, system: System) -> None:
        self._system = system
        self._cell = [0]
        self.forces = _count_calls(system.forces, self._cell)
        scalar = system.scalar_forces
        self.scalar_forces = None if scalar is None else _count_calls(scalar, self._cell)
        # what integrators look up on every step, copied: ``__getattr__`` is slow
        for name in ("jacobian", "post_step", "velocity_dependent"):
            setattr(self, name, getattr(system, name))

    @property
    def evaluations(self) -> int:
        return self._cell[0]

    def __getattr__(self, name: str) -> Any:
        # Any: whatever the system has, forwarded (the proxy stands for any system)
        return getattr(self._system, name)


if TYPE_CHECKING:
    # integrators get the proxy in place of the system: it must offer what they need
    _counting_system_is_dynamics: type[Dynamics] = CountingSystem


def _norm(x: Iterable[float]) -> float:
    return max((abs(e) for e in x), default=0.0)


def _diff(a: Iterable[float], b: Iterable[float]) -> float:
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


class Reference:
    """The reference state at ``T`` and the scales ``Q``, ``V`` along the way.

    From the exact solution where the system has one; otherwise integrated by ``rk45`` at
    ``REFERENCE_RTOL`` and, to estimate its error, at a tolerance ten times looser (both in
    ``REFERENCE_SAMPLES`` output intervals, advanced a few at a time by :meth:`advance`).
    """

    def __init__(self, system: System, duration: float) -> None:
        self.system, self.duration = system, duration
        self.exact = system.exact(0.0) is not None
        self.samples_done = 0
        self.error = 0.0  # estimated error of the reference state at T (relative, like error)
        q, v = system.initial_state()
        self.scale_q, self.scale_v = _norm(q), _norm(v)
        self._state: list[tuple[Vector, Vector, float]] = [(q, v, 0.0), (q, v, 0.0)]
        self._reached = [0.0, 0.0]  # the time each solver's state is at
        self._solvers: list[RK45] = []
        if not self.exact:
            # REFERENCE_METHOD, whose tolerances are its own (not the Integrator interface's)
            self._solvers = [
                RK45(REFERENCE_RTOL * factor, REFERENCE_ATOL * factor) for factor in (1.0, 10.0)
            ]
        #: the reference state at T, once done
        self.q: Vector | None = None
        self.v: Vector | None = None

    def describe(self) -> dict[str, Any]:
        if self.exact:
            return {"method": "exact"}
        return {
            "method": REFERENCE_METHOD,
            "rtol": REFERENCE_RTOL,
            "atol": REFERENCE_ATOL,
            "estimated_error": self.error,
        }

    @property
    def done(self) -> bool:
        return self.samples_done == REFERENCE_SAMPLES

    def advance(self, samples: int) -> int:
        """Cover up to ``samples`` more output intervals; return how many were covered."""
        count = min(samples, REFERENCE_SAMPLES - self.samples_done)
        for _ in range(count):
            while not self.advance_piece(None):
                pass
        return count

    def advance_piece(self, max_steps: int | None = REFERENCE_PIECE_STEPS) -> bool:
        """Go on towards the end of the next output interval, by at most ``max_steps``
        internal steps of each solver (None: to its end; an exact solution takes one call);
        return whether that interval is covered now."""
        if self.done:
            return True
        i = self.samples_done + 1
        h = self.duration / REFERENCE_SAMPLES
        t = self.duration if i == REFERENCE_SAMPLES else i * h
        if self.exact:
            exact = self.system.exact(t)
            assert exact is not None  # (self.exact: the system has a closed form)
            q, v = exact
            self._state[0] = (q, v, 0.0)
        else:
            start = (i - 1) * h
            for k, solver in enumerate(self._solvers):
                if self._reached[k] >= t:
                    continue
                q0, v0, w0 = self._state[k]
                try:
                    (q0, v0, w0), self._reached[k] = solver.reach(
                        self.system, q0, v0, w0, self._reached[k], t, t - start, max_steps
                    )
                except (ConvergenceError, OverflowError, ZeroDivisionError) as exc:
                    raise ValueError(
                        f"reference: {REFERENCE_METHOD} failed on {self.system.name} ({exc})"
                    ) from None
                post = None if solver.applies_post_step else self.system.post_step
                if self._reached[k] >= t:  # as Integrator.advance after each step
                    solver.steps += 1
                    if post is not None:
                        v0, w0 = post(v0, w0, t - start)
                self._state[k] = (q0, v0, w0)
            if any(reached < t for reached in self._reached):
                return False
        q, v, _ = self._state[0]
        if not (math.isfinite(sum(q)) and math.isfinite(sum(v))):
            raise ValueError(
                f"reference: the {self.describe()['method']} solution of "
                f"{self.system.name} is not finite at t = {t:g} s"
            )
        self.scale_q = max(self.scale_q, _norm(q))
        self.scale_v = max(self.scale_v, _norm(v))
        self.samples_done = i
        if self.done:
            self.q, self.v, _ = self._state[0]
            # scales of a system at rest everywhere: 1 (the errors are then absolute)
            self.scale_q = self.scale_q or 1.0
            self.scale_v = self.scale_v or 1.0
            if not self.exact:
                loose_q, loose_v, _ = self._state[1]
                # errors scale with the tolerance: the tight run's is about a tenth of the
                # difference between the two runs
                self.error = 0.1 * max(
                    _diff(loose_q, self.q) / self.scale_q, _diff(loose_v, self.v) / self.scale_v
                )
        return True


class StudyPoint:
    """One integrator at one step count: state while it runs, measurements once done."""

    def __init__(
        self, integrator: str, steps: int, dt: float, method: Method | None = None
    ) -> None:
        self.integrator, self.steps, self.dt = integrator, steps, dt
        self.method = integrator if method is None else method  # a name or a definition
        self.steps_done = 0
        self.seconds = 0.0
        self.evaluations = 0
        self.failure: str | None = None  # why it diverged, if it did
        self.done = False
        self.error = self.position_error = self.energy_error = math.nan
        # while it runs (start() to measure())
        self._method: Integrator | None = None
        self._proxy: CountingSystem | None = None
        self._state: tuple[Vector, Vector, float] | None = None

    def start(self, system: System) -> None:
        self._method = make_integrator(self.method)
        self._proxy = CountingSystem(system)
        q, v = system.initial_state()
        self._state = (q, v, 0.0)

    def advance(self, system: System, steps: int, rule: DivergenceRule) -> int:
        """Take up to ``steps`` steps; stop early on divergence, judged by ``rule`` (the
        runner's) at the end of the slice."""
        assert self._method is not None and self._proxy is not None and self._state is not None
        q, v, w = self._state
        start = self.steps_done
        count = min(steps, self.steps - start)
        began = time.perf_counter()
        try:
            q, v, w = self._method.advance(self._proxy, q, v, w, start * self.dt, self.dt, count)
        except STEP_FAILURES as exc:
            self.failure = failure_reason(exc)
        self.seconds += time.perf_counter() - began
        self.evaluations = self._proxy.evaluations
        self.steps_done = start + count
        self._state = (q, v, w)
        if self.failure is None:
            now = self.steps_done * self.dt
            # the limit at this slice's end, whatever other points have cached
            self.failure = rule.judge(q, v, w, now, rule.runaway_limit(now))[0]
        if self.failure is not None or self.steps_done == self.steps:
            self.done = True
        return count

    def to_dict(self) -> dict[str, Any]:
        """The point as a view streams it (non-finite errors as None)."""

        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "integrator": self.integrator,
            "dt": self.dt,
            "steps": self.steps,
            "steps_done": self.steps_done,
            "done": self.done,
            "error": finite(self.error),
            "position_error": finite(self.position_error),
            "energy_error": finite(self.energy_error),
            "evaluations": self.evaluations,
            "seconds": self.seconds,
            "failure": self.failure,
        }

    def measure(
        self, system: System, reference: Reference, energy0: float, energy_scale: float
    ) -> None:
        if self.failure is not None:
            self.error = self.position_error = self.energy_error = math.inf
        else:
            assert self._state is not None and reference.q is not None and reference.v is not None
            q, v, w = self._state
            self.position_error = _diff(q, reference.q)
            self.error = max(
                self.position_error / reference.scale_q, _diff(v, reference.v) / reference.scale_v
            )
            kinetic, potential = system.energy(q, v)
            self.energy_error = abs(kinetic + potential + w - energy0) / energy_scale
        self._method = self._proxy = self._state = None  # free what only a running point needs
