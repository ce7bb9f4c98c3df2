"""Phase-space area: a ring of initial states advanced by an integrator, its enclosed area over
time relative to the start.

The exact flow of a Hamiltonian system keeps phase-space area (Liouville; for one degree of
freedom, area is the symplectic form itself), and a method is symplectic exactly when its
one-step map keeps it too (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, VI.2).
On a linear system the ring's polygon is mapped linearly, so its area changes by the
determinant of the one-step matrix in every step, to rounding: ``1 + (h omega)^2`` for
explicit Euler on an undamped spring, ``1 / (1 + (h omega)^2)`` for implicit Euler,
``|R(i h omega)|^2`` for a Runge-Kutta method, 1 for a symplectic one. On a nonlinear system
the ring deforms and the polygon of its N points only approximates the curve: the area is
then known to the polygon's resolution, which shrinks as N grows.

With several degrees of freedom the area is the sum over coordinates of the oriented areas of
the ring's projections on the planes ``(q_i, v_i)``, weighted by the masses of the cradle's
balls (the Poincare integral invariant ``sum_i m_i L^2 oint v_i dq_i``, up to a constant
factor); the ring itself lies in the plane of one coordinate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from .custom import MethodEntry, make_integrator, method_name, resolve_method
from .integrators import ConvergenceError
from .stability import linear_modes
from .systems.base import System, Vector
from .systems.cradle import Cradle

#: accepted ranges: the ring's radius relative to the state's scale, its number of points
RADIUS_RANGE = (1e-6, 1.0)
POINTS_RANGE = (8, 4096)
DEFAULT_RADIUS = 0.05
DEFAULT_POINTS = 64


def shoelace(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The oriented area of the closed polygon ``(xs[k], ys[k])`` (positive counter-clockwise)."""
    n = len(xs)
    total = 0.0
    for k in range(n):
        j = k + 1 if k + 1 < n else 0
        total += xs[k] * ys[j] - xs[j] * ys[k]
    return 0.5 * total


def weights(system: System) -> list[float]:
    """The weight of each coordinate's plane in the area: the cradle's ball masses relative to
    the first ball's (the momentum of ball i is ``m_i L^2 omega_i``), 1 otherwise."""
    if isinstance(system, Cradle):
        return [m / system.masses[0] for m in system.masses]
    return [1.0] * system.ndof


def ring_area(system: System, states: Sequence[tuple[Vector, Vector]]) -> float:
    """The weighted sum of the oriented areas of the ring's projections (see the module)."""
    total = 0.0
    for i, weight in enumerate(weights(system)):
        total += weight * shoelace([q[i] for q, _ in states], [v[i] for _, v in states])
    return total


@dataclass(frozen=True)
class RingScale:
    """Where the ring lies: the coordinate it perturbs and its radii in q and v."""

    coordinate: int
    radius_q: float
    radius_v: float


def ring_scale(system: System, radius: float = DEFAULT_RADIUS) -> RingScale:
    """The ring's radii, ``radius`` times the scale of the start state: in q the amplitude of
    the linearised motion ``sqrt(q0^2 + (v0/omega)^2)`` of the coordinate that moves most (1
    when it rests at 0), in v that times omega, with omega the slowest linearised frequency
    (1/s when the system has none)."""
    q0, v0 = system.initial_state()
    frequencies = [abs(mode.eigenvalue) for mode in linear_modes(system, q0, v0)]
    omega = min((f for f in frequencies if f > 0.0), default=1.0)
    amplitudes = [math.hypot(q, v / omega) for q, v in zip(q0, v0)]
    coordinate = max(range(len(amplitudes)), key=lambda i: amplitudes[i])
    scale = amplitudes[coordinate] or 1.0
    return RingScale(coordinate, radius * scale, radius * scale * omega)


def ring(
    system: System, radius: float = DEFAULT_RADIUS, points: int = DEFAULT_POINTS
) -> list[tuple[Vector, Vector]]:
    """``points`` states on an ellipse around the start state, counter-clockwise in the plane
    of :func:`ring_scale`'s coordinate."""
    check_ring(radius, points)
    q0, v0 = system.initial_state()
    scale = ring_scale(system, radius)
    i = scale.coordinate
    states = []
    for k in range(points):
        angle = 2.0 * math.pi * k / points
        q, v = list(q0), list(v0)
        q[i] += scale.radius_q * math.cos(angle)
        v[i] += scale.radius_v * math.sin(angle)
        states.append((q, v))
    return states


