"""Implicit one-step methods solved by Newton iterations.

Implicit Euler and the implicit midpoint rule on ``q' = v, v' = a(q, v)`` both reduce to one
equation for a velocity ``u``: ``u = v0 + h a(q0 + h u, u)``, with ``h = dt`` (Euler, then
``v1 = u``) or ``h = dt/2`` (midpoint, ``u`` the midpoint velocity, then ``v1 = 2u - v0``), and
``q1 = q0 + dt u`` in both. Newton's method uses the system's Jacobian where it has one and
forward differences otherwise, and stops when the update is below ``TOLERANCE`` relative to u.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .base import ConvergenceError, Integrator, norm_inf

if TYPE_CHECKING:
    from ..systems.base import Dynamics, Matrix, ScalarForces, State, Vector

TOLERANCE = 1e-12  # Newton stops when |du| <= TOLERANCE * (1 + |u|) (infinity norm)
MAX_ITERATIONS = 50
#: when Newton fails (a contact switching on inside the step can leave the implicit equation
#: without a root near the predictor) the step is retried as 2, 4, ... equal substeps, down to
#: 1/2**MAX_HALVINGS of dt; only then is non-convergence reported
MAX_HALVINGS = 6


def solve_linear(matrix: Sequence[Sequence[float]], rhs: Sequence[float]) -> list[float]:
    """Solve ``matrix x = rhs`` by Gaussian elimination with partial pivoting."""
    n = len(rhs)
    m = [list(row) + [b] for row, b in zip(matrix, rhs)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if m[pivot][col] == 0.0 or not math.isfinite(m[pivot][col]):
            raise ConvergenceError("singular Newton matrix")
        m[col], m[pivot] = m[pivot], m[col]
        inv = 1.0 / m[col][col]
        for r in range(col + 1, n):
            f = m[r][col] * inv
            if f != 0.0:
                row, top = m[r], m[col]
                for c in range(col, n + 1):
                    row[c] -= f * top[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        s = m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))
        x[r] = s / m[r][r]
    return x


def solve_velocity(system: Dynamics, q0: Vector, v0: Vector, t: float, h: float) -> Vector:
    """Solve ``u = v0 + h a(q0 + h u, u)`` for u by Newton's method."""
    n = len(v0)
    if n == 1 and system.scalar_forces is not None:
        return [_solve_velocity_scalar(system, q0[0], v0[0], t, h)]
    forces = system.forces
    a0, _ = forces(q0, v0, t)
    u = [x + h * b for x, b in zip(v0, a0)]  # explicit Euler predictor
    for _ in range(MAX_ITERATIONS):
        qu = [x + h * y for x, y in zip(q0, u)]
        a, _ = forces(qu, u, t)
        residual = [ui - vi - h * ai for ui, vi, ai in zip(u, v0, a)]
        if system.jacobian is not None:
            dq, dv = system.jacobian(qu, u, t)
            # d/du a(q0 + h u, u) = h da/dq + da/dv
            slope = [[h * dq[i][j] + dv[i][j] for j in range(n)] for i in range(n)]
        else:
            slope = _difference_slope(forces, q0, u, a, t, h)
        matrix = [[(1.0 if i == j else 0.0) - h * slope[i][j] for j in range(n)] for i in range(n)]
        du = solve_linear(matrix, [-r for r in residual])
        u = [x + d for x, d in zip(u, du)]
        if not all(math.isfinite(x) for x in u):
            break
        if norm_inf(du) <= TOLERANCE * (1.0 + norm_inf(u)):
            return u
    raise ConvergenceError(f"Newton iteration did not converge in {MAX_ITERATIONS} iterations")


