"""The damped harmonic oscillator: a mass on a linear spring with a linear dashpot."""

from __future__ import annotations

import math

from ..params import Param
from .base import System
from .pendulum import _nice_step


class Spring(System):
    """A mass on a spring with viscous damping.

    State: ``q = [x]`` (m, from the spring's rest length), ``v = [v]`` (m/s).
    Equation of motion: ``m x'' = -k x - b x'``. Energy: ``K = m v^2/2``, ``P = k x^2/2``;
    the dashpot dissipates power ``b v^2``.
    Exact solution, with ``gamma = b/(2m)``, ``s^2 = gamma^2 - k/m``:
    ``x = exp(-gamma t) (x0 C(t) + (v0 + gamma x0) S(t))`` where ``C = cos, S = sin(wt)/w``
    (underdamped, ``w^2 = -s^2``), ``C = cosh, S = sinh(st)/s`` (overdamped) and
    ``C = 1, S = t`` (critically damped).
    """

    name = "spring"
    title = "Damped spring"
    description = "A mass on a spring with a viscous damper: m x'' = -k x - b x'."
    coordinates = ("x",)
    coordinate_units = ("m",)
    PARAMS = (
        Param("mass", 1.0, "kg", "mass", min=0.0, max=1000.0, min_open=True),
        Param("stiffness", 15.0, "N/m", "spring constant k", min=0.0, max=1e6, min_open=True),
        Param("damping", 0.1, "N s/m", "damping coefficient b", min=0.0, max=1e6),
        Param("x0", 1.0, "m", "initial displacement", min=-100.0, max=100.0),
        Param("v0", 0.0, "m/s", "initial velocity", min=-1000.0, max=1000.0),
    )

    def setup(self):
        p = self.params
        self.mass, self.k, self.b = p["mass"], p["stiffness"], p["damping"]
        self.k_over_m = self.k / self.mass
        self.b_over_m = self.b / self.mass
        self.gamma = 0.5 * self.b_over_m
        self.s2 = self.gamma * self.gamma - self.k_over_m
        self.velocity_dependent = self.b != 0.0

    @property
    def damping_ratio(self):
        return self.b / (2.0 * math.sqrt(self.k * self.mass))

    def initial_state(self):
        return [self.params["x0"]], [self.params["v0"]]

    def forces(self, q, v, t):
        a, p = self.scalar_forces(q[0], v[0], t)
        return [a], p

    def scalar_forces(self, x, u, t):
        return -self.k_over_m * x - self.b_over_m * u, self.b * u * u

    def jacobian(self, q, v, t):
        return [[-self.k_over_m]], [[-self.b_over_m]]

    def energy(self, q, v):
        return 0.5 * self.mass * v[0] * v[0], 0.5 * self.k * q[0] * q[0]

    def energy_scale(self):
        kinetic, potential = self.energy(*self.initial_state())
        # a 1 m amplitude stands in when the spring starts at rest in equilibrium
        return kinetic + potential or 0.5 * self.k

    @property
    def recommended_dt(self):
        return _nice_step(2.0 * math.pi / math.sqrt(self.k_over_m) / 100.0)

    def exact(self, t):
        x0, v0 = self.initial_state()
        x0, v0 = x0[0], v0[0]
        gamma, s2 = self.gamma, self.s2
        if s2 < 0.0:
            w = math.sqrt(-s2)
            c, s = math.cos(w * t), math.sin(w * t) / w
        elif s2 > 0.0:
            r = math.sqrt(s2)
            c, s = math.cosh(r * t), math.sinh(r * t) / r
        else:
            c, s = 1.0, t
        amplitude = v0 + gamma * x0
        decay = math.exp(-gamma * t)
        x = decay * (x0 * c + amplitude * s)
        # d/dt C = s2 * S and d/dt S = C in all three regimes
        u = -gamma * x + decay * (x0 * s2 * s + amplitude * c)
        return [x], [u]

    def drawing(self, q):
        return {"x": [q[0]], "y": [0.0]}
