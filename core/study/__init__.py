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

The package, one job per module:

* :mod:`.plan`: the parameters checked and the step counts planned;
* :mod:`.measure`: the reference and the points (the counting proxy, the measurements at ``T``);
* :mod:`.fit`: the power-law fit and the rounding floor, pure arithmetic;
* :mod:`.results`: each integrator's run with its slope and note, and the study's result;
* :mod:`.slices`: :class:`Study`, which runs the points in slices, and :func:`study`.

Every public name is importable from the package itself (``from integrator_lab.core.study
import Study, fit_power_law``).
"""

from __future__ import annotations

from .fit import (
    EPS,
    MIN_FIT_POINTS,
    MIN_SLOPE,
    REFERENCE_MARGIN,
    ROUNDOFF_FACTOR,
    ROUNDOFF_NEAR,
    SLOPE_BAND,
    UNSTABLE_ERROR,
    fit_power_law,
    roundoff_floor,
)
from .measure import (
    REFERENCE_ATOL,
    REFERENCE_METHOD,
    REFERENCE_PIECE_STEPS,
    REFERENCE_RTOL,
    REFERENCE_SAMPLES,
    CountingSystem,
    Reference,
    StudyPoint,
)
from .plan import (
    DEFAULT_POINTS,
    DT_MAX_FACTOR,
    DT_MIN_DIVISOR,
    FIXED_STEP_INTEGRATORS,
    MAX_STUDY_STEPS,
    POINTS_RANGE,
    plan_steps,
)
from .results import ORDER_MISMATCH, StudyResult, StudyRun
from .slices import FIRST_SLICE_STEPS, Study, study

__all__ = [
    # the plan
    "DT_MAX_FACTOR",
    "DT_MIN_DIVISOR",
    "DEFAULT_POINTS",
    "POINTS_RANGE",
    "MAX_STUDY_STEPS",
    "FIXED_STEP_INTEGRATORS",
    "plan_steps",
    # the measurements
    "REFERENCE_METHOD",
    "REFERENCE_RTOL",
    "REFERENCE_ATOL",
    "REFERENCE_SAMPLES",
    "REFERENCE_PIECE_STEPS",
    "CountingSystem",
    "Reference",
    "StudyPoint",
    # the fit
    "EPS",
    "REFERENCE_MARGIN",
    "ROUNDOFF_FACTOR",
    "UNSTABLE_ERROR",
    "SLOPE_BAND",
    "MIN_SLOPE",
    "MIN_FIT_POINTS",
    "ROUNDOFF_NEAR",
    "roundoff_floor",
    "fit_power_law",
    # the result
    "ORDER_MISMATCH",
    "StudyRun",
    "StudyResult",
    # running it
    "FIRST_SLICE_STEPS",
    "Study",
    "study",
]
