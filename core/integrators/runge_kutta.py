"""Explicit Runge-Kutta methods: Butcher tableaux held as validated data, one stage loop."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol, TypeAlias

from .base import Integrator

if TYPE_CHECKING:
    from ..systems.base import Dynamics, ScalarForces, State, Vector

#: the flat state ``q + v + [w]`` of n coordinates that the stages work on
FlatState: TypeAlias = list[float]
#: a stage derivative in the flat layout ``v + a + [p]`` (a tuple ``(v, a, p)`` on the
#: one-degree-of-freedom fast path)
Stage: TypeAlias = Sequence[float]
#: per stage, the ``(j, a_ij)`` pairs with ``a_ij != 0`` (:meth:`ButcherTableau.sparse_rows`)
SparseRows: TypeAlias = tuple[tuple[tuple[int, float], ...], ...]

_TOLERANCE = 1e-14  # tableau consistency checks (exact rationals in floating point)


def format_number(x: float | Fraction) -> str:
    """A tableau entry for a message: a small fraction as ``p/q``, anything else to 12 digits."""
    if isinstance(x, float):  # floats have no denominator; ints and fractions have one
        return f"{x:.12g}"
    denominator = x.denominator
    if denominator == 1:
        return str(x.numerator)
    if denominator < 10_000:
        return f"{x.numerator}/{denominator}"
    return f"{float(x):.12g}"


def tableau_problems(
    c: Sequence[float | Fraction],
    a: Sequence[Sequence[float | Fraction]],
    b: Sequence[float | Fraction],
    tolerance: float = _TOLERANCE,
) -> list[str]:
    """What makes ``c``, ``a``, ``b`` not an explicit Runge-Kutta method, one message per
    problem, each starting with the entry it names (empty when the tableau is valid).

    The rules: ``a`` is square with one row per entry of ``c`` and strictly lower triangular
    (explicit), each row of ``a`` sums to its ``c`` (every stage is a consistent
    approximation at its time), and ``b`` sums to one (consistency: first order at least).
    Sums are compared within ``tolerance`` times the size of their terms (at least 1): 0 for
    exact rationals (``fractions.Fraction``).
    """
    s = len(c)
    problems = []
    if s == 0:
        return ["c: is empty, expected one entry per stage (at least one)"]
    if len(a) != s:
        problems.append(f"a: has {len(a)} rows, expected {s} (one per entry of c)")
    if len(b) != s:
        problems.append(f"b: has {len(b)} entries, expected {s} (one per entry of c)")
    for i, row in enumerate(a[:s]):
        if len(row) != s:
            problems.append(f"a[{i}]: has {len(row)} entries, expected {s} (a is square)")
            continue
        upper = [j for j in range(i, s) if row[j] != 0]
        if upper:
            problems.append(
                f"a[{i}][{upper[0]}]: must be 0 (explicit methods: a strictly lower triangular)"
            )
            continue
        total = sum(row)
        # relative to the row's size: rounded entries of a large row sum with a larger error
        limit = tolerance * max(1.0, math.fsum(abs(float(x)) for x in row))
        # abs() of a Fraction | float is one of them, but mypy joins them to object
        if abs(total - c[i]) > limit:  # type: ignore[operator]
            entry = f"a[{i}][{i - 1}]" if i else "c[0]"
            problems.append(
                f"{entry}: row {i} of a sums to {format_number(total)} but "
                f"c[{i}] = {format_number(c[i])}"
            )
    total = sum(b)
    limit = tolerance * max(1.0, math.fsum(abs(float(x)) for x in b))
    if len(b) == s and abs(total - 1) > limit:  # type: ignore[operator]  # (as above)
        problems.append(
            f"b: sums to {format_number(total)}, expected 1 (consistency: "
            "every method is at least first order)"
        )
    return problems


@dataclass(frozen=True)
class ButcherTableau:
    """An explicit Runge-Kutta method ``c``, ``a`` (strictly lower triangular), ``b``.

    Validated when built by :func:`tableau_problems`: ``a`` is square and strictly lower
    triangular, each row of ``a`` sums to its ``c``, and ``b`` sums to one (consistency: first
    order at least).
    """

    c: tuple[float, ...]
    a: tuple[tuple[float, ...], ...]
    b: tuple[float, ...]
    #: second weights of an embedded pair (error estimate), or None
    b_error: tuple[float, ...] | None = None
    #: how far the sums may miss (a user's tableau, rounded to floats, is checked exactly
    #: before it gets here, and allowed the rounding of its entries)
    tolerance: float = field(default=_TOLERANCE, compare=False, repr=False)

    def __post_init__(self) -> None:
        s = len(self.c)
        problems = tableau_problems(self.c, self.a, self.b, self.tolerance)
        if problems:
            raise ValueError(f"Butcher tableau: {problems[0]}")
        if self.b_error is not None and (
            len(self.b_error) != s or abs(sum(self.b_error) - 1.0) > self.tolerance
        ):
            raise ValueError("Butcher tableau: embedded weights must have s entries summing to 1")

    @property
    def stages(self) -> int:
        return len(self.c)

    def sparse_rows(self) -> SparseRows:
        """Per stage, the ``(j, a_ij)`` pairs with ``a_ij != 0``."""
        return tuple(tuple((j, x) for j, x in enumerate(row) if x != 0.0) for row in self.a)


@dataclass(frozen=True)
class EmbeddedTableau(ButcherTableau):
    """An embedded pair: a :class:`ButcherTableau` whose second weights ``b_error`` (the
    error estimate) are given, as an adaptive method needs them."""

    b_error: tuple[float, ...] = field()  # required (the base class defaults to None)


EULER = ButcherTableau(c=(0.0,), a=((0.0,),), b=(1.0,))
MIDPOINT = ButcherTableau(c=(0.0, 0.5), a=((0.0, 0.0), (0.5, 0.0)), b=(0.0, 1.0))
HEUN = ButcherTableau(c=(0.0, 1.0), a=((0.0, 0.0), (1.0, 0.0)), b=(0.5, 0.5))
RK4 = ButcherTableau(
    c=(0.0, 0.5, 0.5, 1.0),
    a=((0.0, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0), (0.0, 0.5, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0)),
    b=(1 / 6, 1 / 3, 1 / 3, 1 / 6),
)
# Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19-26: 5th-order solution, 4th-order
# embedded estimate
DORMAND_PRINCE = EmbeddedTableau(
    c=(0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0),
    a=(
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        (1 / 5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        (3 / 40, 9 / 40, 0.0, 0.0, 0.0, 0.0, 0.0),
        (44 / 45, -56 / 15, 32 / 9, 0.0, 0.0, 0.0, 0.0),
        (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0.0, 0.0, 0.0),
        (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0.0, 0.0),
        (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0),
    ),
    b=(35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0),
    b_error=(5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40),
)


def rk_stages(
    tableau_rows: SparseRows,
    c: Sequence[float],
    forces: Callable[[Vector, Vector, float], tuple[Vector, float]],
    y: FlatState,
    n: int,
    t: float,
    h: float,
    first: Stage | None = None,
) -> list[Stage]:
    """Evaluate the stages of an explicit RK method on ``q' = v, v' = a, w' = p``.

    ``y`` is the flat state ``q + v + [w]`` (n coordinates); returns the stage derivatives,
    each flat in the same layout ``v + a + [p]``. ``first``, when given, is the first stage
    already known (the derivative at ``t, y``; "first same as last" pairs reuse it).
    """
    ks: list[Stage] = []
    for i, row in enumerate(tableau_rows):
        if i == 0 and first is not None:
            ks.append(first)
            continue
        yi = y
        for j, coef in row:
            hc = h * coef
            yi = [x + hc * d for x, d in zip(yi, ks[j])]
        vi = yi[n : 2 * n]
        a, p = forces(yi[:n], vi, t + c[i] * h)
        vi.extend(a)
        vi.append(p)
        ks.append(vi)
    return ks


def rk_stages_scalar(
    tableau_rows: SparseRows,
    c: Sequence[float],
    forces: ScalarForces,
    y: FlatState,
    t: float,
    h: float,
    first: Stage | None = None,
) -> list[Stage]:
    """:func:`rk_stages` for one degree of freedom on plain floats: ``y = (x, v, w)``,
    ``forces`` the system's ``scalar_forces(x, v, t) -> (a, p)``; the same arithmetic in the
    same order, without building lists."""
    x, u = y[0], y[1]
    ks: list[Stage] = []
    for i, row in enumerate(tableau_rows):
        if i == 0 and first is not None:
            ks.append(first)
            continue
        xi, ui = x, u
        for j, coef in row:
            hc = h * coef
            k = ks[j]
            xi += hc * k[0]
            ui += hc * k[1]
        a, p = forces(xi, ui, t + c[i] * h)
        ks.append((ui, a, p))
    return ks


class StageFunction(Protocol):
    """``stages(rows, c, y, t, h, first=None) -> ks``: :func:`rk_stages` or
    :func:`rk_stages_scalar` bound to a system's forces (see :func:`stage_function`)."""

    def __call__(
        self,
        rows: SparseRows,
        c: Sequence[float],
        y: FlatState,
        t: float,
        h: float,
        first: Stage | None = None,
    ) -> list[Stage]: ...


