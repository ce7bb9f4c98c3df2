"""Linear stability of any integrator: its one-step map on a linear oscillator, the stability
function of a Runge-Kutta method, the stability region in the plane of ``z = h lambda``, and a
system's linearised eigenvalues (the points ``dt lambda`` that the region judges).

**The test problem.** Every integrator of the core steps second-order systems ``q'' = a(q, v)``,
so the test problem is the linear oscillator ``q'' = -omega^2 q - 2 zeta omega q'``
(:class:`LinearOscillator`), whose eigenvalues are the conjugate pair
``lambda = omega (-zeta +/- i sqrt(1 - zeta^2))``. One step of length h from the basis states
``(1, 0)`` and ``(0, 1)`` gives the integrator's 2x2 one-step matrix M (:func:`one_step_matrix`);
the moduli of its eigenvalues decide whether repeated steps grow. A method depends on ``h``
and ``omega`` only through ``h omega`` (the problem has no other time scale), so the point
``z = h lambda`` alone fixes the matrix: ``omega h = |z|``, ``zeta = -Re z / |z|``.

**Two kinds of region.** For a Runge-Kutta method (explicit from a tableau, the implicit ones,
the adaptive pair's internal step) M is ``R(h J)`` with J the oscillator's matrix, so its
eigenvalues are ``R(z)`` and ``R(conj z)``, and the region ``|R(z)| <= 1`` is Dahlquist's, the
same for any linear system. :func:`stability_function` computes R exactly from the tableau:
``R(z) = det(I - z A + z 1 b^T) / det(I - z A)`` (equal to ``1 + z b^T (I - z A)^-1 1``), as
polynomials with rational coefficients. A splitting method (symplectic Euler, Verlet, Yoshida)
treats positions and velocities differently, so it has no scalar R: its region is the set of
points z for which the oscillator with the conjugate pair ``z, conj z`` of eigenvalues of h J
is stable (:func:`growth`): a statement about second-order systems ``q'' = -K q - C q'``, not
about ``y' = lambda y``. Both pictures agree on what matters for a mechanical system: the
point ``dt lambda`` of each of its modes, inside or outside. On the real axis the pair is a
double eigenvalue (``zeta = 1``, critical damping), and a user's Python step is assumed linear
on a linear problem (as every integrator is).

Pictures and limits: :func:`region` (boundary polylines by marching squares on
``log |growth|``), :func:`axis_limit` (how far the region reaches along the imaginary axis,
undamped oscillators, and the negative real axis, pure decay) and :func:`a_stable`.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from .custom import MethodEntry, TableauMethod, make_integrator, resolve_method
from .integrators import ConvergenceError, Integrator
from .integrators.adaptive import RK45
from .integrators.implicit import ImplicitEuler, ImplicitMidpoint
from .integrators.runge_kutta import RungeKutta
from .integrators.splitting import Splitting
from .systems.balls import Balls
from .systems.cradle import Cradle

if TYPE_CHECKING:
    from .systems.base import Matrix, System, Vector

#: a 2x2 matrix ``((m00, m01), (m10, m11))`` acting on ``(q, v)``
Matrix2: TypeAlias = tuple[tuple[float, float], tuple[float, float]]
#: polynomial coefficients, constant term first
Polynomial: TypeAlias = list[Fraction]
#: a point ``(re, im)`` of the complex plane
Point: TypeAlias = tuple[float, float]

#: a growth factor up to this much above 1 counts as 1 (rounding of the one-step matrix)
TOLERANCE = 1e-12
#: the axes are scanned in steps of this size up to SCAN_END, then at the FAR points; a stable
#: interval shorter than one scan step counts as none
SCAN_STEP = 0.01
SCAN_END = 10.0
FAR = (15.0, 20.0, 30.0, 50.0, 100.0, 1e3, 1e4, 1e6)
#: the default window of a region's picture: re from -5 to 3, im from -4 to 4, cells of 0.05
WINDOW = (-5.0, 3.0, -4.0, 4.0)
CELL = 0.05

#: tableaux ``(a, b)`` of the built-in methods that are Runge-Kutta methods without being
#: :class:`RungeKutta` subclasses (their steps solve Newton's equations instead)
IMPLICIT_TABLEAUX: dict[str, tuple[list[list[Fraction]], list[Fraction]]] = {
    ImplicitEuler.name: ([[Fraction(1)]], [Fraction(1)]),
    ImplicitMidpoint.name: ([[Fraction(1, 2)]], [Fraction(1)]),
}


# -- the test problem ---------------------------------------------------------------------------
class LinearOscillator:
    """``q'' = -omega2 q - c q'`` (unit mass): what an integrator needs of a system
    (:class:`~integrator_lab.core.systems.base.Dynamics`), nothing more. ``c`` may be negative
    (negative damping: the right half plane of z)."""

    post_step = None

    def __init__(self, omega2: float, c: float) -> None:
        self.omega2 = omega2
        self.c = c
        self.velocity_dependent = self.c != 0.0

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        a, p = self.scalar_forces(q[0], v[0], t)
        return [a], p

    def scalar_forces(self, x: float, u: float, t: float) -> tuple[float, float]:
        return -self.omega2 * x - self.c * u, self.c * u * u

    def jacobian(self, q: Vector, v: Vector, t: float) -> tuple[Matrix, Matrix]:
        return [[-self.omega2]], [[-self.c]]


def oscillator_for(z: complex) -> LinearOscillator:
    """The oscillator whose ``h J`` (h = 1) has the eigenvalues ``z`` and ``conj z``:
    ``omega = |z|``, damping ratio ``-Re z / |z|``."""
    r = abs(z)
    return LinearOscillator(r * r, -2.0 * z.real)


def one_step_matrix(make: Callable[[], Integrator], z: complex) -> Matrix2:
    """One step (h = 1) of a fresh integrator from ``make()`` applied to ``(1, 0)`` and
    ``(0, 1)`` on the oscillator of :func:`oscillator_for` ``(z)``: the first step's matrix M
    with ``(q1, v1) = M (q0, v0)``. Non-finite entries when a step fails. (What repeated steps
    do is :func:`run_matrix`'s: a first step carries nothing from a previous one.)"""
    m = run_matrix(make, oscillator_for(z))
    return (m[0][0], m[0][1]), (m[1][0], m[1][1])


def run_matrix(make: Callable[[], Integrator], system: LinearOscillator) -> list[list[float]]:
    """The map a run applies at every step (h = 1) on the oscillator ``system``, as a matrix
    acting on the state the step depends on.

    For most methods that state is ``(q, v)``: a 2x2 matrix. A splitting method of order 2 and
    more, under a velocity-dependent force, kicks at the velocity predicted from the force of
    the previous kick, ``v + (h/2) a_last`` (see :class:`~integrator_lab.core.integrators.
    splitting.Splitting`), and carries ``a_last`` from one step to the next: its run iterates
    a 3x3 matrix on ``(q, v, a_last)``, whose spectral radius differs from the first step's
    by O(1) where the damping is strong (on the negative real axis, critical damping, velocity
    Verlet's limit is h omega = 1 for runs, 4/3 for a first step). Columns come from steps of
    fresh instances on the basis states; non-finite entries when a step fails."""
    probe = make()
    carried = isinstance(probe, Splitting) and probe.predict_velocity and system.velocity_dependent
    basis: list[tuple[float, float, float | None]] = [(1.0, 0.0, None), (0.0, 1.0, None)]
    if carried:
        basis = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    columns: list[list[float]] = []
    for q0, v0, a0 in basis:
        integrator = make()
        if a0 is not None:
            integrator._a_last = [a0]  # type: ignore[attr-defined]  # (carried: a Splitting)
        try:
            q, v, _w = integrator.advance(system, [q0], [v0], 0.0, 0.0, 1.0, 1)
            column = [q[0], v[0]]
            if carried:
                column.append(integrator._a_last[0])  # type: ignore[attr-defined]
        except (ConvergenceError, OverflowError, ZeroDivisionError):
            column = [math.inf] * len(basis)
        columns.append(column)
    n = len(columns)
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def eigenvalues(m: Matrix2) -> tuple[complex, complex]:
    """The eigenvalues of a 2x2 matrix."""
    (a, b), (c, d) = m
    half = 0.5 * (a + d)
    root = cmath.sqrt(complex(half * half - (a * d - b * c)))
    return half + root, half - root


def _cubic_roots(c2: float, c1: float, c0: float) -> list[complex]:
    """The roots of ``x^3 + c2 x^2 + c1 x + c0`` (Durand-Kerner iterations, then Newton's
    polish of each root on the polynomial)."""

    def p(x: complex) -> complex:
        return ((x + c2) * x + c1) * x + c0

    def dp(x: complex) -> complex:
        return (3.0 * x + 2.0 * c2) * x + c1

    radius = 1.0 + max(abs(c2), abs(c1), abs(c0))  # every root lies within (Cauchy)
    roots = [radius * cmath.exp(1j * (0.4 + 2.0 * math.pi * k / 3.0)) for k in range(3)]
    for _ in range(500):
        moved = 0.0
        for i in range(3):
            others = 1.0 + 0j
            for j in range(3):
                if j != i:
                    others *= roots[i] - roots[j]
            if others == 0:
                others = 1e-300 + 0j
            delta = p(roots[i]) / others
            roots[i] -= delta
            moved = max(moved, abs(delta))
        if moved <= 1e-16 * radius:
            break
    polished = []
    for x in roots:
        for _ in range(3):
            slope = dp(x)
            if slope == 0:
                break
            step = p(x) / slope
            if not abs(step) < 1e-3 * (1.0 + abs(x)):
                break  # a multiple root: Durand-Kerner's value is as good as it gets
            x -= step
        polished.append(x)
    return polished


def _deflated(m: Sequence[Sequence[float]]) -> tuple[list[float], list[list[float]]]:
    """``(exact, rest)``: the eigenvalues that a row or column with no off-diagonal entry
    gives exactly (a position that nothing restores, as under drag: a column ``(1, 0, 0)``),
    and the matrix of the others. Without it, such an eigenvalue 1 beside another near 1 comes
    out of the characteristic polynomial up to 1e-11 above 1."""
    exact: list[float] = []
    rest = [list(row) for row in m]
    while len(rest) > 1:
        n = len(rest)
        for j in range(n):
            column = all(rest[i][j] == 0.0 for i in range(n) if i != j)
            row = all(rest[j][i] == 0.0 for i in range(n) if i != j)
            if column or row:
                exact.append(rest[j][j])
                rest = [
                    [x for k, x in enumerate(r) if k != j] for i, r in enumerate(rest) if i != j
                ]
                break
        else:
            break
    return exact, rest


def spectral_radius(m: Sequence[Sequence[float]]) -> float:
    """The largest modulus of the eigenvalues of a 2x2 or 3x3 matrix (inf when an entry is
    not finite)."""
    if not all(math.isfinite(x) for row in m for x in row):
        return math.inf
    exact, rest = _deflated(m)
    moduli = [abs(x) for x in exact]
    try:
        if len(rest) == 1:
            moduli.append(abs(rest[0][0]))
        elif len(rest) == 2:
            moduli.extend(
                abs(e) for e in eigenvalues(((rest[0][0], rest[0][1]), (rest[1][0], rest[1][1])))
            )
        elif len(rest) == 3:
            # det(x I - M) = x^3 - tr x^2 + (sum of principal 2x2 minors) x - det
            (a, b, c), (d, e, f), (g, h, i) = rest
            trace = a + e + i
            minors = (a * e - b * d) + (a * i - c * g) + (e * i - f * h)
            det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
            moduli.extend(abs(x) for x in _cubic_roots(-trace, minors, -det))
    except OverflowError:
        return math.inf
    return max(moduli)


# -- the stability function of a Runge-Kutta method ---------------------------------------------
def exact(x: float | Fraction | int) -> Fraction:
    """A coefficient as a fraction: a float that is the rounding of a fraction with a small
    denominator (1/6, 19372/6561) becomes that fraction, any other float its exact value."""
    if isinstance(x, (Fraction, int)):
        return Fraction(x)
    guess = Fraction(x).limit_denominator(1_000_000)
    return guess if float(guess) == x else Fraction(x)


def reversed_characteristic(m: Sequence[Sequence[Fraction]]) -> Polynomial:
    """``det(I - z M)`` as coefficients ``[1, c1, ..., cs]``, exactly (Faddeev-LeVerrier: the
    characteristic polynomial ``det(x I - M) = x^s + c1 x^(s-1) + ... + cs``)."""
    s = len(m)
    coefficients = [Fraction(1)]
    previous = [[Fraction(0)] * s for _ in range(s)]  # M_0 = 0
    for k in range(1, s + 1):
        # M_k = M M_(k-1) + c_(k-1) I;  c_k = -tr(M M_k) / k
        mk = [
            [
                sum((m[i][j] * previous[j][col] for j in range(s)), Fraction(0))
                + (coefficients[k - 1] if i == col else 0)
                for col in range(s)
            ]
            for i in range(s)
        ]
        trace = sum((m[i][j] * mk[j][i] for i in range(s) for j in range(s)), Fraction(0))
        coefficients.append(-trace / k)
        previous = mk
    while len(coefficients) > 1 and coefficients[-1] == 0:
        coefficients.pop()
    return coefficients


def tableau_stability_function(
    a: Sequence[Sequence[float | Fraction | int]], b: Sequence[float | Fraction | int]
) -> tuple[Polynomial, Polynomial]:
    """``(P, Q)`` with ``R(z) = P(z)/Q(z) = 1 + z b^T (I - z A)^-1 1`` of the tableau ``a``,
    ``b`` (explicit or implicit): ``P(z) = det(I - z A + z 1 b^T)``, ``Q(z) = det(I - z A)``,
    with exact rational coefficients (floats are read by :func:`exact`)."""
    fa = [[exact(x) for x in row] for row in a]
    fb = [exact(x) for x in b]
    shifted = [[fa[i][j] - fb[j] for j in range(len(fb))] for i in range(len(fa))]
    return reversed_characteristic(shifted), reversed_characteristic(fa)


def evaluate(p: Sequence[Fraction | float], z: complex) -> complex:
    """A polynomial (constant term first) at z, by Horner's scheme."""
    result = 0j
    for coefficient in reversed(p):
        result = result * z + float(coefficient)
    return result


def format_polynomial(p: Sequence[Fraction]) -> str:
    """``1 + z + z^2/2`` style text of a polynomial in z."""
    terms = []
    for k, c in enumerate(p):
        if c == 0:
            continue
        power = "" if k == 0 else ("z" if k == 1 else f"z^{k}")
        magnitude = abs(c)
        if k == 0:
            text = str(magnitude)
        elif magnitude.numerator == 1:
            text = power + (f"/{magnitude.denominator}" if magnitude.denominator != 1 else "")
        else:
            text = f"{magnitude.numerator} {power}" + (
                f"/{magnitude.denominator}" if magnitude.denominator != 1 else ""
            )
        terms.append(("- " if c < 0 else "+ ") + text)
    if not terms:
        return "0"
    first = terms[0]
    return " ".join([first[2:] if first.startswith("+") else "-" + first[2:], *terms[1:]])


# -- a method's stability ------------------------------------------------------------------------
@dataclass
class Method:
    """What the region of one integrator is computed from: a factory of fresh instances (the
    one-step matrix) and, for Runge-Kutta methods, the exact stability function."""

    name: str
    make: Callable[[], Integrator]
    #: ``(P, Q)`` of R(z) = P/Q, or None for methods without a scalar R (splitting, Python)
    rational: tuple[Polynomial, Polynomial] | None
    #: "runge-kutta", "adaptive" (its internal step's R), "splitting" or "python"
    kind: str
    _cache: dict[complex, float] = field(default_factory=dict, repr=False)

    def growth(self, z: complex) -> float:
        """The growth factor per step at ``z = h lambda``: ``|R(z)|`` for Runge-Kutta methods,
        else the spectral radius of the map a run applies (:func:`run_matrix`; for a
        Runge-Kutta method the same number). Symmetric: ``growth(conj z) == growth(z)``."""
        z = complex(z.real, abs(z.imag))
        cached = self._cache.get(z)
        if cached is not None:
            return cached
        if self.rational is not None:
            p, q = self.rational
            try:
                denominator = evaluate(q, z)
                value = abs(evaluate(p, z) / denominator) if denominator != 0 else math.inf
            except OverflowError:
                value = math.inf
            if not math.isfinite(value):
                value = math.inf
        else:
            value = spectral_radius(run_matrix(self.make, oscillator_for(z)))
        if len(self._cache) < 200_000:
            self._cache[z] = value
        return value

    def stable(self, z: complex) -> bool:
        return self.growth(z) <= 1.0 + TOLERANCE


def method(entry: MethodEntry) -> Method:
    """The :class:`Method` of an integrator name, a user's definition or its dict (unknown
    names and bad definitions raise ``ValueError``)."""
    resolved = resolve_method(entry)
    probe = make_integrator(resolved)
    name = probe.name

    def make() -> Integrator:
        return make_integrator(resolved)

    rational = None
    kind = "python"
    if isinstance(resolved, TableauMethod):
        rational, kind = tableau_stability_function(resolved.a, resolved.b), "runge-kutta"
    elif isinstance(probe, RungeKutta):
        # the adaptive pair: the stability function of its internal (5th-order) step
        kind = "adaptive" if isinstance(probe, RK45) else "runge-kutta"
        rational = tableau_stability_function(probe.tableau.a, probe.tableau.b)
    elif name in IMPLICIT_TABLEAUX and isinstance(resolved, str):
        rational, kind = tableau_stability_function(*IMPLICIT_TABLEAUX[name]), "runge-kutta"
    elif isinstance(probe, Splitting):
        kind = "splitting"
    return Method(name, make, rational, kind)


def axis_limit(m: Method, direction: complex) -> float:
    """How far the stable set reaches from 0 along ``direction`` (1j: the imaginary axis;
    -1: the negative real axis): the largest s with ``growth(t direction) <= 1`` for every
    ``0 < t < s``, to about 1e-12 relative; 0 when the first scan step is unstable (no stable
    interval), inf when every scanned point up to 1e6 is stable."""
    previous = 0.0
    steps = round(SCAN_END / SCAN_STEP)
    candidates = [k * SCAN_STEP for k in range(1, steps + 1)] + list(FAR)
    for s in candidates:
        if not m.stable(s * direction):
            if previous == 0.0:
                return 0.0
            lo, hi = previous, s
            while hi - lo > 1e-13 * hi:
                mid = 0.5 * (lo + hi)
                if m.stable(mid * direction):
                    lo = mid
                else:
                    hi = mid
            return 0.5 * (lo + hi)
        previous = s
    return math.inf


def a_stable(m: Method) -> bool:
    """Whether the method is stable at every z of the closed left half plane: checked on the
    imaginary axis (scanned to 1e6) and on rays into the left half plane at radii from 1e-3 to
    1e6. For a rational R whose poles lie in the right half plane the maximum principle makes
    the imaginary axis and infinity the whole test; the rays catch the rest."""
    if axis_limit(m, 1j) != math.inf:
        return False
    radii = [10.0 ** (k / 4.0) for k in range(-12, 25)]
    angles = [math.pi / 2 + math.pi / 2 * j / 12 for j in range(1, 13)]
    return all(m.stable(cmath.rect(r, angle)) for r in radii for angle in angles)


def _marching_squares(
    xs: Sequence[float], ys: Sequence[float], values: Sequence[Sequence[float]]
) -> list[list[Point]]:
    """The zero contour of ``values[j][i]`` (at ``(xs[i], ys[j])``) as polylines, closed ones
    ending at their first point. Saddle cells are resolved by the mean of their corners."""
    nx, ny = len(xs), len(ys)
    edge_point: dict[tuple[str, int, int], Point] = {}

    def crossing(key: tuple[str, int, int]) -> tuple[str, int, int]:
        if key not in edge_point:
            kind, i, j = key
            i1, j1 = (i + 1, j) if kind == "h" else (i, j + 1)
            f0, f1 = values[j][i], values[j1][i1]
            t = f0 / (f0 - f1)
            edge_point[key] = (
                xs[i] + t * (xs[i1] - xs[i]),
                ys[j] + t * (ys[j1] - ys[j]),
            )
        return key

    links: dict[tuple[str, int, int], list[tuple[str, int, int]]] = {}
    for j in range(ny - 1):
        for i in range(nx - 1):
            corners = (values[j][i], values[j][i + 1], values[j + 1][i + 1], values[j + 1][i])
            inside = [c < 0.0 for c in corners]
            if all(inside) or not any(inside):
                continue
            # edges in corner order: bottom (0-1), right (1-2), top (3-2), left (0-3)
            edges = (("h", i, j), ("v", i + 1, j), ("h", i, j + 1), ("v", i, j))
            crossed = [e for k, e in enumerate(edges) if inside[k] != inside[(k + 1) % 4]]
            if len(crossed) == 4:
                centre_inside = sum(corners) / 4.0 < 0.0
                # pair each crossing with its neighbour so that the centre's side stays joined
                if centre_inside == inside[0]:
                    pairs = [(crossed[0], crossed[1]), (crossed[2], crossed[3])]
                else:
                    pairs = [(crossed[3], crossed[0]), (crossed[1], crossed[2])]
            else:
                pairs = [(crossed[0], crossed[1])]
            for p, q in pairs:
                links.setdefault(crossing(p), []).append(crossing(q))
                links.setdefault(q, []).append(p)
    lines: list[list[Point]] = []
    seen: set[tuple[str, int, int]] = set()
    # open chains first (they start at an end: one link), then the closed loops
    starts = [k for k, v in links.items() if len(v) == 1] + list(links)
    for start in starts:
        if start in seen:
            continue
        chain = [start]
        seen.add(start)
        current = start
        while True:
            following = [k for k in links[current] if k not in seen]
            if not following:
                if len(chain) > 2 and start in links[current]:
                    chain.append(start)  # a closed loop
                break
            current = following[0]
            seen.add(current)
            chain.append(current)
        lines.append([edge_point[k] for k in chain])
    return lines


def region(
    m: Method,
    window: tuple[float, float, float, float] = WINDOW,
    cell: float = CELL,
) -> list[list[Point]]:
    """The boundary of the stability region in ``window`` ``(re0, re1, im0, im1)`` as
    polylines ``[(re, im), ...]``, found by marching squares on ``log growth(z)`` over a grid
    of about ``cell`` spacing whose nodes avoid both axes (where symplectic methods sit exactly
    on the boundary, growth 1 to rounding)."""
    x0, x1, y0, y1 = window
    if not (x0 < 0.0 < x1 and y0 < 0.0 < y1) or not cell > 0.0:
        raise ValueError("region: the window must contain 0 and the cell be positive")

    def nodes(lo: float, hi: float) -> list[float]:
        # nodes at (k + 1/2) cell: 0 lies midway between two of them
        first, last = math.floor(lo / cell - 0.5), math.ceil(hi / cell - 0.5)
        return [(k + 0.5) * cell for k in range(first, last + 1)]

    xs, ys = nodes(x0, x1), nodes(y0, y1)

    def level(x: float, y: float) -> float:
        g = m.growth(complex(x, y))
        if g <= 0.0:
            return -700.0
        if not math.isfinite(g):
            return 700.0
        return math.log(g)

    values = [[level(x, y) for x in xs] for y in ys]
    return _marching_squares(xs, ys, values)


@dataclass
class StabilityResult:
    """A method's region and limits (see :func:`stability`)."""

    integrator: str
    kind: str
    imaginary_limit: float
    real_limit: float
    a_stable: bool
    boundary: list[list[Point]]
    stability_function: str | None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: an unbounded limit is None; the boundary's pieces joined into one list
        of ``[re, im]`` with ``[None, None]`` between pieces."""
        joined: list[list[float | None]] = []
        for piece in self.boundary:
            if joined:
                joined.append([None, None])
            joined.extend([round(x, 6), round(y, 6)] for x, y in piece)
        return {
            "integrator": self.integrator,
            "kind": self.kind,
            "imaginary_limit": None if math.isinf(self.imaginary_limit) else self.imaginary_limit,
            "real_limit": None if math.isinf(self.real_limit) else self.real_limit,
            "a_stable": self.a_stable,
            "stability_function": self.stability_function,
            "boundary": joined,
        }


def describe_function(rational: tuple[Polynomial, Polynomial] | None) -> str | None:
    if rational is None:
        return None
    p, q = rational
    if q == [1]:
        return format_polynomial(p)
    numerator = format_polynomial(p) if len(p) == 1 else f"({format_polynomial(p)})"
    return f"{numerator} / ({format_polynomial(q)})"


def stability(
    entry: MethodEntry,
    window: tuple[float, float, float, float] = WINDOW,
    cell: float = CELL,
) -> StabilityResult:
    """The stability region of an integrator (name, user's definition or its dict): its
    boundary in ``window``, the limits on the imaginary axis (``h omega`` of an undamped
    oscillator) and on the negative real axis (``-h/tau`` of a decay), A-stability."""
    m = method(entry)
    return StabilityResult(
        integrator=m.name,
        kind=m.kind,
        imaginary_limit=axis_limit(m, 1j),
        real_limit=-axis_limit(m, -1),
        a_stable=a_stable(m),
        boundary=region(m, window, cell),
        stability_function=describe_function(m.rational),
    )


# -- a system's linearised eigenvalues ----------------------------------------------------------
@dataclass(frozen=True)
class Mode:
    """A linearised mode: its name, eigenvalue (1/s; of a conjugate pair the one with
    ``Im >= 0``) and the second-order equation it belongs to, ``x'' = -stiffness x -
    damping x'`` (per unit mass: 1/s^2 and 1/s), whose two eigenvalues a splitting method
    does not treat apart."""

    name: str
    eigenvalue: complex
    stiffness: float
    damping: float


def _pair(name: str, stiffness: float, damping: float) -> list[Mode]:
    """The eigenvalues of ``x'' = -stiffness x - damping x'`` (per unit mass): a conjugate
    pair (one listed) or two real ones."""
    half = 0.5 * damping
    disc = half * half - stiffness
    if disc < 0.0:
        return [Mode(name, complex(0.0 - half, math.sqrt(-disc)), stiffness, damping)]
    root = math.sqrt(disc)
    if root == 0.0:
        return [Mode(name, complex(0.0 - half, 0.0), stiffness, damping)]
    # -half - root and -half + root, the latter without cancellation
    big = -half - root if half >= 0.0 else -half + root
    small = stiffness / big if big != 0.0 else 0.0  # the product of the roots
    return [
        Mode(name, complex(big, 0.0), stiffness, damping),
        Mode(name, complex(small, 0.0), stiffness, damping),
    ]


def cradle_contact(system: Cradle, q: Vector | None = None, v: Vector | None = None) -> Mode:
    """The stiffest contact mode of a cradle: the relative motion of two touching balls,
    ``m_eff x'' = -k_c x - c_c x'`` with the reduced mass ``m_eff``. Linear law: ``k_c = k``,
    ``c_c = c``. Hertz law (``f = k d^1.5 + c d^0.25 d'``): the tangent stiffness
    ``k_c = 1.5 k d^0.5`` and ``c_c = c d^0.25`` at the largest overlap d of the state ``q, v``
    if any pair touches, else at the largest overlap of a collision at the lifted balls' impact
    speed u, ``d = (5 m_eff u^2 / (4 k))^0.4`` (Hertz's theory, the typical overlap)."""
    n = system.n
    pairs = range(n - 1)
    m_eff = [
        system.masses[i] * system.masses[i + 1] / (system.masses[i] + system.masses[i + 1])
        for i in pairs
    ]
    if not system.hertz:
        i = min(pairs, key=lambda j: m_eff[j])
        modes = _pair("contact", system.k / m_eff[i], system.damping[i] / m_eff[i])
        return max(modes, key=lambda mode: abs(mode.eigenvalue))
    overlaps: dict[int, float] = {}
    if q is not None and v is not None:
        for i, overlap, *_rest in system._contacts(q, v):
            overlaps[i] = overlap
    if overlaps:
        i = max(overlaps, key=lambda j: 1.5 * system.k * math.sqrt(overlaps[j]) / m_eff[j])
        overlap = overlaps[i]
    else:
        i = min(pairs, key=lambda j: m_eff[j])
        angle = system.params["angle"] or 0.1
        speed = 2.0 * math.sqrt(system.gravity * system.length) * math.sin(0.5 * angle)
        overlap = (5.0 * m_eff[i] * speed * speed / (4.0 * system.k)) ** 0.4
    stiffness = 1.5 * system.k * math.sqrt(overlap)
    damping = system.damping[i] * overlap**0.25
    modes = _pair("contact", stiffness / m_eff[i], damping / m_eff[i])
    return max(modes, key=lambda mode: abs(mode.eigenvalue))


def balls_contacts(system: Balls, q: Vector | None = None) -> list[Mode]:
    """The contact modes of a ball box: two balls' relative motion, ``(m/2) x'' = -k_c x -
    c_c x'``, and a ball's against a wall (``m`` for ``m/2``), the stiffest mode of each.
    Linear law: ``k_c = k`` and the law's ``c``. Hertz law: the tangent stiffness ``1.5 k
    d^0.5`` and ``c d^0.25`` at the largest overlap d of the centres ``q`` if a contact of
    that kind is touching, else at the largest overlap of an impact at the fall's speed u,
    ``d = (5 m_eff u^2 / (4 k))^0.4`` (Hertz's theory). A pile's collective modes reach a few
    times higher; these are the ones a single collision has."""
    modes = []
    deepest = {"balls": 0.0, "wall": 0.0}
    if system.hertz and q is not None:
        for _i, j, overlap in system.overlaps(q):
            kind = "balls" if j >= 0 else "wall"
            deepest[kind] = max(deepest[kind], overlap)
    for kind, m_eff, c in (
        ("balls", 0.5 * system.mass, system.ball_damping),
        ("wall", system.mass, system.wall_damping),
    ):
        if kind == "balls" and system.n < 2:
            continue
        stiffness, damping = system.k, c
        if system.hertz:
            u = system.impact_speed()
            overlap = deepest[kind] or (5.0 * m_eff * u * u / (4.0 * system.k)) ** 0.4
            stiffness = 1.5 * system.k * math.sqrt(overlap)
            damping = c * overlap**0.25
        pair = _pair(f"contact ({kind})", stiffness / m_eff, damping / m_eff)
        modes.append(max(pair, key=lambda mode: abs(mode.eigenvalue)))
    return modes


def linear_modes(system: System, q: Vector | None = None, v: Vector | None = None) -> list[Mode]:
    """The linearised eigenvalues of ``system`` at the state ``q, v`` (default: the state of
    its motion where they are largest, :meth:`System.fastest_state`: the start for linear
    systems, the bottom of the swing for the pendulum). One degree of freedom: from the
    Jacobian, ``lambda^2 = da/dq + da/dv lambda`` (the spring's ``-k/m`` and ``-b/m``, the
    pendulum's ``-(g/L) cos theta``). The cradle: the
    swing of a ball ``sqrt(g/L)`` and the stiffest contact (:func:`cradle_contact`), the mode
    that sets its step. The ball box: its contacts (:func:`balls_contacts`); a free fall has
    no frequency."""
    if q is None or v is None:
        q, v = system.fastest_state()
    if isinstance(system, Cradle):
        return [
            *_pair("swing", system.g_over_l, 0.0),
            cradle_contact(system, q, v),
        ]
    if isinstance(system, Balls):
        return balls_contacts(system, q)
    if system.ndof == 1 and system.jacobian is not None:
        dq, dv = system.jacobian(q, v, 0.0)
        return _pair("motion", -dq[0][0], -dv[0][0])
    raise ValueError(f"system {system.name!r}: no linearised modes known")


def mode_growth(m: Method, mode: Mode, dt: float) -> float:
    """The growth per step of ``mode`` under a run of the method with step ``dt``: ``|R(dt
    lambda)|`` for a Runge-Kutta method (each eigenvalue apart), else the spectral radius of
    the map its run applies to the mode's own equation (:func:`run_matrix`): for an
    underdamped mode the region's value at ``dt lambda``; for two real eigenvalues (overdamped,
    or a pure decay such as drag, ``x'' = -c x'``) a pair that no single point of the plane
    stands for."""
    if m.rational is not None:
        return m.growth(dt * mode.eigenvalue)
    oscillator = LinearOscillator(mode.stiffness * dt * dt, mode.damping * dt)
    return spectral_radius(run_matrix(m.make, oscillator))


def mode_stable(m: Method, mode: Mode, dt: float) -> bool:
    return mode_growth(m, mode, dt) <= 1.0 + TOLERANCE


def verdict(m: Method, modes: Sequence[Mode], dt: float) -> bool | None:
    """Whether runs of the method at step ``dt`` stay bounded on a system with the linearised
    ``modes``: every mode stable (:func:`mode_growth`). None for the adaptive pair: it
    subdivides dt to its tolerance, so no fixed step's region speaks for its runs (they stay
    accurate far beyond its limit)."""
    if m.kind == "adaptive":
        return None
    return all(mode_stable(m, mode, dt) for mode in modes)


def scaled_points(modes: Sequence[Mode], dt: float) -> list[Point]:
    """The points ``dt lambda`` of every mode and of the conjugate of each complex one."""
    points: list[Point] = []
    for mode in modes:
        z = dt * mode.eigenvalue
        points.append((z.real, z.imag))
        if z.imag != 0.0:
            points.append((z.real, -z.imag))
    return points