def check_ring(radius: float, points: int) -> None:
    lo, hi = RADIUS_RANGE
    if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not lo <= radius <= hi:
        raise ValueError(f"radius: got {radius!r}, expected a number in [{lo:g}, {hi:g}]")
    lo_n, hi_n = POINTS_RANGE
    if isinstance(points, bool) or not isinstance(points, int) or not lo_n <= points <= hi_n:
        raise ValueError(f"points: got {points!r}, expected an integer in [{lo_n}, {hi_n}]")


@dataclass
class AreaRun:
    """One integrator's ring over time: sample times, area ratios, and where it stopped."""

    integrator: str
    t: list[float] = field(default_factory=list)
    area_ratio: list[float] = field(default_factory=list)
    #: the time the ring left the finite numbers (or an implicit solve failed), else None
    diverged_at: float | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "integrator": self.integrator,
            "t": self.t,
            "area_ratio": self.area_ratio,
            "diverged_at": self.diverged_at,
        }


class Ring:
    """A ring of states advanced by one integrator, one fresh integrator per state (splitting
    methods carry the last force evaluation from step to step)."""

    def __init__(
        self,
        system: System,
        entry: MethodEntry,
        dt: float,
        radius: float = DEFAULT_RADIUS,
        points: int = DEFAULT_POINTS,
    ) -> None:
        resolved = resolve_method(entry)
        self.name = method_name(resolved)
        self.system, self.dt = system, dt
        self.states = ring(system, radius, points)
        self.integrators = [make_integrator(resolved) for _ in self.states]
        self.start_area = ring_area(system, self.states)
        self.time = 0.0
        self.steps = 0
        self.diverged_at: float | None = None

    def advance(self, steps: int) -> None:
        """``steps`` steps of every state (nothing once diverged)."""
        if self.diverged_at is not None or steps <= 0:
            return
        system, dt, t = self.system, self.dt, self.time
        moved = []
        try:
            for (q, v), integrator in zip(self.states, self.integrators):
                q, v, _w = integrator.advance(system, q, v, 0.0, t, dt, steps)
                if not all(math.isfinite(x) for x in (*q, *v)):
                    raise OverflowError
                moved.append((q, v))
        except (ConvergenceError, OverflowError, ZeroDivisionError, ValueError):
            self.diverged_at = t + steps * dt
            return
        self.states = moved
        self.steps += steps
        self.time = self.steps * dt

    def area_ratio(self) -> float:
        """The ring's area now over its area at the start."""
        return ring_area(self.system, self.states) / self.start_area


def area_runs(
    system: System,
    entries: Sequence[MethodEntry],
    dt: float,
    steps: int,
    radius: float = DEFAULT_RADIUS,
    points: int = DEFAULT_POINTS,
    every: int = 1,
) -> list[AreaRun]:
    """Each integrator's ring over ``steps`` steps of ``dt``, sampled every ``every`` steps
    (and at the start)."""
    if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0.0):
        raise ValueError(f"dt: got {dt!r}, expected a positive number of seconds")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps: got {steps!r}, expected an integer >= 1")
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every: got {every!r}, expected an integer >= 1")
    check_ring(radius, points)
    runs = []
    for entry in entries:
        ring_ = Ring(system, entry, dt, radius, points)
        run = AreaRun(ring_.name, [0.0], [1.0])
        done = 0
        while done < steps:
            block = min(every, steps - done)
            ring_.advance(block)
            if ring_.diverged_at is not None:
                run.diverged_at = ring_.diverged_at
                break
            ratio = ring_.area_ratio()
            if not math.isfinite(ratio):  # the states are finite, their area is not
                ring_.diverged_at = run.diverged_at = ring_.time
                break
            done += block
            run.t.append(ring_.time)
            run.area_ratio.append(ratio)
        runs.append(run)
    return runs
