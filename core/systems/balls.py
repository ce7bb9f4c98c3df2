"""Balls piling up in an open box by the discrete element method (the "Suika" physics)."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from operator import mul, sub
from typing import Any, TypeAlias

from ..contact import LAWS, MIN_RESTITUTION, damping_for_restitution
from ..params import Param
from .base import SceneGeometry, System, Vector
from .pendulum import _nice_step

#: side of the square cell each ball starts in, in radii: a gap of at least half a radius
#: between neighbours, so the start is loose and never overlapping
START_CELL = 2.5
#: slowest impact the Hertz contact time is estimated at (m/s): with no gravity or no drop the
#: impact speed vanishes and the contact time with it would be infinite
MIN_IMPACT_SPEED = 0.1
#: steps per contact of the recommended step (as the cradle's)
STEPS_PER_CONTACT = 16
#: the energy scale is at least the elastic energy of one contact at this overlap (radii): a
#: drop from nowhere (no gravity, or no height) still has a scale divergence is judged by
SCALE_OVERLAP = 0.1
#: how much further apart than touching two balls (or a ball and a wall) may be and still be
#: listed as neighbours (radii): the lists hold until a ball has moved half of it
SKIN = 0.4

#: ``(pairs, floor, left, right)``: see :meth:`Balls.neighbours`
Neighbours: TypeAlias = tuple[list[tuple[int, int, int, int]], list[int], list[int], list[int]]


class Balls(System):
    """Disks in an open box under gravity, touching through soft, damped contacts (2-D DEM).

    State: ``q = [x_0, y_0, x_1, y_1, ...]`` (m, the centres), ``v`` likewise (m/s). The floor
    is the line y = 0, the walls x = 0 and x = ``width`` (unbounded upwards: the box is open,
    nothing leaves it over a wall).

    Every ball has radius r and mass m. Two balls touch when their overlap ``d = 2r - |p_j -
    p_i|`` is positive, a ball and a wall or the floor when ``d = r - (distance of the centre
    from it)`` is. A contact pushes along its normal with the cradle's law
    (:mod:`integrator_lab.core.contact`): ``f = k d + c d'`` (``linear``) or ``f = k d^1.5 +
    c d^0.25 d'`` (``hertz``), clamped at zero (a contact never pulls), with ``c = a(e)
    sqrt(m_eff k)``: the reduced mass ``m_eff = m/2`` between two balls, ``m_eff = m`` against
    a wall (a body of infinite mass), and ``a(e)`` calibrated so that an isolated collision has
    the restitution e.

    Equations of motion: ``m p_i'' = -m g e_y + sum of the contact forces on ball i``.
    Energy: kinetic ``sum m |v_i|^2 / 2``; potential ``sum m g y_i`` plus the contact energy
    ``k d^2 / 2`` (linear) or ``2 k d^2.5 / 5`` (hertz) of every contact; the dissipated power
    of a contact is ``(f - f_elastic) d'``.

    Contacts are found by a sweep along x (the centres sorted by x, each compared with those
    less than 2r to its right), O(N) per step for a box wider than a few balls.
    """

    name = "balls"
    title = "Ball box"
    description = "Balls dropped into an open box pile up through soft, damped contacts (DEM)."
    # the force switches on at first touch and is clamped at zero when the dashpot would
    # pull; Hertz's k d^1.5 + c d^0.25 d' has unbounded derivatives at d = 0
    not_smooth = "contacts switch on and off (a force clamped at zero, Hertz's d^1.5 law)"
    PARAMS = (
        Param(
            "count",
            12,
            "",
            "number of balls",
            kind="int",
            min=1,
            max=40,
            label="number of balls",
            symbol="N",
        ),
        Param(
            "radius",
            0.1,
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
            1.0,
            "kg",
            "mass of each ball",
            min=0.0,
            max=100.0,
            min_open=True,
            label="ball mass",
            symbol="m",
        ),
        Param(
            "width",
            2.0,
            "m",
            "inner width of the box",
            min=0.0,
            max=10.0,
            min_open=True,
            label="box width",
            symbol="W",
        ),
        Param(
            "gravity",
            9.81,
            "m/s²",
            "gravitational acceleration (0: weightless)",
            min=0.0,
            max=100.0,
            label="gravity",
            symbol="g",
        ),
        Param(
            "contact",
            "linear",
            doc="normal contact law: linear k d or hertz k d^1.5",
            kind="choice",
            choices=LAWS,
            label="contact law",
        ),
        Param(
            "stiffness",
            4e3,
            "N/m or N/m¹·⁵",
            "contact stiffness k (N/m linear, N/m^1.5 hertz)",
            min=0.0,
            max=1e12,
            min_open=True,
            label="contact stiffness",
            symbol="k",
        ),
        Param(
            "restitution",
            0.8,
            "",
            "coefficient of restitution e of one collision",
            min=MIN_RESTITUTION,
            max=1.0,
            label="restitution",
            symbol="e",
        ),
        Param(
            "drop_height",
            0.5,
            "m",
            "height of the lowest ball's bottom above the floor at the start",
            min=0.0,
            max=10.0,
            label="drop height",
            symbol="h",
        ),
        Param(
            "seed",
            1,
            "",
            "which loose arrangement the balls start in (the same for every integrator)",
            kind="int",
            min=0,
            max=9999,
            label="arrangement seed",
        ),
    )

    # set by setup() from the parameters (whose values mypy sees as Any)
    n: int
    radius: float
    mass: float
    width: float
    gravity: float
    k: float
    law: str
    hertz: bool
    #: dashpot coefficient of a contact between two balls and of a ball against a wall
    ball_damping: float
    wall_damping: float

    def setup(self) -> None:
        p = self.params
        self.n = n = p["count"]
        self.coordinates = tuple(f"{axis}{i}" for i in range(n) for axis in "xy")
        self.coordinate_units = ("m",) * (2 * n)
        self.radius, self.mass, self.width = p["radius"], p["mass"], p["width"]
        if self.width < 2.0 * self.radius:
            width = next(q for q in self.PARAMS if q.name == "width")
            raise replace(width, min=2.0 * self.radius, min_open=False).error(
                p["width"], owner=self.name, note="at least a ball's diameter"
            )
        self.gravity, self.k, self.law = p["gravity"], p["stiffness"], p["contact"]
        self.hertz = self.law == "hertz"
        a = damping_for_restitution(self.law, p["restitution"])
        self.ball_damping = a * math.sqrt(0.5 * self.mass * self.k)
        self.wall_damping = a * math.sqrt(self.mass * self.k)
        self.velocity_dependent = a != 0.0
        self._inv_mass = 1.0 / self.mass
        self._weight = [0.0, -self.gravity] * n  # the accelerations with no contact
        self._start = self._arrangement()
        self._skin = SKIN * self.radius
        # a ball moves less than half the skin when each coordinate moves less than this
        self._stay = 0.5 * self._skin / math.sqrt(2.0)
        #: the neighbour lists and the centres they were built at
        self._kept: tuple[Vector, Neighbours] | None = None
        #: the deepest overlap of two balls at the state energy() saw last: (q, depth, who)
        self._deepest: tuple[Vector, float, tuple[int, int]] | None = None

    # -- the start ----------------------------------------------------------------------
    def _arrangement(self) -> Vector:
        """The centres at the start: one ball above the middle of the floor, or every ball
        somewhere in its own cell of a grid of cells ``START_CELL`` radii high (and about as
        wide, as the box's width allows), row after row from ``drop_height`` up, the top row's cells
        drawn from ``seed``: loose, never overlapping, the same for every integrator."""
        p, r, n = self.params, self.radius, self.n
        h = p["drop_height"]
        if n == 1:
            return [0.5 * self.width, r + h]
        side = START_CELL * r
        # (a box narrower than a cell holds one column of cells as wide as the box, >= 2r)
        columns = max(int(self.width / side), 1)
        cell = self.width / columns
        full, rest = divmod(n, columns)
        rng = random.Random(p["seed"])
        slots = [(row, col) for row in range(full) for col in range(columns)]
        slots += [(full, col) for col in sorted(rng.sample(range(columns), rest))]
        q: Vector = []
        for row, col in slots:
            # random() < 1: neighbours stay more than 2r apart
            q.append(col * cell + r + rng.random() * (cell - 2.0 * r))
            q.append(h + row * side + r + rng.random() * (side - 2.0 * r))
        return q

    def initial_state(self) -> tuple[Vector, Vector]:
        return list(self._start), [0.0] * (2 * self.n)

    # -- contacts ---------------------------------------------------------------------------
    def neighbours(self, q: Vector) -> Neighbours:
        """Who may touch whom at the centres ``q``: ``(pairs, floor, left, right)``, the pairs
        as ``(x_i, y_i, x_j, y_j)`` indices into ``q`` (i < j, in that order), the others the
        x indices of the balls near the floor and each wall. Found by a sweep along x: the
        centres sorted by x, each compared with those less than ``2r + skin`` to its right.

        The lists hold every contact of any state whose balls have each moved less than half
        the skin since they were built, so they are kept and built again only when some ball
        has: in a pile at rest, never. Whatever they were built from, the contacts found in
        them (and the order of their sums) depend on ``q`` alone."""
        kept = self._kept
        if kept is not None and len(q) == len(kept[0]):
            try:
                if max(map(abs, map(sub, q, kept[0]))) < self._stay:
                    return kept[1]
            except TypeError:  # pragma: no cover - a state that is no list of floats
                pass
        reach = 2.0 * self.radius + self._skin
        xs, ys = q[0::2], q[1::2]
        order = sorted(range(self.n), key=xs.__getitem__)
        pairs = []
        for index, i in enumerate(order):
            xi, yi = xs[i], ys[i]
            for j in order[index + 1 :]:
                dx = xs[j] - xi
                if not dx < reach:
                    break  # and so are all the balls further right
                dy = ys[j] - yi
                if dx * dx + dy * dy < reach * reach:
                    a, b = (i, j) if i < j else (j, i)
                    pairs.append((2 * a, 2 * a + 1, 2 * b, 2 * b + 1))
        pairs.sort()
        near = self.radius + self._skin
        far = self.width - near
        floor = [2 * i for i, y in enumerate(ys) if not y > near]
        left = [2 * i for i, x in enumerate(xs) if not x > near]
        right = [2 * i for i, x in enumerate(xs) if not x < far]
        found = (pairs, floor, left, right)
        self._kept = (list(q), found)
        return found

    # -- forces and energy ----------------------------------------------------------------
    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        # in units of acceleration: k/m and c/m, the power divided by m
        r, k, hertz = self.radius, self.k * self._inv_mass, self.hertz
        pairs, floor, left, right = self.neighbours(q)
        accel = self._weight[:]
        power = 0.0
        # the floor and the walls: bodies of infinite mass, m_eff = m
        c = self.wall_damping * self._inv_mass
        for i in floor:
            overlap = r - q[i + 1]
            if overlap > 0.0:
                force, lost = _push(hertz, k, c, overlap, -v[i + 1])
                accel[i + 1] += force
                power += lost
        for i in left:
            overlap = r - q[i]
            if overlap > 0.0:
                force, lost = _push(hertz, k, c, overlap, -v[i])
                accel[i] += force
                power += lost
        wall = self.width - r
        for i in right:
            overlap = q[i] - wall
            if overlap > 0.0:
                force, lost = _push(hertz, k, c, overlap, v[i])
                accel[i] -= force
                power += lost
        # ball against ball (m_eff = m / 2), the law written out: most contacts are here
        c = self.ball_damping * self._inv_mass
        two_r = 2.0 * r
        four_r2 = two_r * two_r
        sqrt = math.sqrt
        for ix, iy, jx, jy in pairs:
            dx = q[jx] - q[ix]
            dy = q[jy] - q[iy]
            distance2 = dx * dx + dy * dy
            if not 0.0 < distance2 < four_r2:
                continue  # apart (or on top of each other: no direction to push along)
            distance = sqrt(distance2)
            overlap = two_r - distance
            # approach rate: the velocity of i relative to j along the normal from i to j
            rate = ((v[ix] - v[jx]) * dx + (v[iy] - v[jy]) * dy) / distance
            if hertz:
                root = sqrt(overlap)
                elastic = k * overlap * root
                force = elastic + c * sqrt(root) * rate
            else:
                elastic = k * overlap
                force = elastic + c * rate
            if force > 0.0:
                power += (force - elastic) * rate
                force /= distance  # (along the unit normal (dx, dy) / distance)
                fx, fy = force * dx, force * dy
                accel[jx] += fx
                accel[jy] += fy
                accel[ix] -= fx
                accel[iy] -= fy
            else:
                power -= elastic * rate
        return accel, power * self.mass

    def overlaps(self, q: Vector) -> list[tuple[int, int, float]]:
        """``(i, j, overlap)`` of every contact at the centres ``q``: two balls i < j, or ball
        i and the floor (j = -1), the left wall (j = -2) or the right wall (j = -3)."""
        r = self.radius
        pairs, floor, left, right = self.neighbours(q)
        out = []
        for ix, iy, jx, jy in pairs:
            overlap = 2.0 * r - math.hypot(q[jx] - q[ix], q[jy] - q[iy])
            if overlap > 0.0:
                out.append((ix // 2, jx // 2, overlap))
        walls = [(i, -1, r - q[i + 1]) for i in floor]
        walls += [(i, -2, r - q[i]) for i in left]
        walls += [(i, -3, q[i] + r - self.width) for i in right]
        out += [(i // 2, side, overlap) for i, side, overlap in walls if overlap > 0.0]
        return out

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        r = self.radius
        pairs, floor, left, right = self.neighbours(q)
        # the sum of d^2 (linear) or d^2.5 (hertz) over every contact
        stored = 0.0
        hertz = self.hertz
        deepest, who = 0.0, (0, 0)
        two_r = 2.0 * r
        four_r2 = two_r * two_r
        for ix, iy, jx, jy in pairs:
            dx = q[jx] - q[ix]
            dy = q[jy] - q[iy]
            distance2 = dx * dx + dy * dy
            if distance2 < four_r2:
                overlap = two_r - math.sqrt(distance2)
                stored += overlap * overlap * math.sqrt(overlap) if hertz else overlap * overlap
                if overlap > deepest:
                    deepest, who = overlap, (ix, jx)
        walls = [r - q[i + 1] for i in floor]
        walls += [r - q[i] for i in left]
        walls += [q[i] + r - self.width for i in right]
        for overlap in walls:
            if overlap > 0.0:
                stored += overlap * overlap * math.sqrt(overlap) if hertz else overlap * overlap
        # what fault() asks next of the same state (the runner's watch asks both every step)
        self._deepest = (list(q), deepest, who)
        kinetic = 0.5 * self.mass * sum(map(mul, v, v))
        gravity = self.mass * self.gravity * sum(q[1::2])
        return kinetic, gravity + (0.4 if hertz else 0.5) * self.k * stored

    def fault(self, q: Vector) -> str | None:
        """Why the centres ``q`` are no state of a ball box, or None: a centre beyond the
        floor or a wall (the ball left the box), or two balls overlapping by more than a
        radius (the contact model no longer holds: too soft a contact, or too long a step)."""
        xs, ys = q[0::2], q[1::2]
        if not (min(xs) >= 0.0 and max(xs) <= self.width and min(ys) >= 0.0):
            for i, (x, y) in enumerate(zip(xs, ys)):
                if not (0.0 <= x <= self.width and y >= 0.0):
                    return f"ball {i} left the box"
        kept = self._deepest
        if kept is not None and q == kept[0]:
            deepest, (ix, jx) = kept[1], kept[2]
        else:
            pairs = [(overlap, 2 * i, 2 * j) for i, j, overlap in self.overlaps(q) if j >= 0]
            deepest, ix, jx = max(pairs, default=(0.0, 0, 0))
        if deepest > self.radius:
            return f"balls {ix // 2} and {jx // 2} overlap by more than a radius"
        return None

    def energy_scale(self) -> float:
        # the potential energy the fall can release, or one contact's energy at a small
        # overlap if that is more (no gravity, no height)
        r = self.radius
        released = self.mass * self.gravity * sum(y - r for y in self._start[1::2])
        return max(released, self.contact_energy(SCALE_OVERLAP * r))

    def contact_energy(self, overlap: float) -> float:
        """The energy stored in one contact at ``overlap`` (J)."""
        if self.hertz:
            return 0.4 * self.k * overlap * overlap * math.sqrt(overlap)
        return 0.5 * self.k * overlap * overlap

    # -- the step -------------------------------------------------------------------------
    def impact_speed(self) -> float:
        """The fastest impact of the fall from the start, ``sqrt(2 g h)`` with h the highest
        ball's height above the floor (a ball's bottom), at least :data:`MIN_IMPACT_SPEED`."""
        top = max(self._start[1::2]) - self.radius
        return max(math.sqrt(2.0 * self.gravity * top), MIN_IMPACT_SPEED)

    def contact_time(self, speed: float | None = None) -> float:
        """Duration of the shortest contact (s): between two balls (a ball and a wall with one
        ball), ``pi sqrt(m_eff/k)`` for the linear law, ``3.218 (m_eff/k)^0.4 speed^-0.2`` for
        Hertz at ``speed`` (default :meth:`impact_speed`); undamped values."""
        m_eff = 0.5 * self.mass if self.n > 1 else self.mass
        if not self.hertz:
            return math.pi * math.sqrt(m_eff / self.k)
        if speed is None:
            speed = self.impact_speed()
        duration: float = 3.218 * (m_eff / self.k) ** 0.4 * speed**-0.2
        return duration

    @property
    def recommended_dt(self) -> float:
        return _nice_step(self.contact_time() / STEPS_PER_CONTACT)

    # -- the view ---------------------------------------------------------------------------
    def drawing(self, q: Vector) -> dict[str, list[float]]:
        return {"x": q[0::2], "y": q[1::2]}

    def scene_geometry(self) -> SceneGeometry:
        # the box up to the highest ball at the start. Not a bound of the exact motion: a
        # collision can hand one ball the energy of others (a ball dropped on a ball rises
        # above its start), and the energy bound, every ball's fall in one, is far too tall
        r = self.radius
        return SceneGeometry(
            shape="circle",
            body_width=2.0 * r,
            body_height=2.0 * r,
            bounds=(0.0, self.width, 0.0, max(self._start[1::2]) + r),
        )

    @classmethod
    def describe(cls) -> dict[str, Any]:
        out = super().describe()
        out["coordinates"] = ["x<i>, y<i> for each ball"]
        out["coordinate_units"] = ["m"]
        return out


def _push(hertz: bool, k: float, c: float, overlap: float, rate: float) -> tuple[float, float]:
    """``(force, dissipated power)`` of a contact of stiffness ``k`` and damping ``c`` (the
    law's, or divided by a mass) at ``overlap``, closing at ``rate``."""
    if hertz:
        root = math.sqrt(overlap)
        elastic = k * overlap * root
        force = elastic + c * math.sqrt(root) * rate
    else:
        elastic = k * overlap
        force = elastic + c * rate
    if force > 0.0:
        return force, (force - elastic) * rate
    return 0.0, -elastic * rate
