"""Special functions needed by exact solutions, in pure Python.

Complete and incomplete elliptic integrals of the first kind and the Jacobi elliptic functions,
all computed with the arithmetic-geometric mean or Carlson's duplication theorem (Abramowitz &
Stegun 17.6, 16.4; Carlson, Numer. Math. 33 (1979) 1-16). The parameter is the modulus k
(not m = k^2).
"""

from __future__ import annotations

import math

_EPS = 2.2e-16


def agm(a: float, b: float) -> float:
    """Arithmetic-geometric mean of two non-negative numbers."""
    for _ in range(64):
        if abs(a - b) <= _EPS * a:
            break
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return a


def ellipk(k: float) -> float:
    """Complete elliptic integral of the first kind K(k), 0 <= k < 1."""
    if not 0.0 <= k < 1.0:
        raise ValueError(f"ellipk: modulus k must be in [0, 1), got {k!r}")
    return math.pi / (2.0 * agm(1.0, math.sqrt((1.0 - k) * (1.0 + k))))


def carlson_rf(x: float, y: float, z: float) -> float:
    """Carlson's symmetric integral R_F(x, y, z) by the duplication theorem."""
    for _ in range(100):
        mean = (x + y + z) / 3.0
        if max(abs(x - mean), abs(y - mean), abs(z - mean)) <= 1e-4 * mean:
            break
        sx, sy, sz = math.sqrt(x), math.sqrt(y), math.sqrt(z)
        lam = sx * sy + sy * sz + sz * sx
        x, y, z = 0.25 * (x + lam), 0.25 * (y + lam), 0.25 * (z + lam)
    mean = (x + y + z) / 3.0
    dx, dy = 1.0 - x / mean, 1.0 - y / mean
    dz = -(dx + dy)
    e2 = dx * dy - dz * dz
    e3 = dx * dy * dz
    # truncation error ~ (1e-4)^6: far below double precision
    return (1.0 - e2 / 10.0 + e3 / 14.0 + e2 * e2 / 24.0 - 3.0 * e2 * e3 / 44.0) / math.sqrt(mean)


def ellipf(phi: float, k: float) -> float:
    """Incomplete elliptic integral of the first kind F(phi, k) for |phi| <= pi/2."""
    s, c = math.sin(phi), math.cos(phi)
    return s * carlson_rf(c * c, (1.0 - k * s) * (1.0 + k * s), 1.0)


def jacobi(u: float, k: float) -> tuple[float, float, float]:
    """Jacobi elliptic functions (sn, cn, dn)(u, k) for 0 <= k < 1, by descending AGM."""
    if k == 0.0:
        return math.sin(u), math.cos(u), 1.0
    a, b, c = 1.0, math.sqrt((1.0 - k) * (1.0 + k)), k
    a_list, c_list = [a], [c]
    for _ in range(64):
        if abs(c) <= _EPS * a:
            break
        a, b, c = 0.5 * (a + b), math.sqrt(a * b), 0.5 * (a - b)
        a_list.append(a)
        c_list.append(c)
    n = len(a_list) - 1
    phi = (2.0**n) * a_list[n] * u
    for i in range(n, 0, -1):
        phi = 0.5 * (phi + math.asin(c_list[i] / a_list[i] * math.sin(phi)))
    sn, cn = math.sin(phi), math.cos(phi)
    # dn > 0 for k < 1; this form stays accurate where cn -> 0 (odd multiples of K)
    dn = math.sqrt((1.0 - k * sn) * (1.0 + k * sn))
    return sn, cn, dn
