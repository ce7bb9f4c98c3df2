"""Normal contact laws of the discrete element method and their damping calibration.

A contact between two balls with overlap ``d`` (m) and approach rate ``d'`` (m/s) pushes them
apart with ``f = k d + c d'`` (linear law, ``c`` in N s/m) or ``f = k d^1.5 + c d^0.25 d'``
(Hertz law with damping proportional to ``d^0.25``, Tsuji et al., Powder Technol. 71 (1992)),
clamped at zero so that a contact never pulls.

For both laws the collision of two free bodies is self-similar: with ``c = a sqrt(m_eff k)``
(``m_eff = m1 m2 / (m1 + m2)``, the reduced mass) the coefficient of restitution depends on the
dimensionless damping ``a`` alone, not on masses, stiffness or impact speed. The textbook
formula ``a = -2 ln(e) / sqrt(ln(e)^2 + pi^2)`` for the linear law assumes a dashpot that may
pull at the end of the contact; with the force clamped at zero the contact ends earlier and the
ball leaves faster. :func:`damping_for_restitution` therefore solves the clamped collision and
inverts ``e(a)`` numerically, so that the restitution a simulation measures is the one asked for.
"""

from __future__ import annotations

import math
from functools import lru_cache

LAWS = ("linear", "hertz")

# dimensionless integration step of the calibration collision (the contact lasts ~3.2)
_CALIBRATION_STEP = 2e-3


def _accel(law: str, a: float, x: float, u: float) -> float:
    """Dimensionless relative acceleration (m_eff = k = 1) at overlap x, approach rate u."""
    if law == "linear":
        force = x + a * u
    else:
        root = math.sqrt(x) if x > 0.0 else 0.0
        force = x * root + a * math.sqrt(root) * u
    return -force if force > 0.0 else 0.0


def _force_positive(law: str, a: float, x: float, u: float) -> bool:
    return x > 0.0 and _accel(law, a, x, u) < 0.0


def collision_restitution(law: str, a: float) -> float:
    """Coefficient of restitution of one clamped collision with dimensionless damping ``a``.

    Integrates ``x'' = -f(x, x')`` from ``x = 0, x' = 1`` with RK4 until the force vanishes,
    locating that instant by bisection on the last step. ``e = -x'`` then, since no force acts
    afterwards.
    """
    if law not in LAWS:
        raise ValueError(f"contact law: got {law!r}, expected one of {', '.join(LAWS)}")
    if a == 0.0:
        return 1.0
    h = _CALIBRATION_STEP
    x, u = 0.0, 1.0

    def rk4(x: float, u: float, h: float) -> tuple[float, float]:
        k1x, k1u = u, _accel(law, a, x, u)
        k2x, k2u = u + 0.5 * h * k1u, _accel(law, a, x + 0.5 * h * k1x, u + 0.5 * h * k1u)
        k3x, k3u = u + 0.5 * h * k2u, _accel(law, a, x + 0.5 * h * k2x, u + 0.5 * h * k2u)
        k4x, k4u = u + h * k3u, _accel(law, a, x + h * k3x, u + h * k3u)
        return (
            x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            u + h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u),
        )

    # first step: the force is zero at x = 0, so step once before testing the sign
    x, u = rk4(x, u, h)
    for _ in range(10_000_000):
        nx, nu = rk4(x, u, h)
        if not _force_positive(law, a, nx, nu):
            # the force ends inside this step: bisect the step length
            lo, hi = 0.0, h
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                mx, mu = rk4(x, u, mid)
                if _force_positive(law, a, mx, mu):
                    lo = mid
                else:
                    hi = mid
            return -rk4(x, u, hi)[1]
        x, u = nx, nu
    raise RuntimeError("contact calibration did not finish")  # pragma: no cover


def textbook_damping(law: str, restitution: float) -> float:
    """The closed-form damping of a linear dashpot allowed to pull (a starting guess)."""
    if restitution >= 1.0:
        return 0.0
    log_e = math.log(restitution)
    return -2.0 * log_e / math.sqrt(log_e * log_e + math.pi * math.pi)


#: smallest restitution offered: the clamped collision approaches e -> 0 only slowly as the
#: damping grows, and very heavy damping makes the contact too stiff to integrate explicitly
MIN_RESTITUTION = 0.05


@lru_cache(maxsize=256)
def damping_for_restitution(law: str, restitution: float) -> float:
    """Dimensionless damping ``a`` with ``collision_restitution(law, a) == restitution``.

    ``e(a)`` decreases monotonically; the root is bracketed by doubling and found with the
    Illinois variant of regula falsi to a relative tolerance of 1e-9 in e.
    """
    if not MIN_RESTITUTION <= restitution <= 1.0:
        raise ValueError(
            f"restitution: got {restitution!r}, expected a number in [{MIN_RESTITUTION}, 1]"
        )
    if restitution == 1.0:
        return 0.0
    lo, f_lo = 0.0, 1.0 - restitution
    hi = max(textbook_damping(law, restitution), 1e-3)
    f_hi = collision_restitution(law, hi) - restitution
    while f_hi > 0.0:
        lo, f_lo = hi, f_hi
        hi *= 2.0
        f_hi = collision_restitution(law, hi) - restitution
    side = 0
    for _ in range(100):
        mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        f_mid = collision_restitution(law, mid) - restitution
        if abs(f_mid) <= 1e-9 * restitution or hi - lo <= 1e-13 * hi:
            return mid
        if f_mid > 0.0:
            lo, f_lo = mid, f_mid
            if side == 1:
                f_hi *= 0.5
            side = 1
        else:
            hi, f_hi = mid, f_mid
            if side == -1:
                f_lo *= 0.5
            side = -1
    return mid
