"""The fit of a study: which points follow the power law ``error ~ C dt^p`` and the slope
over them (:func:`fit_power_law`, the two passes the package's docstring describes), and the
rounding floor below which an error is rounding, not truncation (:func:`roundoff_floor`).

Pure arithmetic on lists of step sizes and errors: it knows nothing of systems, integrators or
references, and its thresholds (``UNSTABLE_ERROR``, ``SLOPE_BAND``, ``MIN_SLOPE``,
``MIN_FIT_POINTS``, ``ROUNDOFF_*``) are here.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

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
EPS = sys.float_info.epsilon


def roundoff_floor(steps: int, reference_error: float = 0.0) -> float:
    """The error below which a run of ``steps`` steps is rounding, not truncation: rounding
    errors of about ``eps`` per step and coordinate, relative to the motion's size, add up
    like a random walk (``eps sqrt(n)``; measured: 0.2 to 1.3 of it for RK4 on the pendulum and
    the spring at 2,000 to 20,000 steps), with a margin of ``ROUNDOFF_FACTOR``; or the
    numerical reference's own error times ``REFERENCE_MARGIN``, if larger. Rounding that
    grows faster (an exactly integrated system, ~0.1 eps n) shows as a local slope below
    ``MIN_SLOPE`` and is told apart by the fit."""
    return max(ROUNDOFF_FACTOR * EPS * math.sqrt(steps), REFERENCE_MARGIN * reference_error)


def fit_power_law(
    dts: Sequence[float],
    errors: Sequence[float],
    floors: Sequence[float],
    not_smooth: str | None = None,
) -> tuple[float | None, tuple[int, int] | None, list[str | None]]:
    """Fit ``error ~ C dt^p`` over the asymptotic range (see the package's docstring).

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
