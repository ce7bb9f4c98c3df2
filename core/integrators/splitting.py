"""Symplectic splitting methods: compositions of drifts (``q += h v``) and kicks
(``v += h a(q)``) given as a list of coefficients, as in REBOUND and Yoshida (1990)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeAlias

from .base import Integrator

if TYPE_CHECKING:
    from ..systems.base import Dynamics, ScalarForces, State, Vector
    from .base import Watch

#: a method: its ``(kind, coefficient)`` pairs, kinds ``"kick"`` and ``"drift"``, coefficients
#: in units of the step
KickDriftSequence: TypeAlias = tuple[tuple[str, float], ...]


def verlet_composition(weights: Iterable[float]) -> KickDriftSequence:
    """Kick-drift-kick sequence of velocity-Verlet substeps of lengths ``weights`` (in dt),
    with the adjacent half kicks of consecutive substeps merged into one."""
    sequence: list[tuple[str, float]] = []
    for weight in weights:
        half = ("kick", 0.5 * weight)
        if sequence and sequence[-1][0] == "kick":
            sequence[-1] = ("kick", sequence[-1][1] + half[1])
        else:
            sequence.append(half)
        sequence.append(("drift", weight))
        sequence.append(half)
    return tuple(sequence)


class Splitting(Integrator):
    """A composition of drifts and kicks; the sequence of ``(kind, coefficient)`` pairs
    defines the method.

    A kick evaluates the forces once at the current positions. When the system's forces do not
    depend on velocity, an evaluation at unchanged positions is reused (the last kick of a
    velocity-Verlet step serves as the first kick of the next: one evaluation per step).
    With velocity-dependent forces (damping, dashpots) a kick of length h of a second- or
    higher-order method is evaluated at the velocity predicted for the middle of the kick,
    ``v + (h/2) a_previous``, which keeps the method second order (without it the damping
    terms drop to first order); such forces break symplecticity anyway, and Yoshida's fourth
    order then reduces to second.
    """

    symplectic = True
    sequence: KickDriftSequence = ()
    predict_velocity = True
    applies_post_step = True

    def __init__(self) -> None:
        super().__init__()
        # an engine's velocity scaling (``system.post_step``) follows the step's last kick:
        # between velocity and position update for symplectic Euler, as in game engines
        self._last_kick = max(i for i, (kind, _) in enumerate(self.sequence) if kind == "kick")
        # the positions of the last force evaluation and its result ``(a, p)``; the result is
        # read only when the positions are the cached ones, so it starts as a placeholder
        self._cached_q: Vector | None = None
        self._cached: tuple[Vector, float] = ([], 0.0)
        self._a_last: Vector | None = None

    def step(self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float) -> State:
        forces = system.forces
        velocity_dependent = system.velocity_dependent
        predict = velocity_dependent and self.predict_velocity
        post = system.post_step
        time = t
        for index, (kind, coef) in enumerate(self.sequence):
            h = coef * dt
            if kind == "drift":
                q = [x + h * u for x, u in zip(q, v)]
                time += h
                continue
            if not velocity_dependent and q is self._cached_q:
                a, p = self._cached
            else:
                at = v
                if predict and self._a_last is not None:
                    half = 0.5 * h
                    at = [u + half * b for u, b in zip(v, self._a_last)]
                a, p = forces(q, at, time)
                self._cached_q, self._cached = q, (a, p)
            self._a_last = a
            v = [u + h * b for u, b in zip(v, a)]
            w += h * p
            if post is not None and index == self._last_kick:
                v, w = post(v, w, dt)
        return q, v, w

    def advance(
        self,
        system: Dynamics,
        q: Vector,
        v: Vector,
        w: float,
        t: float,
        dt: float,
        steps: int,
        watch: Watch | None = None,
    ) -> State:
        if system.scalar_forces is None or system.post_step is not None:
            return super().advance(system, q, v, w, t, dt, steps, watch)
        x, u, w = self._advance_scalar(system, q[0], v[0], w, t, dt, steps, watch)
        return [x], [u], w

    def _scaled_sequence(self, dt: float) -> list[tuple[bool, float]]:
        """``(is_kick, coefficient * dt)`` pairs, kept for the last ``dt``."""
        cached = self.__dict__.get("_scaled")
        if cached is None or cached[0] != dt:
            cached = self._scaled = (
                dt,
                [(kind == "kick", coef * dt) for kind, coef in self.sequence],
            )
        return cached[1]

    def _advance_scalar(
        self,
        system: Dynamics,
        x: float,
        u: float,
        w: float,
        t: float,
        dt: float,
        steps: int,
        watch: Watch | None,
    ) -> tuple[float, float, float]:
        """The same arithmetic as :meth:`step` on plain floats, for one-degree-of-freedom
        systems (their ``scalar_forces(x, v, t) -> (a, p)``): no lists, no per-step calls
        beyond the force evaluations (and the watch's)."""
        # advance() comes here only when system.scalar_forces is set
        forces: ScalarForces = system.scalar_forces  # type: ignore[assignment]
        velocity_dependent = system.velocity_dependent
        predict = velocity_dependent and self.predict_velocity
        a_last = None if self._a_last is None else self._a_last[0]
        sequence = self._scaled_sequence(dt)
        a = p = 0.0
        evaluated_at = None  # the position of the last evaluation (reused if unchanged)
        taken = 0
        try:
            while taken < steps:
                time = t + taken * dt
                for is_kick, h in sequence:
                    if not is_kick:
                        x += h * u
                        time += h
                        continue
                    if velocity_dependent or x != evaluated_at:
                        at = u + 0.5 * h * a_last if predict and a_last is not None else u
                        a, p = forces(x, at, time)
                        evaluated_at = x
                    a_last = a
                    u += h * a
                    w += h * p
                taken += 1
                if watch is not None and not watch([x], [u], w):
                    break
        finally:
            self.steps += taken
            if a_last is not None:
                self._a_last = [a_last]
        return x, u, w


class SymplecticEuler(Splitting):
    name = "symplectic-euler"
    title = "Symplectic Euler"
    order = 1
    evaluations = 1
    sequence = (("kick", 1.0), ("drift", 1.0))
    predict_velocity = False
    description = (
        "v += a(x) dt; x += v dt with the new v: first order, symplectic, bounded "
        "energy error; what most game engines use"
    )
    reference = "Hairer, Lubich & Wanner, Geometric Numerical Integration (2006), I.1.2"


class VelocityVerlet(Splitting):
    name = "velocity-verlet"
    title = "Velocity Verlet"
    order = 2
    evaluations = 1
    sequence = verlet_composition((1.0,))
    description = (
        "Half kick, drift, half kick: second order, symplectic, time-reversible, "
        "one force evaluation per step"
    )
    reference = "W. C. Swope et al., J. Chem. Phys. 76 (1982) 637"


class Leapfrog(Splitting):
    name = "leapfrog"
    title = "Leapfrog (position Verlet)"
    order = 2
    evaluations = 1
    sequence = (("drift", 0.5), ("kick", 1.0), ("drift", 0.5))
    description = "Half drift, kick, half drift: second order, symplectic, time-reversible"
    reference = "L. Verlet, Phys. Rev. 159 (1967) 98"


_CUBE_ROOT_2 = 2.0 ** (1.0 / 3.0)
YOSHIDA_WEIGHTS = (
    1.0 / (2.0 - _CUBE_ROOT_2),
    -_CUBE_ROOT_2 / (2.0 - _CUBE_ROOT_2),
    1.0 / (2.0 - _CUBE_ROOT_2),
)


class Yoshida4(Splitting):
    name = "yoshida4"
    title = "Yoshida 4th order"
    order = 4
    # its cancellations assume forces of the positions alone; the kicks with velocity-dependent
    # forces (predicted velocity, see Splitting) are second-order accurate, and so is the method
    order_velocity_dependent = 2
    evaluations = 3
    sequence = verlet_composition(YOSHIDA_WEIGHTS)
    description = "Three velocity-Verlet substeps (one backwards in time): fourth order, symplectic"
    reference = "H. Yoshida, Phys. Lett. A 150 (1990) 262; Forest & Ruth, Physica D 43 (1990)"
