"""The damped harmonic oscillator: a mass on a linear spring with a linear dashpot."""

from __future__ import annotations

import math

from ..params import Param
from .base import ExactState, Matrix, SceneGeometry, System, Vector
from .pendulum import _nice_step

#: the drawn block's width and the spring's drawn rest length, in amplitudes (the model
#: itself has neither: x is the displacement from rest); at full compression the block
#: stays clear of the wall
BLOCK_WIDTH = 0.4
REST_LENGTH = 1.9


class Spring(System):
    """A mass on a spring with viscous damping.

    State: ``q = [x]`` (m, from the spring's rest length), ``v = [v]`` (m/s).
    Equation of motion: ``m x'' = -k x - b x'``. Energy: ``K = m v^2/2``, ``P = k x^2/2``;
    the dashpot dissipates power ``b v^2``.
    Exact solution, with ``gamma = b/(2m)``, ``s^2 = gamma^2 - k/m``:
    underdamped (``w^2 = -s^2 > 0``), ``x = exp(-gamma t) (x0 cos(wt) + (v0 + gamma x0)
    sin(wt)/w)``; overdamped (``r^2 = s^2 > 0``), the sum of two decaying exponentials with
    rates ``l1 = r - gamma = -(k/m)/(gamma + r)`` and ``l2 = -(gamma + r)``,
    ``x = (x0 (exp(l1 t) + exp(l2 t)) + (v0 + gamma x0)(exp(l1 t) - exp(l2 t))/r) / 2``;
    critically damped, ``x = exp(-gamma t) (x0 + (v0 + gamma x0) t)``.
    """

    name = "spring"
    title = "Damped spring"
    description = "A mass on a spring with a viscous damper: m x'' = -k x - b x'."
    coordinates = ("x",)
    coordinate_units = ("m",)
    PARAMS = (
        Param(
            "mass", 1.0, "kg", "mass", min=0.0, max=1000.0, min_open=True, label="mass", symbol="m"
        ),
        Param(
            "stiffness",
            15.0,
            "N/m",
            "spring constant k",
            min=0.0,
            max=1e6,
            min_open=True,
            label="stiffness",
            symbol="k",
        ),
        Param(
            "damping",
            0.1,
            "N·s/m",
            "damping coefficient b",
            min=0.0,
            max=1e6,
            label="damping",
            symbol="b",
        ),
        Param(
            "x0",
            1.0,
            "m",
            "initial displacement",
            min=-100.0,
            max=100.0,
            label="initial position",
            symbol="x₀",
        ),
        Param(
            "v0",
            0.0,
            "m/s",
            "initial velocity",
            min=-1000.0,
            max=1000.0,
            label="initial velocity",
            symbol="v₀",
        ),
    )

    # set by setup() from the parameters (whose values mypy sees as Any)
    mass: float
    k: float
    b: float

    def setup(self) -> None:
        p = self.params
        self.mass, self.k, self.b = p["mass"], p["stiffness"], p["damping"]
        self.k_over_m = self.k / self.mass
        self.b_over_m = self.b / self.mass
        self.gamma = 0.5 * self.b_over_m
        self.s2 = self.gamma * self.gamma - self.k_over_m
        self.velocity_dependent = self.b != 0.0

    @property
    def damping_ratio(self) -> float:
        return self.b / (2.0 * math.sqrt(self.k * self.mass))

    def initial_state(self) -> tuple[Vector, Vector]:
        return [self.params["x0"]], [self.params["v0"]]

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        a, p = self.scalar_forces(q[0], v[0], t)
        return [a], p

    def scalar_forces(self, x: float, u: float, t: float) -> tuple[float, float]:
        return -self.k_over_m * x - self.b_over_m * u, self.b * u * u

    def jacobian(self, q: Vector, v: Vector, t: float) -> tuple[Matrix, Matrix]:
        return [[-self.k_over_m]], [[-self.b_over_m]]

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        return 0.5 * self.mass * v[0] * v[0], 0.5 * self.k * q[0] * q[0]

    def energy_scale(self) -> float:
        kinetic, potential = self.energy(*self.initial_state())
        # a 1 m amplitude stands in when the spring starts at rest in equilibrium
        return kinetic + potential or 0.5 * self.k

    @property
    def recommended_dt(self) -> float:
        return _nice_step(2.0 * math.pi / math.sqrt(self.k_over_m) / 100.0)

    def exact(self, t: float) -> ExactState:
        q0, u0 = self.initial_state()
        x0, v0 = q0[0], u0[0]
        gamma, s2 = self.gamma, self.s2
        if s2 < 0.0:
            w = math.sqrt(-s2)
            c, s = math.cos(w * t), math.sin(w * t) / w
            amplitude = v0 + gamma * x0
            decay = math.exp(-gamma * t)
            x = decay * (x0 * c + amplitude * s)
            # d/dt cos(wt) = -w^2 sin(wt)/w and d/dt (sin(wt)/w) = cos(wt)
            u = -gamma * x + decay * (amplitude * c - x0 * w * w * s)
            return [x], [u]
        # Overdamped and critically damped: x = A exp(l1 t) + B exp(l2 t) with the slow and
        # fast rates l1 = r - gamma = -(k/m)/(gamma + r) (no cancellation when r ~ gamma)
        # and l2 = -(gamma + r). Factoring out exp(l1 t) and writing E = exp(-2 r t):
        # x = exp(l1 t) (x0 E + (v0 - l2 x0) S), v = exp(l1 t) (v0 E + l1 (v0 - l2 x0) S)
        # with S = (1 - E)/(2r) (-> t at critical damping). No cosh or sinh of r t, whose
        # product with exp(-gamma t) overflows long before the motion has decayed.
        r = self._overdamped_rate()
        slow, fast = -self.k_over_m / (gamma + r), -(gamma + r)
        fast_decay = math.exp(-2.0 * r * t)
        span = -math.expm1(-2.0 * r * t) / (2.0 * r) if r > 0.0 else t
        mixed = (v0 - fast * x0) * span
        decay = math.exp(slow * t)
        return [decay * (x0 * fast_decay + mixed)], [decay * (v0 * fast_decay + slow * mixed)]

    def _overdamped_rate(self) -> float:
        """``r = sqrt(gamma^2 - k/m)``, without overflow of ``gamma^2`` for huge b/m."""
        gamma = self.gamma
        if self.s2 <= 0.0:
            return 0.0
        if math.isfinite(self.s2):
            return math.sqrt(self.s2)
        ratio = math.sqrt(self.k_over_m) / gamma
        return gamma * math.sqrt((1.0 - ratio) * (1.0 + ratio))

    def drawing(self, q: Vector) -> dict[str, list[float]]:
        return {"x": [q[0]], "y": [0.0]}

    def amplitude(self) -> float:
        """Largest displacement (m) of the exact motion: ``sqrt(2 E / k)`` with E the initial
        mechanical energy, which damping only lowers (1 m for a spring at rest)."""
        kinetic, potential = self.energy(*self.initial_state())
        energy = kinetic + potential
        return math.sqrt(2.0 * energy / self.k) if energy > 0.0 else 1.0

    def scene_geometry(self) -> SceneGeometry:
        amplitude = self.amplitude()
        half = 0.5 * BLOCK_WIDTH * amplitude
        return SceneGeometry(
            shape="rect",
            body_width=2.0 * half,
            body_height=2.0 * half,
            bounds=(-amplitude - half, amplitude + half, -half, half),
            wall=-REST_LENGTH * amplitude,
        )