def stage_function(system: Dynamics, n: int) -> StageFunction:
    """``stages(rows, c, y, t, h, first)`` for ``system``: plain floats for one degree of
    freedom when the system offers ``scalar_forces``, flat lists otherwise."""
    if n == 1 and system.scalar_forces is not None:
        scalar = system.scalar_forces  # its own name: a function of another type than forces
        return lambda rows, c, y, t, h, first=None: rk_stages_scalar(
            rows, c, scalar, y, t, h, first
        )
    forces = system.forces
    return lambda rows, c, y, t, h, first=None: rk_stages(rows, c, forces, y, n, t, h, first)


def rk_combine(weights: Sequence[float], ks: Sequence[Stage], y: FlatState, h: float) -> FlatState:
    """``y + h sum(b_i k_i)`` on the flat state."""
    for bi, k in zip(weights, ks):
        if bi != 0.0:
            hb = h * bi
            y = [x + hb * d for x, d in zip(y, k)]
    return y


def flat(q: Vector, v: Vector, w: float) -> FlatState:
    return [*q, *v, w]


def unflat(y: FlatState, n: int) -> State:
    return y[:n], y[n : 2 * n], y[2 * n]


class RungeKutta(Integrator):
    """An explicit Runge-Kutta method defined by ``tableau``."""

    tableau: ButcherTableau = EULER

    def __init__(self) -> None:
        super().__init__()
        self._rows = self.tableau.sparse_rows()

    def step(self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float) -> State:
        n, y = len(q), flat(q, v, w)
        ks = stage_function(system, n)(self._rows, self.tableau.c, y, t, dt)
        return unflat(rk_combine(self.tableau.b, ks, y, dt), n)


