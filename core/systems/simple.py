"""One-dimensional bodies under a constant force: free, with true drag, or with the velocity
scaling that game engines use in place of drag."""

from __future__ import annotations

import math
from dataclasses import replace

from ..params import Param
from .base import ExactState, Matrix, System, Vector

_MASS = Param(
    "mass", 1.0, "kg", "mass", min=0.0, max=1000.0, min_open=True, label="mass", symbol="m"
)
_FORCE = Param(
    "force", 10.0, "N", "constant applied force F", min=-1e6, max=1e6, label="force", symbol="F"
)
_V0 = Param(
    "v0", 0.0, "m/s", "initial velocity", min=-1e6, max=1e6, label="initial velocity", symbol="v₀"
)


class ConstantForce(System):
    """A body pushed by a constant force, without friction.

    State: ``q = [x]`` (m), ``v = [v]`` (m/s). Equation of motion: ``m x'' = F``.
    Energy: ``K = m v^2/2`` and ``P = -F x``, so the total is conserved.
    Exact solution: ``x = x0 + v0 t + F t^2 / (2m)``.
    """

    name = "constant-force"
    title = "Constant force"
    description = "A body pushed by a constant force: m x'' = F."
    coordinates = ("x",)
    coordinate_units = ("m",)
    velocity_dependent = False
    PARAMS = (
        _MASS,
        _FORCE,
        Param(
            "x0",
            0.0,
            "m",
            "initial position",
            min=-1e6,
            max=1e6,
            label="initial position",
            symbol="x₀",
        ),
        _V0,
    )

    # set by setup() from the parameters (whose values mypy sees as Any)
    mass: float
    force: float

    def setup(self) -> None:
        self.mass, self.force = self.params["mass"], self.params["force"]
        self.accel = self.force / self.mass

    def initial_state(self) -> tuple[Vector, Vector]:
        return [self.params["x0"]], [self.params["v0"]]

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        return [self.accel], 0.0

    def scalar_forces(self, x: float, u: float, t: float) -> tuple[float, float]:
        return self.accel, 0.0

    def jacobian(self, q: Vector, v: Vector, t: float) -> tuple[Matrix, Matrix]:
        return [[0.0]], [[0.0]]

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        return 0.5 * self.mass * v[0] * v[0], -self.force * q[0]

    def energy_scale(self) -> float:
        kinetic = 0.5 * self.mass * self.params["v0"] ** 2
        # the work the force does in the first second, so a body at rest has a scale too
        return kinetic + 0.5 * self.force * self.force / self.mass or 1.0

    def kinetic_bound(self, t: float) -> float:
        # the potential -F x has no floor: the body keeps gaining speed, |v| <= |v0| + |a| t
        speed: float = abs(self.params["v0"]) + abs(self.accel) * t
        return 0.5 * self.mass * speed * speed  # (not **, which raises on overflow)

    @property
    def recommended_dt(self) -> float:
        return 0.01

    def exact(self, t: float) -> ExactState:
        x0, v0 = self.params["x0"], self.params["v0"]
        return [x0 + v0 * t + 0.5 * self.accel * t * t], [v0 + self.accel * t]

    def drawing(self, q: Vector) -> dict[str, list[float]]:
        return {"x": [q[0]], "y": [0.0]}


