"""Convergence and work-precision studies: error at a fixed time against step size and cost.

A study runs every selected integrator on one system for a duration ``T`` at a geometric
sequence of time steps ``dt = T/n`` (``n`` integers, so every run ends exactly at ``T``) and
measures, at ``T``:

* the **error** against a reference: the exact solution where the system has one, otherwise
  ``rk45`` at a tight tolerance (the result says which). ``error`` is the full-state error
  ``max(|q - q_ref| / Q, |v - v_ref| / V)`` (infinity norms), relative to the largest
  coordinate ``Q`` and velocity ``V`` along the reference trajectory, so that positions and
  velocities weigh alike whatever their units, and a phase error cannot hide at an instant
  where the position error happens to cross zero. ``position_error`` is ``|q - q_ref|``
  alone, in the coordinates' units;
* the **energy error** ``|E(T) - E(0)| / E_scale``, with ``E = kinetic + potential +
  dissipated`` (conserved by the exact dynamics, so it needs no reference) and ``E_scale`` the
  system's characteristic energy;
* the **cost**: force evaluations, counted by wrapping the system's force functions in a
  counting proxy (the declared per-step figure of an integrator holds only for forces that do
  not depend on velocity, and implicit and adaptive methods vary), and wall-clock seconds of
  the stepping (which include the proxy's one extra function call per evaluation, 10 to 25 % of
  the stepping time in CPython; the count and the stepping are one run, so a view pays for each
  point once).

**The fit.** The slope is the least-squares slope of ``log(error)`` against ``log(dt)`` over
the asymptotic range, which is found in two passes; every point left out carries a reason.

1. Points that cannot follow the power law are set aside: a run that failed or whose state is
   no longer finite or whose energy ran away (``diverged``); an error of order one or more
   (``unstable``: the method has lost all accuracy, typically beyond its stability limit, and
   its error no longer shrinks like ``dt^p``); an error below the **floor** (``roundoff``;
   an error that stops shrinking is called so only within ``ROUNDOFF_NEAR`` times it):
   ``ROUNDOFF_FACTOR * eps * sqrt(n)`` for ``n`` steps (a random walk of rounding errors,
   with a margin of ten: :func:`roundoff_floor`), raised to ``REFERENCE_MARGIN`` times the
   reference's own estimated error when the reference is numerical (it is compared with one
   ten times looser).
2. Among the rest (consecutive in ``dt``), the asymptotic range is the **finest** run of at
   least ``MIN_FIT_POINTS`` consecutive points whose local slopes (between neighbours) all lie
   within ``SLOPE_BAND`` of their median and exceed ``MIN_SLOPE``, extended towards larger
   ``dt`` as far as that still holds. Finest, because the asymptotic regime is ``dt -> 0``: an
   error ``C4 dt^4 + C2 dt^2`` (Yoshida's method under damping) follows slope 4 at large
   steps and 2 in the limit, and 2 is the order. A local slope that flattens below
   ``MIN_SLOPE`` at small ``dt`` is rounding taking over (``roundoff``); points at larger ``dt``
   than the range are ``pre-asymptotic``.

The fitted slope is compared with the order that holds for the system (the declared order, or
with velocity-dependent forces ``order_velocity_dependent``: Yoshida's fourth order drops to
second); a difference of more than ``ORDER_MISMATCH`` is reported in the run's ``note``. No
order is compared where none can show: on a system that is not smooth (``System.not_smooth``,
the cradle's contacts: the slope is then the error's trend as dt -> 0), or when finer points
leave the fitted power law above rounding.

A view runs a study in slices: :class:`Study` plans the points and :meth:`Study.run_next`
advances them within a budget of seconds or steps, so a page stays responsive; :meth:`Study.result`
gives the points finished so far, fitted. :func:`study` runs it all in one call.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .custom import (
    Method,
    MethodEntry,
    make_integrator,
    method_entries,
    method_info,
    method_name,
    resolve_method,
)
from .divergence import STEP_FAILURES, DivergenceRule, failure_reason
from .integrators import INTEGRATORS, ConvergenceError, Integrator
from .integrators.adaptive import RK45
from .params import positive_time
from .systems import System, get_system
from .systems.base import Dynamics, Jacobian, PostStep, Vector

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
#: studied errors below this many times the reference's estimated error are "roundoff"
REFERENCE_MARGIN = 100.0
#: the margin of the rounding floor over ``eps sqrt(n)`` (see :func:`roundoff_floor`): wide
#: enough for the rounding measured, narrow enough that a clean power law keeps its finest
#: points (RK4 on the pendulum at 2,000 steps: truncation 2.8e-12 = 290 eps sqrt(n))
ROUNDOFF_FACTOR = 10.0
#: errors (relative) at or above this are "unstable": no accuracy left
UNSTABLE_ERROR = 1.0
#: local slopes of a power-law range stay this close to their median: a slope that drifts
#: (higher-order terms fading) then biases the fit by about half of it at most
SLOPE_BAND = 0.15
#: below this local slope the error has stopped shrinking with dt (rounding, a floor)
MIN_SLOPE = 0.5
MIN_FIT_POINTS = 3
#: an error that stops shrinking is rounding only within this factor of the rounding floor;
#: higher up it is something else (a system that is not smooth, a numerical reference)
ROUNDOFF_NEAR = 100.0
#: orders are integers: a fitted slope this far from the declared one is a different order
ORDER_MISMATCH = 0.5
#: defaults: dt from DT_MAX_FACTOR x the system's recommended step down to 1/DT_MIN_DIVISOR
DT_MAX_FACTOR, DT_MIN_DIVISOR, DEFAULT_POINTS = 10.0, 20.0, 12
POINTS_RANGE = (3, 60)
#: most steps one study may take over all its points (a guard against a mistyped dt)
MAX_STUDY_STEPS = 50_000_000
#: steps of the first slice of a point run against a time budget; later slices are sized
#: from the measured speed to fill what is left of the budget (few: an implicit method takes
#: 14-22 force evaluations a step on the cradle, and the page's worker gives a few ms a tick)
FIRST_SLICE_STEPS = 16
EPS = sys.float_info.epsilon

#: the integrators studied when nobody chose: every fixed-step one
FIXED_STEP_INTEGRATORS = tuple(name for name in INTEGRATORS if name != REFERENCE_METHOD)


def roundoff_floor(steps: int, reference_error: float = 0.0) -> float:
    """The error below which a run of ``steps`` steps is rounding, not truncation: rounding
    errors of about ``eps`` per step and coordinate, relative to the motion's size, add up
    like a random walk (``eps sqrt(n)``; measured: 0.2 to 1.3 of it for RK4 on the pendulum and
    the spring at 2,000 to 20,000 steps), with a margin of ``ROUNDOFF_FACTOR``; or the
    numerical reference's own error times ``REFERENCE_MARGIN``, if larger. Rounding that
    grows faster (an exactly integrated system, ~0.1 eps n) shows as a local slope below
    ``MIN_SLOPE`` and is told apart by the fit."""
    return max(ROUNDOFF_FACTOR * EPS * math.sqrt(steps), REFERENCE_MARGIN * reference_error)


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


def plan_steps(duration: float, dt_max: float, dt_min: float, points: int) -> list[int]:
    """Step counts ``n`` (increasing, so ``dt = T/n`` decreasing) in a geometric sequence from
    the first ``dt <= dt_max`` to the last ``dt >= dt_min``: ``points`` distinct integers."""
    n_lo = max(1, math.ceil(duration / dt_max - 1e-9))
    n_hi = math.floor(duration / dt_min + 1e-9)
    if n_hi - n_lo + 1 < points:
        raise ValueError(
            f"'points': got {points}, expected at most {max(n_hi - n_lo + 1, 0)}"
            f" distinct steps T/n between dt_min = {dt_min:g} s and dt_max = "
            f"{dt_max:g} s for duration {duration:g} s (widen the range)"
        )
    ratio = (n_hi / n_lo) ** (1.0 / (points - 1))
    steps: list[int] = []
    for i in range(points):
        n = n_lo if i == 0 else max(round(n_lo * ratio**i), steps[-1] + 1)
        steps.append(n)
    # the rounding may push the tail beyond n_hi: pull it back, keeping the counts distinct
    steps[-1] = n_hi
    for i in range(points - 2, -1, -1):
        steps[i] = min(steps[i], steps[i + 1] - 1)
    return steps


def _points_value(points: object) -> int:
    low, high = POINTS_RANGE
    if isinstance(points, bool) or not isinstance(points, int) or not low <= points <= high:
        raise ValueError(f"'points': got {points!r}, expected an integer in [{low}, {high}]")
    return points


def _step_bounds(
    system: System, duration: float, dt_max: float | None, dt_min: float | None
) -> tuple[float, float]:
    """Validated ``(dt_max, dt_min)``, defaults filled in."""
    recommended = system.recommended_dt
    dt_max = (
        min(duration, DT_MAX_FACTOR * recommended)
        if dt_max is None
        else positive_time("dt_max", dt_max)
    )
    if dt_max > duration:
        raise ValueError(
            f"'dt_max': got {dt_max!r}, expected a number of seconds in "
            f"(0, {duration:g}] (at most the duration)"
        )
    dt_min = (
        min(dt_max, recommended) / DT_MIN_DIVISOR
        if dt_min is None
        else positive_time("dt_min", dt_min)
    )
    if not dt_min < dt_max:
        raise ValueError(
            f"'dt_min': got {dt_min!r}, expected a number of seconds in "
            f"(0, {dt_max:g}) (below dt_max)"
        )
    if not duration / dt_min <= MAX_STUDY_STEPS:  # also catches an overflow to inf
        raise ValueError(
            f"'dt_min': got {dt_min!r}, expected at least "
            f"{duration / MAX_STUDY_STEPS:g} s (duration / {MAX_STUDY_STEPS} "
            "steps)"
        )
    return dt_max, dt_min


def _steps_value(steps: Iterable[int]) -> list[int]:
    try:
        counts = sorted(set(steps))
    except TypeError:
        counts = None
    if (
        not counts
        or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts)
        or len(counts) > POINTS_RANGE[1]
    ):
        raise ValueError(
            f"'steps': got {steps!r}, expected 1 to {POINTS_RANGE[1]} step counts, integers >= 1"
        )
    return counts


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


def fit_power_law(
    dts: Sequence[float],
    errors: Sequence[float],
    floors: Sequence[float],
    not_smooth: str | None = None,
) -> tuple[float | None, tuple[int, int] | None, list[str | None]]:
    """Fit ``error ~ C dt^p`` over the asymptotic range (see the module's docstring).

    ``dts`` decreasing; ``floors`` the per-point roundoff floor. Returns ``(slope, (i, j),
    reasons)``: the slope (None if fewer than ``MIN_FIT_POINTS`` points follow a power law),
    the index range of the fit (inclusive) and a reason (or None) per point.

    ``not_smooth`` (why the system is not smooth): there is no power law of a method's order
    to find; the slope is the least-squares trend over the finer half of the points with some
    accuracy left and above the rounding floor (at least ``MIN_FIT_POINTS``).
    """
    reasons: list[str | None] = [None] * len(dts)
    for i, (e, floor) in enumerate(zip(errors, floors)):
        if not math.isfinite(e):
            reasons[i] = "diverged"
        elif e >= UNSTABLE_ERROR:
            reasons[i] = f"unstable: error {e:.3g} >= {UNSTABLE_ERROR:g} (no accuracy left)"
        elif e <= floor:
            reasons[i] = f"roundoff: error {e:.3g} below the floor {floor:.3g}"
    if not_smooth is not None:
        return _trend(dts, errors, reasons)
    # runs of consecutive candidates
    best: tuple[int, int] | None = None
    i = 0
    while i < len(dts):
        if reasons[i] is not None:
            i += 1
            continue
        j = i
        while j + 1 < len(dts) and reasons[j + 1] is None:
            j += 1
        segment = _finest_power_law(dts, errors, i, j)
        if segment is not None and (best is None or segment[0] > best[0]):
            best = segment
        i = j + 1
    if best is None:
        for k, reason in enumerate(reasons):
            if reason is None:
                reasons[k] = (
                    f"no power law: fewer than {MIN_FIT_POINTS} consecutive points follow one"
                )
        return None, None, reasons
    lo, hi = best
    slope = _least_squares_slope(dts[lo : hi + 1], errors[lo : hi + 1])
    for k in range(len(dts)):
        if reasons[k] is not None or lo <= k <= hi:
            continue
        if k > hi:
            local = _local_slope(dts, errors, k - 1, k)
            if local < MIN_SLOPE and errors[k] <= ROUNDOFF_NEAR * floors[k]:
                reasons[k] = (
                    f"roundoff: the error stopped following the power law (local slope {local:.2f})"
                )
            else:
                reasons[k] = f"off the power law: local slope {local:.2f}, fitted {slope:.2f}"
        else:
            local = _local_slope(dts, errors, k, k + 1)
            reasons[k] = f"pre-asymptotic: local slope {local:.2f}, fitted {slope:.2f}"
    return slope, (lo, hi), reasons


def _trend(
    dts: Sequence[float], errors: Sequence[float], reasons: list[str | None]
) -> tuple[float | None, tuple[int, int] | None, list[str | None]]:
    """The error's trend as dt -> 0 on a system that is not smooth (see
    :func:`fit_power_law`): the least-squares slope over the finer half (at least
    ``MIN_FIT_POINTS``) of the points without a reason; the coarser ones are pre-asymptotic."""
    kept = [k for k, reason in enumerate(reasons) if reason is None]
    if len(kept) < MIN_FIT_POINTS:
        for k in kept:
            reasons[k] = f"too few points for a trend: {len(kept)}, a trend needs {MIN_FIT_POINTS}"
        return None, None, reasons
    finer = kept[-max(MIN_FIT_POINTS, (len(kept) + 1) // 2) :]
    slope = _least_squares_slope([dts[k] for k in finer], [errors[k] for k in finer])
    for k in kept:
        if k < finer[0]:
            reasons[k] = "pre-asymptotic: the trend is taken over the finer half of the points"
    return slope, (finer[0], finer[-1]), reasons


def _local_slope(dts: Sequence[float], errors: Sequence[float], i: int, j: int) -> float:
    return math.log(errors[i] / errors[j]) / math.log(dts[i] / dts[j])


def _follows(slopes: list[float]) -> bool:
    ordered = sorted(slopes)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else 0.5 * (ordered[middle - 1] + ordered[middle])
    return median > MIN_SLOPE and all(
        abs(s - median) <= SLOPE_BAND and s > MIN_SLOPE for s in slopes
    )


def _finest_power_law(
    dts: Sequence[float], errors: Sequence[float], first: int, last: int
) -> tuple[int, int] | None:
    """The finest run of >= MIN_FIT_POINTS points in ``first..last`` whose local slopes follow
    one power law, extended towards larger dt while they still do; None if there is none."""
    slopes = [_local_slope(dts, errors, k, k + 1) for k in range(first, last)]
    need = MIN_FIT_POINTS - 1  # local slopes in a run of MIN_FIT_POINTS points
    for end in range(len(slopes), need - 1, -1):
        start = end - need
        if not _follows(slopes[start:end]):
            continue
        while start > 0 and _follows(slopes[start - 1 : end]):
            start -= 1
        return first + start, first + end
    return None


def _least_squares_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


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
        return StudyResult(self, [p for p in self._points if p.done])


class StudyRun:
    """One integrator's points, coarse to fine, and the fitted slope over its asymptotic range."""

    def __init__(
        self,
        integrator: str,
        points: list[StudyPoint],
        floors: list[float],
        info: dict[str, Any] | None = None,
        not_smooth: str | None = None,
    ) -> None:
        info = info or method_info(integrator)
        self.integrator = integrator
        #: declared or computed order that applies to the system (with velocity-dependent
        #: forces, the order that holds then); None for code that declares none
        self.order = info["order"]
        undamped = info.get("undamped_order", self.order)
        #: why the order compared is not the method's headline one, or None
        self.order_note = (
            None
            if undamped == self.order
            else f"order {self.order} with velocity-dependent forces ({undamped} without)"
        )
        #: declared force evaluations per step (the least, for a count that varies) and how
        #: they vary, or None; the diagrams use the counted ``evaluations``
        self.declared_evaluations = info["evaluations"]
        self.declared_evaluations_note = info.get("evaluations_note")
        self.dt = [p.dt for p in points]
        self.steps = [p.steps for p in points]
        self.error = [p.error for p in points]
        self.position_error = [p.position_error for p in points]
        self.energy_error = [p.energy_error for p in points]
        self.evaluations = [p.evaluations for p in points]
        self.seconds = [p.seconds for p in points]
        self.slope, fit, reasons = fit_power_law(self.dt, self.error, floors, not_smooth)
        self.excluded = [
            f"diverged: {p.failure}" if p.failure is not None else reason
            for p, reason in zip(points, reasons)
        ]
        self.slope_range = None if fit is None else [self.dt[fit[1]], self.dt[fit[0]]]
        #: the points the slope is taken over
        self.fit_points = 0 if fit is None else sum(r is None for r in self.excluded)
        #: the error stops following the power law at finer steps, above rounding: the slope
        #: of the coarser points is no order
        self.leaves_power_law = (
            fit is not None
            and self.slope is not None
            and any(
                r is not None
                and r.startswith("off the power law")
                and abs(_local_slope(self.dt, self.error, k - 1, k) - self.slope) > ORDER_MISMATCH
                for k, r in enumerate(self.excluded)
                if k > fit[1]
            )
        )
        #: None when there is no slope, else whether it agrees with the declared order
        self.order_matches: bool | None = None
        self.note: str | None = None
        if not_smooth is not None:
            # the method's order rests on smooth forces: there is none to compare with
            self.note = f"the system is not smooth: {not_smooth}; no order to compare with"
            if self.slope is not None:
                self.note += (
                    f"; {self.slope:.2f} is the error's trend over the {self.fit_points} finest "
                    "points, not a method's order"
                )
        elif self.slope is None:
            if points and all(r is not None and r.startswith("roundoff") for r in reasons):
                self.note = (
                    "every error is at the roundoff floor: exact for this system, no slope to fit"
                )
            else:
                self.note = (
                    f"no power-law range: a fit needs {MIN_FIT_POINTS} consecutive points "
                    "that follow one, and fewer do; the slope is not fitted"
                )
        elif self.leaves_power_law:
            self.note = (
                f"slope {self.slope:.2f} over {self.fit_points} points only: the error "
                f"leaves the power law at finer steps, above rounding; no order to compare with"
            )
        elif self.order is None:
            self.note = f"fitted slope {self.slope:.2f}; the method declares no order"
        else:
            self.order_matches = abs(self.slope - self.order) <= ORDER_MISMATCH
            if not self.order_matches:
                which = "declared order" if self.order_note is None else "order that applies,"
                self.note = f"fitted slope {self.slope:.2f} differs from the {which} {self.order}"
                if self.order_note is not None:
                    self.note += f" ({self.order_note})"

    def to_dict(self) -> dict[str, Any]:
        def finite(values: list[float]) -> list[float | None]:
            return [x if math.isfinite(x) else None for x in values]

        return {
            "integrator": self.integrator,
            "order": self.order,
            "order_note": self.order_note,
            "dt": self.dt,
            "steps": self.steps,
            "error": finite(self.error),
            "position_error": finite(self.position_error),
            "energy_error": finite(self.energy_error),
            "evaluations": self.evaluations,
            "declared_evaluations": self.declared_evaluations,
            "declared_evaluations_note": self.declared_evaluations_note,
            "seconds": self.seconds,
            "excluded": self.excluded,
            "slope": self.slope,
            "slope_range": self.slope_range,
            "fit_points": self.fit_points,
            "order_matches": self.order_matches,
            "note": self.note,
        }