class ExplicitEuler(RungeKutta):
    name = "euler"
    title = "Explicit Euler"
    order = 1
    evaluations = 1
    tableau = EULER
    description = (
        "x += v dt; v += a(x) dt, both from the old state: first order, "
        "gains energy on every oscillator"
    )
    reference = "L. Euler, Institutionum calculi integralis (1768)"


class Midpoint(RungeKutta):
    name = "midpoint"
    title = "Explicit midpoint"
    order = 2
    evaluations = 2
    tableau = MIDPOINT
    description = "Euler half step, then a full step with the midpoint slope: second order"
    reference = "Hairer, Norsett & Wanner, Solving ODEs I (1993), II.1"


class Heun(RungeKutta):
    name = "heun"
    title = "Heun"
    order = 2
    evaluations = 2
    tableau = HEUN
    description = "Trapezoidal predictor-corrector (explicit RK2): second order"
    reference = "K. Heun, Z. Math. Phys. 45 (1900) 23-38"


class ClassicRK4(RungeKutta):
    name = "rk4"
    title = "Runge-Kutta 4"
    order = 4
    evaluations = 4
    tableau = RK4
    description = (
        "Classic four-stage Runge-Kutta: fourth order, not symplectic: slowly loses "
        "energy on oscillators at large dt"
    )
    reference = "W. Kutta, Z. Math. Phys. 46 (1901) 435-453"