def _solve_velocity_scalar(system: Dynamics, x0: float, v0: float, t: float, h: float) -> float:
    """:func:`solve_velocity` for one degree of freedom on plain floats: the same iteration
    and arithmetic (a 1x1 Newton matrix is a division), without the lists."""
    forces: ScalarForces  # solve_velocity comes here only when system.scalar_forces is set
    forces, jacobian = system.scalar_forces, system.jacobian  # type: ignore[assignment]
    a0, _ = forces(x0, v0, t)
    u = v0 + h * a0
    for _ in range(MAX_ITERATIONS):
        xu = x0 + h * u
        a, _ = forces(xu, u, t)
        residual = u - v0 - h * a
        if jacobian is not None:
            dq, dv = jacobian([xu], [u], t)
            slope = h * dq[0][0] + dv[0][0]
        else:
            step = 1.5e-8 * max(1.0, abs(u))
            shifted = u + step
            slope = (forces(x0 + h * shifted, shifted, t)[0] - a) / step
        pivot = 1.0 - h * slope
        if pivot == 0.0 or not math.isfinite(pivot):
            raise ConvergenceError("singular Newton matrix")
        du = -residual / pivot
        u += du
        if not math.isfinite(u):
            break
        if abs(du) <= TOLERANCE * (1.0 + abs(u)):
            return u
    raise ConvergenceError(f"Newton iteration did not converge in {MAX_ITERATIONS} iterations")


def _difference_slope(
    forces: Callable[[Vector, Vector, float], tuple[Vector, float]],
    q0: Vector,
    u: Vector,
    a: Vector,
    t: float,
    h: float,
) -> Matrix:
    """Forward-difference Jacobian of ``u -> a(q0 + h u, u)``, column by column."""
    n = len(u)
    columns = []
    for j in range(n):
        step = 1.5e-8 * max(1.0, abs(u[j]))  # ~ sqrt(machine epsilon), relative
        shifted = list(u)
        shifted[j] += step
        a_shift, _ = forces([x + h * y for x, y in zip(q0, shifted)], shifted, t)
        columns.append([(s - b) / step for s, b in zip(a_shift, a)])
    return [[columns[j][i] for j in range(n)] for i in range(n)]


class _Implicit(Integrator):
    """Shared step-halving retry around a method's single implicit step."""

    implicit = True
    # an explicit Euler predictor, one evaluation per Newton iteration (two at least: the
    # second confirms that the first converged, as on a linear force) and the dissipated
    # power at the end of the step; a system without a Jacobian adds one evaluation per
    # coordinate to each iteration (forward differences). Counted: 4 on the spring, 4 to 6
    # on the pendulum, 14 to 22 on the five-ball cradle
    evaluations = 4
    evaluations_note = (
        "1 predictor + 1 per Newton iteration (2 or more) + 1 for the dissipated power; "
        "without a Jacobian, + 1 per coordinate and iteration"
    )

    def step(self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float) -> State:
        return self._step_or_split(system, q, v, w, t, dt, MAX_HALVINGS)

    def _step_or_split(
        self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float, halvings: int
    ) -> State:
        try:
            return self.implicit_step(system, q, v, w, t, dt)
        except ConvergenceError:
            if halvings == 0:
                raise
        half = 0.5 * dt
        q, v, w = self._step_or_split(system, q, v, w, t, half, halvings - 1)
        return self._step_or_split(system, q, v, w, t + half, half, halvings - 1)

    def implicit_step(
        self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float
    ) -> State:
        raise NotImplementedError


class ImplicitEuler(_Implicit):
    name = "implicit-euler"
    title = "Implicit Euler"
    order = 1
    description = "Backward Euler: first order, unconditionally stable, damps energy artificially"
    reference = "Hairer & Wanner, Solving ODEs II (1996), IV.3"

    def implicit_step(
        self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float
    ) -> State:
        u = solve_velocity(system, q, v, t + dt, dt)
        q1 = [x + dt * y for x, y in zip(q, u)]
        _, p = system.forces(q1, u, t + dt)
        return q1, u, w + dt * p


class ImplicitMidpoint(_Implicit):
    name = "implicit-midpoint"
    title = "Implicit midpoint"
    order = 2
    symplectic = True
    description = "Implicit midpoint rule: second order, symplectic, A-stable, time-reversible"
    reference = "Hairer, Lubich & Wanner, Geometric Numerical Integration (2006), II.1"

    def implicit_step(
        self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float
    ) -> State:
        half = 0.5 * dt
        u = solve_velocity(system, q, v, t + half, half)
        _, p = system.forces([x + half * y for x, y in zip(q, u)], u, t + half)
        return ([x + dt * y for x, y in zip(q, u)], [2.0 * y - x for x, y in zip(v, u)], w + dt * p)
