"""A study run in slices: :class:`Study` builds the plan, the reference and one point per
integrator and step count, and :meth:`Study.run_next` advances them within a budget of seconds
or steps (so a page stays responsive), coarse to fine; :func:`study` runs it all in one call.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from ..custom import MethodEntry, method_entries, method_info, method_name, resolve_method
from ..divergence import DivergenceRule
from ..params import positive_time
from ..systems import System, get_system
from .measure import REFERENCE_SAMPLES, Reference, StudyPoint
from .plan import (
    DEFAULT_POINTS,
    FIXED_STEP_INTEGRATORS,
    MAX_STUDY_STEPS,
    _points_value,
    _step_bounds,
    _steps_value,
    plan_steps,
)
from .results import StudyResult

#: steps of the first slice of a point run against a time budget; later slices are sized
#: from the measured speed to fill what is left of the budget (few: an implicit method takes
#: 14-22 force evaluations a step on the cradle, and the page's worker gives a few ms a tick)
FIRST_SLICE_STEPS = 16


class Study:
    """A convergence study of ``integrators`` on ``system``, run in slices.

    ``system`` is a name (with ``params``) or an instance; ``integrators`` (names, or users'
    methods: see :mod:`integrator_lab.core.custom`) default to every fixed-step one. Time
    steps are ``dt = duration / n`` for ``points`` integers ``n`` in a geometric sequence,
    from ``dt_max`` (default ``DT_MAX_FACTOR`` times the system's recommended step, at most
    the duration) down to ``dt_min`` (default the recommended step over ``DT_MIN_DIVISOR``);
    or, given ``steps``, exactly those step counts ``n`` (then ``dt_max``, ``dt_min`` and
    ``points`` are not used). Bad input raises ``ValueError`` naming
    the parameter.

    Points run coarse to fine, every integrator at one step before the next finer one, so a
    partial result covers every integrator. Use :meth:`run_next` until :attr:`done`, then
    :meth:`result`.
    """

    def __init__(
        self,
        system: str | System,
        integrators: MethodEntry | Iterable[MethodEntry] | None = None,
        *,
        duration: float,
        dt_max: float | None = None,
        dt_min: float | None = None,
        points: int = DEFAULT_POINTS,
        steps: Iterable[int] | None = None,
        **params: object,
    ) -> None:
        if isinstance(system, str):
            system = get_system(system, **params)
        elif params:
            raise ValueError("parameters go with a system name, not a system instance")
        if integrators is None:
            integrators = FIXED_STEP_INTEGRATORS
        # unknown names list the valid ones; bad definitions name their fault
        methods = [resolve_method(entry) for entry in method_entries(integrators)]
        names = [method_name(entry) for entry in methods]
        if not names:
            raise ValueError("integrators: got none, expected at least one integrator name")
        if len(set(names)) != len(names):
            raise ValueError(f"integrators: got duplicates in {names}, expected distinct names")
        self.system = system
        self.integrators = names
        self.methods = dict(zip(names, methods))
        self.duration = duration = positive_time("duration", duration)
        given: object  # the value named in the message when the study is too long
        if steps is None:
            self.dt_max, self.dt_min = _step_bounds(system, duration, dt_max, dt_min)
            self.points_per_integrator = _points_value(points)
            self.steps = plan_steps(duration, self.dt_max, self.dt_min, self.points_per_integrator)
            culprit, given = "dt_min", self.dt_min
        else:
            self.steps = _steps_value(steps)
            self.points_per_integrator = len(self.steps)
            self.dt_max, self.dt_min = duration / self.steps[0], duration / self.steps[-1]
            culprit, given = "steps", steps
        total = sum(self.steps) * len(names)
        if total > MAX_STUDY_STEPS:
            raise ValueError(
                f"'{culprit}': got {given!r}, which needs {total} "
                f"steps in all, expected at most {MAX_STUDY_STEPS} (fewer or "
                "larger steps, or a shorter duration)"
            )
        self.reference = Reference(system, duration)
        q, v = system.initial_state()
        self.energy0 = system.energies(q, v, 0.0)[3]
        self.energy_scale = system.energy_scale()
        self.rule = DivergenceRule(system)
        self._points = [
            StudyPoint(name, n, duration / n, self.methods[name])
            for n in self.steps
            for name in names
        ]
        self._next = 0  # index of the first unfinished point
        # work units for progress: steps weighted by declared evaluations, plus the reference
        evaluations = {name: method_info(m)["evaluations"] or 1 for name, m in self.methods.items()}
        self._weights = [p.steps * max(1, evaluations[p.integrator]) for p in self._points]
        self._work_total = sum(self._weights)
        self._work_done = 0

    # -- the plan -------------------------------------------------------------------------
    def points(self) -> list[tuple[str, float, int]]:
        """The planned ``(integrator, dt, steps)`` triples, in the order they run."""
        return [(p.integrator, p.dt, p.steps) for p in self._points]

    @property
    def done(self) -> bool:
        return self._next == len(self._points) and self.reference.done

    @property
    def progress(self) -> float:
        """Fraction of the work done (steps weighted by declared evaluations per step)."""
        ref = self.reference.samples_done / REFERENCE_SAMPLES
        work: float = self._work_done
        if self._next < len(self._points):
            work += self._points[self._next].steps_done * (
                self._weights[self._next] / self._points[self._next].steps
            )
        return 0.05 * ref + 0.95 * work / self._work_total

    # -- running --------------------------------------------------------------------------
    def run_next(
        self, budget_seconds: float | None = None, max_steps: int | None = None
    ) -> list[StudyPoint]:
        """Advance the study and return the points finished by this call.

        With neither limit, the reference (if still needed) and exactly one point are finished,
        the point in one call of its integrator's ``advance``. ``budget_seconds`` stops once
        that much time has passed, slices being sized from the measured speed (every call makes
        some progress); ``max_steps`` bounds the integrator steps taken (a reference output
        interval counts as one). A point left halfway resumes where it stopped, with the same
        integrator instance; a method that reuses its last force evaluation in the next step
        (velocity Verlet, Yoshida) evaluates once more when it restarts, a real cost of
        slicing that the count includes.
        """
        if budget_seconds is not None and not budget_seconds >= 0.0:
            raise ValueError(f"'budget_seconds': got {budget_seconds!r}, expected a number >= 0")
        if max_steps is not None and (
            isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
        ):
            raise ValueError(f"'max_steps': got {max_steps!r}, expected an integer >= 1")
        began = time.perf_counter()
        finished: list[StudyPoint] = []
        left = max_steps
        progressed = False
        while not self.done:
            elapsed = time.perf_counter() - began
            if budget_seconds is not None and progressed and elapsed >= budget_seconds:
                break
            progressed = True
            if not self.reference.done:
                if budget_seconds is not None:  # a piece at a time: slices stay short
                    taken = int(self.reference.advance_piece())
                else:
                    taken = self.reference.advance(1 if left else REFERENCE_SAMPLES)
            else:
                point = self._points[self._next]
                if point._method is None:
                    point.start(self.system)
                chunk = point.steps - point.steps_done
                if left is not None:
                    chunk = min(chunk, left)
                if budget_seconds is not None:
                    if point.steps_done == 0 or point.seconds <= 0.0:
                        chunk = min(chunk, FIRST_SLICE_STEPS)
                    else:
                        rate = point.steps_done / point.seconds
                        room = max(budget_seconds - elapsed, 0.0)
                        chunk = min(chunk, max(FIRST_SLICE_STEPS, int(room * rate)))
                taken = point.advance(self.system, chunk, self.rule)
                if point.done:
                    point.measure(self.system, self.reference, self.energy0, self.energy_scale)
                    self._work_done += self._weights[self._next]
                    self._next += 1
                    finished.append(point)
                    if budget_seconds is None and max_steps is None:
                        break
            if left is not None:
                left -= taken
                if left <= 0:
                    break
        return finished

    def run(self) -> StudyResult:
        """Run every remaining point; return :meth:`result`."""
        while not self.done:
            self.run_next()
        return self.result()

    # -- the result -----------------------------------------------------------------------
    def result(self) -> StudyResult:
        """The points finished so far, per integrator, with the fit over them."""
        methods = {name: self.methods[name] for name in self.integrators}
        done = [p for p in self._points if p.done]
        return StudyResult(self.system, self.duration, self.reference, methods, done)


def study(
    system: str | System,
    integrators: MethodEntry | Iterable[MethodEntry] | None = None,
    *,
    duration: float,
    dt_max: float | None = None,
    dt_min: float | None = None,
    points: int = DEFAULT_POINTS,
    steps: Iterable[int] | None = None,
    **params: object,
) -> StudyResult:
    """Run a whole :class:`Study` in one call and return its :class:`StudyResult`."""
    return Study(
        system,
        integrators,
        duration=duration,
        dt_max=dt_max,
        dt_min=dt_min,
        points=points,
        steps=steps,
        **params,
    ).run()
