"""A study's plan: its parameters checked (``dt_max``, ``dt_min``, ``points`` or ``steps``,
each named in the ``ValueError`` of a bad value, within ``POINTS_RANGE`` and
``MAX_STUDY_STEPS``) and the step counts ``n`` (``dt = T/n``) in a geometric sequence
(:func:`plan_steps`); the defaults (``DT_MAX_FACTOR``, ``DT_MIN_DIVISOR``, ``DEFAULT_POINTS``,
``FIXED_STEP_INTEGRATORS``) are here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..integrators import INTEGRATORS
from ..params import positive_time
from ..systems import System
from .measure import REFERENCE_METHOD

#: defaults: dt from DT_MAX_FACTOR x the system's recommended step down to 1/DT_MIN_DIVISOR
DT_MAX_FACTOR, DT_MIN_DIVISOR, DEFAULT_POINTS = 10.0, 20.0, 12
POINTS_RANGE = (3, 60)
#: most steps one study may take over all its points (a guard against a mistyped dt)
MAX_STUDY_STEPS = 50_000_000

#: the integrators studied when nobody chose: every fixed-step one
FIXED_STEP_INTEGRATORS = tuple(name for name in INTEGRATORS if name != REFERENCE_METHOD)


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
