"""Newton's cradle by the discrete element method."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ..contact import LAWS, MIN_RESTITUTION, damping_for_restitution
from ..params import Param
from .base import SceneGeometry, System, Vector
from .pendulum import GRAVITY, _nice_step

#: impact speed below which the contact time is not estimated from it (m/s)
MIN_IMPACT_SPEED = 1e-6
#: smallest lift angle the energy scale is computed from (rad)
MIN_SCALE_ANGLE = 0.01


class Cradle(System):
    """A row of balls, each hanging on its own string, colliding through soft contacts.

    State: ``q = [theta_0, ..., theta_{n-1}]`` (rad, each string's angle from the vertical),
    ``v = [omega_0, ...]`` (rad/s). Ball i hangs from the pivot ``(i (2r + gap), 0)``; its centre
    is at ``(x_i, y_i) = (pivot_i + L sin theta_i, -L cos theta_i)``. Strings are rigid (angle
    coordinates, not stiff springs).

    Neighbours i, i+1 touch when their overlap ``d = 2r - |p_{i+1} - p_i|`` is positive; the
    contact pushes them apart along the line of centres with ``f = k d + c d'`` (``linear``)
    or ``f = k d^1.5 + c d^0.25 d'`` (``hertz``), clamped at zero (a contact never pulls).
    ``c = a(e) sqrt(m_eff k)`` with the reduced mass ``m_eff = m_i m_{i+1}/(m_i + m_{i+1})`` and
    the dimensionless damping ``a(e)`` calibrated so that a collision has restitution e
    (:mod:`integrator_lab.core.contact`).

    Equations of motion: ``m_i L^2 theta_i'' = -m_i g L sin theta_i + F_i . (L cos theta_i,
    L sin theta_i)`` with ``F_i`` the sum of the contact forces on ball i.
    Energy: kinetic ``sum m_i L^2 omega_i^2 / 2``; potential ``sum m_i g L (1 - cos theta_i)``
    plus the contact energy ``k d^2/2`` (linear) or ``2 k d^2.5 / 5`` (hertz); the dissipated
    power of a contact is ``(f - f_elastic) d'``.
    """

    name = "cradle"
    title = "Newton's cradle"
    # the force switches on at first touch and is clamped at zero when the dashpot would
    # pull; Hertz's k d^1.5 + c d^0.25 d' has unbounded derivatives at d = 0
    not_smooth = "contacts switch on and off (a force clamped at zero, Hertz's d^1.5 law)"
    description = "Balls on strings colliding through soft, damped contacts (DEM)."
    PARAMS = (
        Param(
            "balls",
            5,
            "",
            "number of balls",
            kind="int",
            min=2,
            max=10,
            label="number of balls",
            symbol="N",
        ),
        Param(
            "lifted",
            1,
            "",
            "how many of the leftmost balls start pulled out",
            kind="int",
            min=0,
            max=10,
            label="balls lifted",
        ),
        Param(
            "angle",
            0.5,
            "rad",
            "how far the lifted balls are pulled out to the left",
            min=0.0,
            max=1.5,
            label="lift angle",
            symbol="θ₀",
        ),
        Param(
            "length",
            0.3,
            "m",
            "string length",
            min=0.0,
            max=10.0,
            min_open=True,
            label="string length",
            symbol="L",
        ),
        Param(
            "radius",
            0.02,
            "m",
            "ball radius",
            min=0.0,
            max=1.0,
            min_open=True,
            label="ball radius",
            symbol="r",
        ),
        Param(
            "mass",
            0.1,
            "kg",
            "mass of each ball",
            min=0.0,
            max=100.0,
            min_open=True,
            label="ball mass",
            symbol="m",
        ),
        Param(
            "mass_ratio",
            1.0,
            "",
            "mass of each lifted ball relative to the others",
            min=0.1,
            max=10.0,
            label="lifted mass ratio",
        ),
        Param(
            "stiffness",
            2e4,
            "N/m¹·⁵ or N/m",
            "contact stiffness k (N/m linear, N/m^1.5 hertz)",
            min=0.0,
            max=1e12,
            min_open=True,
            label="contact stiffness",
            symbol="k",
        ),
        Param(
            "restitution",
            0.95,
            "",
            "coefficient of restitution e of one collision",
            min=MIN_RESTITUTION,
            max=1.0,
            label="restitution",
            symbol="e",
        ),
        Param(
            "gap",
            0.003,
            "m",
            "gap between neighbouring balls at rest",
            min=0.0,
            max=0.1,
            label="gap",
        ),
        Param(
            "contact",
            "hertz",
            doc="normal contact law: linear k d or hertz k d^1.5",
            kind="choice",
            choices=LAWS,
            label="contact law",
        ),
        GRAVITY,
    )

    # set by setup() from the parameters (whose values mypy sees as Any)
    n: int
    length: float
    radius: float
    gravity: float
    k: float
    law: str
    masses: list[float]
    damping: list[float]

    def __init__(self, **params: object) -> None:
        super().__init__(**params)

    def setup(self) -> None:
        p = self.params
        self.n = n = p["balls"]
        # one coordinate per ball: per instance, as the number of balls is a parameter
        self.coordinates = tuple(f"theta{i}" for i in range(n))
        self.coordinate_units = ("rad",) * n
        if p["lifted"] > n:
            lifted = next(q for q in self.PARAMS if q.name == "lifted")
            raise replace(lifted, min=0, max=n).error(
                p["lifted"], owner="cradle", note="at most 'balls'"
            )
        self.length, self.radius, self.gravity = p["length"], p["radius"], p["gravity"]
        self.k, self.law = p["stiffness"], p["contact"]
        self.hertz = self.law == "hertz"
        self.masses = [p["mass"] * (p["mass_ratio"] if i < p["lifted"] else 1.0) for i in range(n)]
        self.spacing = 2.0 * self.radius + p["gap"]
        self.pivots = [i * self.spacing for i in range(n)]
        a = damping_for_restitution(self.law, p["restitution"])
        self.damping = []  # dashpot coefficient of each contact pair i, i+1
        for i in range(n - 1):
            m1, m2 = self.masses[i], self.masses[i + 1]
            self.damping.append(a * math.sqrt(m1 * m2 / (m1 + m2) * self.k))
        self.velocity_dependent = any(c != 0.0 for c in self.damping)
        self.g_over_l = self.gravity / self.length
        self.inv_ml = [1.0 / (m * self.length) for m in self.masses]  # 1/(m L) per ball

    def initial_state(self) -> tuple[Vector, Vector]:
        p = self.params
        return [-p["angle"] if i < p["lifted"] else 0.0 for i in range(self.n)], [0.0] * self.n

    def _contacts(
        self, q: Vector, v: Vector
    ) -> Iterator[tuple[int, float, float, float, float, list[float], list[float]]]:
        """Yield ``(i, overlap, approach rate, nx, ny, sines, cosines)`` for every touching
        pair (the sines and cosines of every angle, computed once for all pairs)."""
        length, pivots, two_r = self.length, self.pivots, 2.0 * self.radius
        sines = [math.sin(t) for t in q]
        cosines = [math.cos(t) for t in q]
        for i in range(self.n - 1):
            dx = pivots[i + 1] - pivots[i] + length * (sines[i + 1] - sines[i])
            if dx >= two_r:
                continue  # the balls hang side by side: the horizontal gap alone separates them
            dy = length * (cosines[i] - cosines[i + 1])
            distance = math.sqrt(dx * dx + dy * dy)
            overlap = two_r - distance
            if overlap <= 0.0 or distance == 0.0:
                continue
            nx, ny = dx / distance, dy / distance
            # velocity of ball centre: L omega (cos theta, sin theta)
            dvx = length * (v[i + 1] * cosines[i + 1] - v[i] * cosines[i])
            dvy = length * (v[i + 1] * sines[i + 1] - v[i] * sines[i])
            yield i, overlap, -(dvx * nx + dvy * ny), nx, ny, sines, cosines

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        g_over_l, inv_ml, k, hertz = self.g_over_l, self.inv_ml, self.k, self.hertz
        accel = [-g_over_l * math.sin(theta) for theta in q]
        power = 0.0
        for i, overlap, rate, nx, ny, sines, cosines in self._contacts(q, v):
            if hertz:
                root = math.sqrt(overlap)
                elastic = k * overlap * root
                force = elastic + self.damping[i] * math.sqrt(root) * rate
            else:
                elastic = k * overlap
                force = elastic + self.damping[i] * rate
            if force <= 0.0:
                force = 0.0
            power += (force - elastic) * rate
            # force f n on ball i+1, -f n on ball i; generalized force F . L (cos, sin)
            j = i + 1
            accel[j] += force * (nx * cosines[j] + ny * sines[j]) * inv_ml[j]
            accel[i] -= force * (nx * cosines[i] + ny * sines[i]) * inv_ml[i]
        return accel, power

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        length, gravity = self.length, self.gravity
        kinetic = 0.0
        potential = 0.0
        for m, theta, omega in zip(self.masses, q, v):
            kinetic += 0.5 * m * length * length * omega * omega
            # 1 - cos(theta) = 2 sin^2(theta/2), which keeps its precision at small angles
            half = math.sin(0.5 * theta)
            potential += 2.0 * m * gravity * length * half * half
        for _i, overlap, *_rest in self._contacts(q, v):
            if self.hertz:
                potential += 0.4 * self.k * overlap * overlap * math.sqrt(overlap)
            else:
                potential += 0.5 * self.k * overlap * overlap
        return kinetic, potential

    def energy_scale(self) -> float:
        lifted: int = max(self.params["lifted"], 1)
        # a lift below MIN_SCALE_ANGLE counts as that much: rounding in the contact geometry
        # (~1e-30 J) must stay far below the scale that divergence is judged against
        half = math.sin(0.5 * max(self.params["angle"], MIN_SCALE_ANGLE))
        lift = 2.0 * half * half  # 1 - cos(angle), without the cancellation
        return lifted * max(self.masses) * self.gravity * self.length * lift

    def contact_time(self, speed: float | None = None) -> float:
        """Duration of a head-on collision at ``speed`` (default: the lifted balls' impact
        speed), pi sqrt(m_eff/k) for the linear law, 3.22 (m_eff/k)^0.4 speed^-0.2 for Hertz
        (undamped values)."""
        m_eff = min(
            self.masses[i] * self.masses[i + 1] / (self.masses[i] + self.masses[i + 1])
            for i in range(self.n - 1)
        )
        if not self.hertz:
            return math.pi * math.sqrt(m_eff / self.k)
        if speed is None:
            # 2 sqrt(gL) sin(angle/2) = sqrt(2gL(1 - cos angle)), without the cancellation
            angle = self.params["angle"] or 0.1
            speed = 2.0 * math.sqrt(self.gravity * self.length) * math.sin(0.5 * angle)
        # the slower the impact, the longer the contact; a vanishing speed (a tiny angle)
        # would give an infinite time, so it is floored: the swing bounds the step anyway
        speed = max(speed, MIN_IMPACT_SPEED)
        # (float ** float is Any to mypy: a negative base would give a complex number)
        duration: float = 3.218 * (m_eff / self.k) ** 0.4 * speed**-0.2
        return duration

    @property
    def recommended_dt(self) -> float:
        # resolve the contact with at least 16 steps; never coarser than 1/200 of a swing
        swing = 2.0 * math.pi * math.sqrt(self.length / self.gravity)
        return _nice_step(min(self.contact_time() / 16.0, swing / 200.0))

    def drawing(self, q: Vector) -> dict[str, list[float]]:
        length = self.length
        return {
            "x": [p + length * math.sin(t) for p, t in zip(self.pivots, q)],
            "y": [-length * math.cos(t) for t in q],
            "pivot_x": list(self.pivots),
        }

    def scene_geometry(self) -> SceneGeometry:
        length, radius = self.length, self.radius
        # the highest any ball can rise: all the initial potential energy in the lightest
        # ball (collisions only lose energy), 1 - cos(theta) <= E / (m_min g L)
        half = math.sin(0.5 * min(self.params["angle"], 0.5 * math.pi))
        lift = 2.0 * half * half * sum(self.masses[: self.params["lifted"]]) / min(self.masses)
        cos_top = max(1.0 - lift, -1.0)
        swing = length * (math.sqrt(1.0 - cos_top * cos_top) if cos_top > 0.0 else 1.0)
        return SceneGeometry(
            shape="circle",
            body_width=2.0 * radius,
            body_height=2.0 * radius,
            bounds=(
                self.pivots[0] - swing - radius,
                self.pivots[-1] + swing + radius,
                -length - radius,
                max(-length * cos_top + radius, 0.0),
            ),
            pivots=tuple((x, 0.0) for x in self.pivots),
            rod=length,
        )

    @classmethod
    def describe(cls) -> dict[str, Any]:
        out = super().describe()
        out["coordinates"] = ["theta<i> for each ball"]
        out["coordinate_units"] = ["rad"]
        return out