class Drag(System):
    """A body pushed by a constant force against drag, true or as game engines model it.

    State: ``q = [x]`` (m, starting at 0), ``v = [v]`` (m/s). Model ``linear`` is true linear
    drag, ``m x'' = F - m k v``, with terminal velocity ``F/(m k)`` and dissipated power
    ``m k v^2``. The engine models integrate ``m x'' = F`` and, after every step, rescale the
    velocity the way each engine applies its "linear damping" k:

    - ``unity``: ``v <- v max(0, 1 - k dt)`` (Unity's rigid bodies, as commonly written);
    - ``physx``: ``v <- v max(0, 1 - k dt)`` (PhysX, which Unity 3D uses: the same factor);
    - ``box2d``: ``v <- v / (1 + k dt)`` (Box2D, Unity 2D);
    - ``bullet``: ``v <- v (1 - k)^dt`` (Bullet; here k is the fraction of velocity lost per
      second and must be below 1).

    With a constant force these give terminal velocities that depend on dt (see
    :meth:`terminal_velocity`). The kinetic energy removed by a rescaling is added to the
    dissipated work, so the total stays conserved. The exact solution is true linear drag
    (for bullet with the decay rate ``-ln(1 - k)`` its damping amounts to).
    """

    name = "drag"
    title = "Drag"
    description = "A body pushed by a constant force against drag, true or game-engine style."
    coordinates = ("x",)
    coordinate_units = ("m",)
    ENGINE_MODELS = ("unity", "physx", "box2d", "bullet")
    PARAMS = (
        _MASS,
        _FORCE,
        Param(
            "drag",
            0.5,
            "1/s",
            "drag rate k (for bullet: fraction of velocity lost per s)",
            min=0.0,
            max=1000.0,
            label="drag rate",
            symbol="k",
        ),
        _V0,
        Param(
            "model",
            "linear",
            doc="linear: true drag force -m k v; unity, physx, box2d, "
            "bullet: that engine's velocity scaling after each step",
            kind="choice",
            choices=("linear",) + ENGINE_MODELS,
            label="model",
        ),
    )

    # set by setup() from the parameters (whose values mypy sees as Any)
    mass: float
    force: float
    k: float
    model: str

    def setup(self) -> None:
        p = self.params
        self.mass, self.force, self.k = p["mass"], p["force"], p["drag"]
        self.model = p["model"]
        self.accel = self.force / self.mass
        if self.model == "bullet" and self.k >= 1.0:
            drag = next(q for q in self.PARAMS if q.name == "drag")
            raise replace(drag, max=1.0, max_open=True).error(
                self.k, owner="drag", note="for model bullet: fraction of velocity lost per second"
            )
        # decay rate of the exact solution
        self.rate = -math.log1p(-self.k) if self.model == "bullet" else self.k
        self.velocity_dependent = self.model == "linear" and self.k != 0.0
        if self.model != "linear":
            self.post_step = self._engine_damping

    def initial_state(self) -> tuple[Vector, Vector]:
        return [0.0], [self.params["v0"]]

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        a, p = self.scalar_forces(q[0], v[0], t)
        return [a], p

    def scalar_forces(self, x: float, u: float, t: float) -> tuple[float, float]:
        if self.model == "linear":
            return self.accel - self.k * u, self.mass * self.k * u * u
        return self.accel, 0.0

    def jacobian(self, q: Vector, v: Vector, t: float) -> tuple[Matrix, Matrix]:
        return [[0.0]], [[-self.k if self.model == "linear" else 0.0]]

    def velocity_factor(self, dt: float) -> float:
        """The engine's velocity scaling per step of length dt."""
        k, model = self.k, self.model
        if model in ("unity", "physx"):
            return max(0.0, 1.0 - k * dt)
        if model == "box2d":
            return 1.0 / (1.0 + k * dt)
        if model == "bullet":
            # (float ** float is Any to mypy: a negative base would give a complex number)
            factor: float = (1.0 - k) ** dt
            return factor
        return math.exp(-k * dt)

    def _engine_damping(self, v: Vector, w: float, dt: float) -> tuple[Vector, float]:
        factor = self.velocity_factor(dt)
        u = v[0]
        scaled = u * factor
        return [scaled], w + 0.5 * self.mass * (u * u - scaled * scaled)

    def terminal_velocity(self, dt: float | None = None) -> float:
        """Closed-form terminal velocity.

        True drag: ``F/(m k)``. An engine model with a velocity update ``v + a dt`` followed by
        the factor ``r`` has the fixed point ``v* = a dt r / (1 - r)``: ``(F/(m k))(1 - k dt)``
        for unity and physx, exactly ``F/(m k)`` for box2d, and
        ``a dt r / (1 - r)`` with ``r = (1 - k)^dt`` for bullet.
        """
        if self.model == "linear" or dt is None:
            return self.accel / self.rate
        r = self.velocity_factor(dt)
        return self.accel * dt * r / (1.0 - r)

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        return 0.5 * self.mass * v[0] * v[0], -self.force * q[0]

    def energy_scale(self) -> float:
        if self.rate > 0:
            terminal = self.accel / self.rate
            return 0.5 * self.mass * max(terminal * terminal, self.params["v0"] ** 2) or 1.0
        return 0.5 * self.force * self.force / self.mass or 1.0

    def kinetic_bound(self, t: float) -> float:
        v0: float = abs(self.params["v0"])
        if self.rate > 0.0:
            # the speed relaxes monotonically from v0 to the terminal velocity F/(m k); the
            # engines' terminal velocities a dt r/(1 - r) lie below it
            speed = max(v0, abs(self.accel) / self.rate)
        else:
            speed = v0 + abs(self.accel) * t
        return 0.5 * self.mass * speed * speed  # (not **, which raises on overflow)

    @property
    def recommended_dt(self) -> float:
        return 0.01

    def exact(self, t: float) -> ExactState:
        v0, rate, accel = self.params["v0"], self.rate, self.accel
        z = rate * t
        # (1 - exp(-rate t)) / rate without cancellation for small rate t
        relaxed = -math.expm1(-z) / rate if rate > 0.0 else t
        # x = v0 relaxed + (F/(m rate)) (t - relaxed): for small rate t the terminal velocity is
        # huge and t - relaxed tiny, so the second term is a t^2 g(z) with
        # g(z) = (z - 1 + exp(-z))/z^2 = sum (-z)^n/(n + 2)! summed directly
        if z < 0.5:
            term, series = 0.5, 0.0
            for n in range(18):
                series += term
                term *= -z / (n + 3)
            creep = accel * t * t * series
        else:
            creep = accel / rate * (t - relaxed)
        return [v0 * relaxed + creep], [v0 * math.exp(-z) + accel * relaxed]

    def drawing(self, q: Vector) -> dict[str, list[float]]:
        return {"x": [q[0]], "y": [0.0]}