class StudyResult:
    """What a study found: the reference used and one :class:`StudyRun` per integrator."""

    def __init__(self, study: Study, points: list[StudyPoint]) -> None:
        self.system = study.system
        self.duration = study.duration
        self.reference = study.reference.describe()
        self.runs: list[StudyRun] = []
        for name in study.integrators:
            own = [p for p in points if p.integrator == name]
            floors = [roundoff_floor(p.steps, study.reference.error) for p in own]
            info = method_info(study.methods[name], study.system.velocity_dependent)
            self.runs.append(StudyRun(name, own, floors, info, study.system.not_smooth))

    def run(self, integrator: str) -> StudyRun:
        for run in self.runs:
            if run.integrator == integrator:
                return run
        raise ValueError(
            f"integrator: {integrator!r} is not part of this study; studied: "
            f"{', '.join(r.integrator for r in self.runs)}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system.name,
            "params": self.system.params,
            "duration": self.duration,
            "reference": self.reference,
            "error_measure": "max(|q - q_ref| / Q, |v - v_ref| / V) at T, Q and V the "
            "largest |q| and |v| along the reference",
            "energy_error_measure": "|E(T) - E(0)| / E_scale, E = kinetic + potential + dissipated",
            "not_smooth": self.system.not_smooth,
            "runs": [run.to_dict() for run in self.runs],
        }


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
