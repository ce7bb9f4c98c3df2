"""The energy and phase plots' samples, as plain columns: one row per sample of a runner's
batch, the signed relative energy error on its signed-log axis, the exact phase-space orbit.

Pure Python and standard library only (no Bokeh): the Pyodide worker of the static page
turns every batch into these columns, as the Panel server does; the Bokeh figures that show
them live in :mod:`integrator_lab.views.figures`. :mod:`integrator_lab.views.scene`, where
these names lived before, re-exports them.

- :func:`sample_columns` turns a runner batch into the columns streamed to the energy and
  phase plots (:data:`~integrator_lab.views.shared.SAMPLE_COLUMNS`), :func:`initial_sample`
  is the state at t = 0 in those columns and :func:`sample_every` how often a runner keeps a
  sample;
- :func:`error_scale` and :func:`signed_log` say how an energy error is measured and drawn;
- :func:`exact_curve` samples the exact phase-space trajectory; :func:`wraps_angle`,
  :func:`wrap_angle` and :func:`phase_labels` are the phase plot's first coordinate.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any

from integrator_lab.core.systems.base import System
from integrator_lab.views.energy import log_value, running_log_columns
from integrator_lab.views.shared import SAMPLE_COLUMNS

#: signed relative energy errors of at most this size are drawn at 0 on the signed-log axis
#: (:func:`signed_log`): that is double rounding accumulated over a run's 1e4-1e5 steps
#: (about 1e-16 each), not the integrator's doing; every method's truncation error at the
#: recommended time steps is above it (rk45's is near 1e-9)
ERROR_FLOOR_EXPONENT = -12
ERROR_FLOOR = 10.0**ERROR_FLOOR_EXPONENT

_NAN = float("nan")


def all_finite(values: Any) -> bool:
    """Whether every item of ``values`` is a finite number (False for ``None``, or for
    anything that is not numbers)."""
    try:
        return all(math.isfinite(x) for x in values)
    except TypeError:
        return False


def error_scale(system: System, energy0: float) -> float:
    """Denominator of the relative energy error: |E(0)|, or the system's characteristic
    energy when E(0) is zero (a spring at rest)."""
    return abs(energy0) if energy0 != 0.0 else system.energy_scale()


def signed_log(error: float) -> float:
    """Where the signed-log energy axis draws a signed relative ``error``:
    ``sign(error) * max(0, log10|error| - log10(ERROR_FLOOR))``, so that a gain of 10^k goes
    up by as much as a loss of 10^k goes down, and errors within :data:`ERROR_FLOOR` sit at 0:
    ``y`` stands for ``±10 ** (|y| + ERROR_FLOOR_EXPONENT)``.
    NaN and infinities pass through (a plot skips NaN)."""
    size = abs(error)
    if not size > ERROR_FLOOR:
        return 0.0 if size == size else error  # NaN stays NaN
    if size == math.inf:
        return error
    return math.copysign(math.log10(size) - ERROR_FLOOR_EXPONENT, error)


def wrap_angle(angle: float) -> float:
    """``angle`` (rad) brought into (-pi, pi]."""
    wrapped = math.remainder(angle, 2.0 * math.pi)
    return math.pi if wrapped == -math.pi else wrapped


def wraps_angle(system: System) -> bool:
    """Whether the phase plot wraps the first coordinate: it is an angle (its unit is rad)."""
    return bool(system.coordinate_units[0] == "rad")


def phase_labels(system: System) -> tuple[str, str]:
    """Axis labels of the phase plot, symbol and unit: ``("θ (rad)", "θ̇ (rad/s)")``,
    ``("x (m)", "v (m/s)")``."""
    name, unit = system.coordinates[0], system.coordinate_units[0]
    stem = name.rstrip("0123456789")
    index = name[len(stem) :].translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    symbol = _GREEK.get(stem, stem) + index
    rate = "v" if stem == "x" else _GREEK.get(stem, stem) + "\u0307" + index
    return f"{symbol} ({unit})", f"{rate} ({unit}/s)"


_GREEK = {"theta": "θ", "phi": "φ", "psi": "ψ", "alpha": "α"}


def sample_columns(
    flat: Sequence[float],
    stride: int,
    ndof: int,
    energy0: float,
    scale: float,
    *,
    wrap: bool = False,
    previous: float | None = None,
) -> dict[str, Any]:
    """Columns :data:`SAMPLE_COLUMNS` from one integrator's flat batch (``Runner.take_batch``).

    ``q`` and ``v`` are the first coordinate and its velocity (for the phase plot); ``error``
    is the signed relative energy error ``(total - energy0) / scale`` (positive: energy
    gained, negative: lost; ``total`` includes the work dissipated, so the exact motion has
    0), ``log_gain`` / ``log_loss`` the log view's columns
    (:func:`integrator_lab.views.energy.running_log_columns`, from this batch alone: the
    worker's :class:`~integrator_lab.views.energy.EnergyView` carries the maximum over).

    With ``wrap`` (an angle), ``q`` is wrapped into (-pi, pi], and where it jumps by more
    than pi from the sample before (``previous``, the last ``q`` of the batch before, for
    the first) a copy of the sample with ``q`` NaN goes first: the phase line breaks there
    instead of crossing the plot; the energy lines just pass through the same point twice.
    """
    out = {c: array("d") for c in SAMPLE_COLUMNS}
    t_col, q_col, v_col = out["t"], out["q"], out["v"]
    k_col, p_col, d_col = out["kinetic"], out["potential"], out["dissipated"]
    total_col, err_col = out["total"], out["error"]
    base = 1 + 2 * ndof
    for row in range(0, len(flat), stride):
        q = flat[row + 1]
        total = flat[row + base + 3]
        error = (total - energy0) / scale
        copies = 1
        if wrap:
            q = wrap_angle(q)
            if previous is not None and abs(q - previous) > math.pi:
                copies = 2
            previous = q
        for copy in range(copies):
            t_col.append(flat[row])
            q_col.append(_NAN if copy < copies - 1 else q)
            v_col.append(flat[row + 1 + ndof])
            k_col.append(flat[row + base])
            p_col.append(flat[row + base + 1])
            d_col.append(flat[row + base + 2])
            total_col.append(total)
            err_col.append(error)
    gain, loss, _ = running_log_columns(err_col)
    out["log_gain"], out["log_loss"] = array("d", gain), array("d", loss)
    return out


def initial_sample(system: System) -> dict[str, Any]:
    """The :data:`SAMPLE_COLUMNS` of the state at t = 0 (one value each)."""
    q, v = system.initial_state()
    kinetic, potential, dissipated, total = system.energies(q, v, 0.0)
    return {
        "t": 0.0,
        "q": wrap_angle(q[0]) if wraps_angle(system) else q[0],
        "v": v[0],
        "kinetic": kinetic,
        "potential": potential,
        "dissipated": dissipated,
        "total": total,
        "error": 0.0,
        "log_gain": log_value(0.0),
        "log_loss": _NAN,
    }


def exact_curve(system: System, points: int = 400) -> dict[str, Any] | None:
    """The exact trajectory in phase space (first coordinate, its velocity): one period of
    a periodic motion, or until a damped motion has decayed; None without an exact solution.
    """
    if system.exact(0.0) is None:
        return None
    duration = None
    period = getattr(system, "period", None)
    if callable(period):
        duration = period()
    elif system.name == "spring":
        spring: Any = system  # a DampedSpring: its own fields
        omega = math.sqrt(spring.k_over_m)
        # decay to 1% of the amplitude, but at most 3 periods (more clutters the plot)
        decay = math.log(100.0) / spring.gamma if spring.gamma > 0.0 else math.inf
        duration = min(decay, 3.0 * 2.0 * math.pi / omega)
        points = max(points, 600)
    if not duration or not math.isfinite(duration):
        return None
    q, v = array("d"), array("d")
    for i in range(points + 1):
        state = system.exact(duration * i / points)
        if state is None or not all_finite(state[0] + state[1]):
            continue
        # a drawing needs 6 digits, and the page embeds this curve as text
        q.append(float(f"{state[0][0]:.6g}"))
        v.append(float(f"{state[1][0]:.6g}"))
    if wraps_angle(system) and q:
        q = array("d", (wrap_angle(x) for x in q))
        # a periodic orbit that goes round (a rotating pendulum) jumps once from pi to -pi:
        # start it there, so that the one line has no jump and needs no break (no NaN)
        jumps = [i for i in range(1, len(q)) if abs(q[i] - q[i - 1]) > math.pi]
        if jumps:
            k = jumps[0]
            q, v = q[k:] + q[1:k], v[k:] + v[1:k]
    return {"q": q, "v": v}


def sample_every(dt: float, per_second: float = 60.0) -> int:
    """Runner ``every`` so that the energy plots get about ``per_second`` samples per
    simulated second."""
    return max(1, int(round(1.0 / (per_second * dt))))
