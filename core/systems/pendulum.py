"""The simple pendulum, nonlinear or in the small-angle (linear) approximation."""

from __future__ import annotations

import math

from ..params import Param
from ..special import ellipf, ellipk, jacobi
from .base import ExactState, Matrix, SceneGeometry, System, Vector

#: gravity as the pendulum and the cradle declare it
GRAVITY = Param(
    "gravity",
    9.81,
    "m/s²",
    "gravitational acceleration",
    min=0.0,
    max=100.0,
    min_open=True,
    label="gravity",
    symbol="g",
)

THETA, OMEGA = 0, 0  # index of the angle in q and of the angular velocity in v
#: radius of the drawn bob, relative to the rod's length
BOB_RADIUS = 0.09


class Pendulum(System):
    """A point mass on a massless rigid rod, without friction.

    State: ``q = [theta]`` (rad, from the downward vertical), ``v = [omega]`` (rad/s).
    Equation of motion: ``theta'' = -(g/L) sin(theta)`` (model ``nonlinear``) or
    ``theta'' = -(g/L) theta`` (model ``linear``, the small-angle approximation).
    Energy: ``K = m L^2 omega^2 / 2``; ``P = m g L (1 - cos theta)`` (nonlinear) or
    ``m g L theta^2 / 2`` (linear). Nothing is dissipated.
    Exact solution: harmonic for the linear model; for the nonlinear model in libration
    (``k^2 = sin^2(theta0/2) + omega0^2 L / 4g < 1``),
    ``sin(theta/2) = k sn(sqrt(g/L) t + u0, k)`` with period ``4 sqrt(L/g) K(k)``; in
    rotation (``k > 1``), ``theta/2 = am(k sqrt(g/L) t + u0, 1/k)``, one turn every
    ``2 sqrt(L/g) K(1/k) / k``.
    """

    name = "pendulum"
    title = "Pendulum"
    description = "A mass on a rigid rod swinging under gravity."
    coordinates = ("theta",)
    coordinate_units = ("rad",)
    velocity_dependent = False
    PARAMS = (
        Param(
            "length",
            1.0,
            "m",
            "length of the rod",
            min=0.0,
            max=100.0,
            min_open=True,
            label="rod length",
            symbol="L",
        ),
        GRAVITY,
        Param(
            "mass",
            1.0,
            "kg",
            "mass of the bob",
            min=0.0,
            max=1000.0,
            min_open=True,
            label="bob mass",
            symbol="m",
        ),
        Param(
            "theta0",
            1.0,
            "rad",
            "initial angle from the downward vertical",
            min=-math.pi,
            max=math.pi,
            label="initial angle",
            symbol="θ₀",
        ),
        Param(
            "omega0",
            0.0,
            "rad/s",
            "initial angular velocity",
            min=-100.0,
            max=100.0,
            label="initial angular velocity",
            symbol="ω₀",
        ),
        Param(
            "model",
            "nonlinear",
            doc="nonlinear: sin(theta); linear: small-angle theta",
            kind="choice",
            choices=("nonlinear", "linear"),
            label="model",
        ),
    )

    # set by setup() from the parameters (whose values mypy sees as Any)
    length: float
    mass: float
    gravity: float

    def setup(self) -> None:
        p = self.params
        self.length, self.mass = p["length"], p["mass"]
        self.gravity = p["gravity"]
        self.linear = p["model"] == "linear"
        self.w2 = self.gravity / self.length  # omega_0^2 (1/s^2)
        self._setup_exact()

    def initial_state(self) -> tuple[Vector, Vector]:
        return [self.params["theta0"]], [self.params["omega0"]]

    def fastest_state(self) -> tuple[Vector, Vector]:
        """The bottom, theta = 0: every motion but the unstable rest at the top swings or
        spins through it, and there the linearised frequency ``sqrt((g/L) cos theta)`` is
        largest, ``sqrt(g/L)`` (at the release angle it is slower, and past pi/2 a saddle that
        no swing stays at). The speed there does not enter the linearisation."""
        return [0.0], [self.params["omega0"]]

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        a, p = self.scalar_forces(q[0], v[0], t)
        return [a], p

    def scalar_forces(self, theta: float, omega: float, t: float) -> tuple[float, float]:
        if self.linear:
            return -self.w2 * theta, 0.0
        return -self.w2 * math.sin(theta), 0.0

    def jacobian(self, q: Vector, v: Vector, t: float) -> tuple[Matrix, Matrix]:
        slope = -self.w2 if self.linear else -self.w2 * math.cos(q[0])
        return [[slope]], [[0.0]]

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        m, length = self.mass, self.length
        kinetic = 0.5 * m * length * length * v[0] * v[0]
        if self.linear:
            potential = 0.5 * m * self.gravity * length * q[0] * q[0]
        else:
            half = math.sin(0.5 * q[0])  # 1 - cos(theta) = 2 sin^2(theta/2): no cancellation
            potential = 2.0 * m * self.gravity * length * half * half
        return kinetic, potential

    def energy_scale(self) -> float:
        return self.mass * self.gravity * self.length

    @property
    def recommended_dt(self) -> float:
        # 1/100 of the small-oscillation period, rounded down to 1, 2 or 5 x 10^n
        return _nice_step(2.0 * math.pi / math.sqrt(self.w2) / 100.0)

    def period(self) -> float | None:
        """Exact period (s): of the oscillation, or of one full turn of a rotating pendulum;
        None at the separatrix's energy (the motion is not periodic there)."""
        if self.linear:
            return 2.0 * math.pi / math.sqrt(self.w2)
        if self._rotation is not None:
            k, modulus, _u0, _sign = self._rotation
            return 2.0 * ellipk(modulus) / (k * math.sqrt(self.w2))
        if self._k is None:
            return None
        return 4.0 * ellipk(self._k) / math.sqrt(self.w2)

    def _setup_exact(self) -> None:
        theta0: float = self.params["theta0"]
        omega0: float = self.params["omega0"]
        #: ``(k, modulus 1/k, u0, direction)`` of a rotating pendulum, else None
        self._rotation: tuple[float, float, float, float] | None = None
        #: modulus of a libration, None for the linear model, a rotation or the separatrix
        self._k: float | None
        if self.linear:
            self._k = None
            return
        # sin^2(theta_max/2) from energy conservation
        k2 = math.sin(0.5 * theta0) ** 2 + omega0 * omega0 / (4.0 * self.w2)
        if k2 > 1.0:
            # rotation: phi = theta/2 obeys phi' = +-k sqrt(g/L) sqrt(1 - sin^2(phi)/k^2),
            # so phi = am(F(phi0, 1/k) +- k sqrt(g/L) t, 1/k)
            k = math.sqrt(k2)
            modulus = 1.0 / k
            self._rotation = (
                k,
                modulus,
                ellipf(0.5 * theta0, modulus),
                1.0 if omega0 > 0.0 else -1.0,
            )
            self._k = None
            return
        if k2 == 1.0:
            self._k = None  # the separatrix: no periodic solution
            return
        k = math.sqrt(k2)
        self._k = k
        if k == 0.0:
            self._u0 = 0.0
            return
        ratio = max(-1.0, min(1.0, math.sin(0.5 * theta0) / k))
        u = ellipf(math.asin(ratio), k)
        # cn(u0) must have the sign of omega0; sn(2K - u) = sn(u), cn(2K - u) = -cn(u)
        self._u0 = u if omega0 >= 0.0 else 2.0 * ellipk(k) - u

    def exact(self, t: float) -> ExactState:
        k: float | None  # a rotation's k, then the modulus of a libration (None if none)
        root = math.sqrt(self.w2)
        if self.linear:
            theta0, omega0 = self.params["theta0"], self.params["omega0"]
            c, s = math.cos(root * t), math.sin(root * t)
            return [theta0 * c + omega0 / root * s], [-theta0 * root * s + omega0 * c]
        if self._rotation is not None:
            k, modulus, u0, sign = self._rotation
            u = u0 + sign * k * root * t
            # am(u) = atan2(sn, cn) on [-K, K), and grows by pi every 2K (the angle is not
            # wrapped: theta counts the turns, as the integrators' angles do)
            quarter = ellipk(modulus)
            turns = math.floor((u + quarter) / (2.0 * quarter))
            sn, cn, dn = jacobi(u - 2.0 * turns * quarter, modulus)
            phi = math.atan2(sn, cn) + turns * math.pi
            return [2.0 * phi], [2.0 * sign * k * root * dn]
        k = self._k
        if k is None:
            return None
        if k == 0.0:
            return [0.0], [0.0]
        sn, cn, dn = jacobi(root * t + self._u0, k)
        half = math.asin(max(-1.0, min(1.0, k * sn)))
        # sin(theta/2) = k sn(u)  =>  theta' = 2 k sqrt(g/L) cn(u) dn(u) / cos(theta/2)
        return [2.0 * half], [2.0 * k * root * cn * dn / math.cos(half)]

    def drawing(self, q: Vector) -> dict[str, list[float]]:
        theta = q[0]
        return {"x": [self.length * math.sin(theta)], "y": [-self.length * math.cos(theta)]}

    def scene_geometry(self) -> SceneGeometry:
        # the bob stays on the circle of radius L whatever an integrator does to theta
        length = self.length
        radius = BOB_RADIUS * length
        reach = length + radius
        return SceneGeometry(
            shape="circle",
            body_width=2.0 * radius,
            body_height=2.0 * radius,
            bounds=(-reach, reach, -reach, reach),
            pivots=((0.0, 0.0),),
            rod=length,
        )


def _nice_step(raw: float) -> float:
    """Largest 1, 2 or 5 x 10^n not above ``raw``."""
    exponent = math.floor(math.log10(raw))
    base = 10.0**exponent
    for mantissa in (5.0, 2.0, 1.0):
        if mantissa * base <= raw * (1 + 1e-12):
            return float(f"{mantissa * base:.12g}")
    return float(f"{base:.12g}")
