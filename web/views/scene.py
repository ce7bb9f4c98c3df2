"""What the dashboard draws, as plain columns: the view model between the core and the plots.

Pure Python and standard library only (no Bokeh), because the same code runs in three places:
the static-site builder (initial positions), the Pyodide worker of the static page (every
frame) and the Panel server app. Bokeh figures that display these columns live in
:mod:`integrator_lab.views.figures`.

- :class:`Scene` turns the states of several integrators of one system into the coordinates
  of bodies (balls, bobs, blocks) and links (strings, rods, springs), plus a faint "ghost"
  drawn from the exact solution where one exists.
- :func:`sample_columns` turns a runner batch into the columns streamed to the energy and
  phase plots (one row per sample).
- :func:`exact_curve` samples the exact phase-space trajectory for the phase plot.
- :data:`INTEGRATOR_COLORS` is the one colour per integrator used everywhere.
"""

from __future__ import annotations

import dataclasses
import math
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from integrator_lab.core import INTEGRATORS
from integrator_lab.core.params import Param
from integrator_lab.core.systems.base import SceneGeometry, System
from integrator_lab.views.energy import log_value, running_log_columns
from integrator_lab.views.shared import (  # noqa: F401 - SAMPLE_COLUMNS re-exported
    BODY_COLUMNS,
    GHOST_BODY_COLUMNS,
    GHOST_LINK_COLUMNS,
    LINK_COLUMNS,
    SAMPLE_COLUMNS,
)

#: one colour per integrator, the same in every plot and legend: Okabe & Ito's colour-blind
#: safe set (black, vermillion, blue, bluish green, orange, sky blue) completed with Paul
#: Tol's sand, pink, dark red, dark yellow and purple, chosen so that every pair differs by at
#: least 18 CIELAB ΔE*ab for normal vision and under simulated deuteranopia and protanopia
#: (tests/site/test_legend_layout.py checks it)
INTEGRATOR_COLORS = {
    "euler": "#d55e00",
    "symplectic-euler": "#0072b2",
    "velocity-verlet": "#009e73",
    "leapfrog": "#33bbee",
    "midpoint": "#ddcc77",
    "heun": "#666633",
    "rk4": "#e69f00",
    "implicit-euler": "#aa3377",
    "implicit-midpoint": "#663333",
    "yoshida4": "#ffaabb",
    "rk45": "#000000",
}
FALLBACK_COLOR = "#555555"
#: the colour of a user's own method (any name that is not a built-in's): none of the above
USER_COLOR = "#e6007e"
#: colour of the exact solution's ghost
GHOST_COLOR = "#9a9a9a"

#: width / height of every animation view (the figures keep this aspect ratio)
SCENE_ASPECT = 4.0 / 3.0
#: signed relative energy errors of at most this size are drawn at 0 on the signed-log axis
#: (:func:`signed_log`): that is double rounding accumulated over a run's 1e4-1e5 steps
#: (about 1e-16 each), not the integrator's doing; every method's truncation error at the
#: recommended time steps is above it (rk45's is near 1e-9)
ERROR_FLOOR_EXPONENT = -12
ERROR_FLOOR = 10.0**ERROR_FLOOR_EXPONENT

#: spring drawing: zig-zag segments between the two straight leads
SPRING_ZIGS = 12

_NAN = float("nan")


#: ``(x0, x1, y0, y1)`` of a box, or ``(x0, y0, x1, y1)`` of a segment
Box = tuple[float, float, float, float]


#: the integrators' short names in each language but English (where the code name is the
#: name), shown wherever the English shows the code name: the lanes, the legend, the menu of
#: integrators, the energy plot's marks, "diverged at", the study's and the geometry's lines
#: (views.i18n's ``name.NAME``; the URL, the CLI and the CSV keep the code names)
INTEGRATOR_NAMES = {
    "ja": {
        "euler": "陽的オイラー",
        "symplectic-euler": "シンプレクティック・オイラー",
        "velocity-verlet": "速度ベルレ",
        "leapfrog": "リープフロッグ",
        "midpoint": "陽的中点",
        "heun": "ホイン",
        "rk4": "RK4",
        "implicit-euler": "陰的オイラー",
        "implicit-midpoint": "陰的中点",
        "yoshida4": "吉田 4 次",
        "rk45": "RK45",
    },
}


def shown_name(name: str, lang: str = "en") -> str:
    """The name integrator ``name`` is shown by in ``lang``: a built-in's short name, a
    user's method (or a language without a table) its own name."""
    return INTEGRATOR_NAMES.get(lang, {}).get(name, name)


def color_of(name: str) -> str:
    """An integrator's colour; a name that is not a built-in's is the user's own method."""
    if name in INTEGRATORS:
        return INTEGRATOR_COLORS.get(name, FALLBACK_COLOR)
    return USER_COLOR


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def integrator_label(name: str) -> str:
    """Short legend label: name, order (and the lower one with damping, where it drops), and
    whether the method is symplectic."""
    cls = INTEGRATORS[name]
    order = f"{_ordinal(cls.order)} order"
    if cls.damped_order() != cls.order:
        order += f" ({_ordinal(cls.damped_order())} if damped)"
    return f"{name} · {order}" + (" · symplectic" if cls.symplectic else "")


def integrator_about(name: str) -> str:
    """One line for tooltips: title, order, symplectic or not, explicit or implicit."""
    if name not in INTEGRATORS:
        return f"{name}: your own method"
    cls = INTEGRATORS[name]
    kind = "symplectic" if cls.symplectic else "not symplectic"
    how = "implicit" if cls.implicit else "explicit"
    order = f"order {cls.order}" + (f" ({cls.order_note()})" if cls.order_note() else "")
    return f"{cls.title}: {order}, {kind}, {how}. {cls.description}"


def _finite(values: Any) -> bool:
    try:
        return all(math.isfinite(x) for x in values)
    except TypeError:
        return False


def _fit_aspect(
    x_range: tuple[float, float], y_range: tuple[float, float], aspect: float = SCENE_ASPECT
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Grow the smaller span around its centre so that width / height == aspect."""
    (x0, x1), (y0, y1) = x_range, y_range
    width, height = x1 - x0, y1 - y0
    if width < aspect * height:
        grow = (aspect * height - width) / 2.0
        x0, x1 = x0 - grow, x1 + grow
    else:
        grow = (width / aspect - height) / 2.0
        y0, y1 = y0 - grow, y1 + grow
    return (x0, x1), (y0, y1)


def grid_shape(lanes: int, cell_aspect: float, aspect: float = SCENE_ASPECT) -> tuple[int, int]:
    """``(columns, rows)`` of small multiples that draws cells of ``cell_aspect`` (width /
    height) largest in a view of ``aspect``; fewer empty cells break ties."""
    lanes = max(lanes, 1)
    best: tuple[tuple[float, int], tuple[int, int]] | None = None
    for cols in range(1, lanes + 1):
        rows = -(-lanes // cols)
        # the cells' scale when the grid (cols * cell_aspect by rows) fits in aspect by 1
        scale = min(aspect / (cols * cell_aspect), 1.0 / rows)
        key = (-round(scale, 9), cols * rows - lanes)
        if best is None or key < best[0]:
            best = (key, (cols, rows))
    assert best is not None  # lanes >= 1: the loop ran
    return best[1]


def _pin(x: float, y: float, box: Box, half_w: float, half_h: float) -> tuple[float, float, bool]:
    """``(x, y)`` moved into ``box`` (x0, x1, y0, y1) so that a body of half-size ``half_w``,
    ``half_h`` stays whole inside, and whether it had to move."""
    x0, x1, y0, y1 = box
    px = min(max(x, x0 + half_w), x1 - half_w)
    py = min(max(y, y0 + half_h), y1 - half_h)
    return px, py, (px != x or py != y)


class Scene:
    """Drawing of one system under the integrators ``names`` (in that order), from the
    system's :meth:`~integrator_lab.core.systems.base.System.scene_geometry`.

    Every integrator gets a lane of its own, so that integrators that agree stay visible:
    bodies that hang from pivots (pendulum, cradle) get small multiples, a grid of cells,
    each with its pivots; a body on a spring gets a row, all rows tied to one wall. Each lane
    is labelled with its integrator and holds the exact solution's ghost where one exists.

    Static parts, fixed until the system or the integrator list changes:

    - ``shape``: ``"circle"`` (``w`` is the diameter) or ``"rect"`` bodies;
    - ``x_range``, ``y_range``: the view, with aspect :data:`SCENE_ASPECT`;
    - ``bodies``, ``links``: dicts of columns ``integrator``, ``color`` (and ``w``, ``h`` for
      bodies), one row per drawn body or link; :meth:`frame` fills in the coordinates;
    - ``ghost_bodies``, ``ghost_links``: the same for the exact solution (no rows when the
      system has no exact solution);
    - ``fixtures``: one row per lane: the pivot bar or the wall (``x0, y0, x1, y1``) and
      the lane's label (``lx, ly, label, color, integrator``).

    :meth:`frame` returns the moving coordinates for a list of states, one per integrator.
    A body never leaves its lane: one beyond it is pinned at the lane's edge and gets an
    arrow pointing the way it went. A diverged integrator's bodies stay where it stopped.
    """

    def __init__(self, system: System, names: Iterable[str], bounds: Box | None = None) -> None:
        """``bounds``: lay the lanes out for these bounds (``SceneGeometry.bounds``) rather
        than for the system's own: a view keeps its layout while a body is dragged."""
        self.system = system
        self.names = list(names)
        self.kind = system.name
        geometry = system.scene_geometry()
        if geometry is None:
            raise ValueError(
                f"no scene for system {self.kind!r}; scenes exist for: pendulum, cradle, spring"
            )
        if bounds is not None:
            geometry = dataclasses.replace(geometry, bounds=bounds)
        self.geometry = geometry
        self.shape = geometry.shape
        #: ``(t, exception)`` once the exact solution failed: the ghost stays hidden from then
        #: on (until :meth:`clear_exact_failure`), the integrators are drawn as before
        self.exact_failure = None
        try:
            self.has_exact = system.exact(0.0) is not None
        except Exception as exc:  # noqa: BLE001 - any failure of the view's extra
            self.has_exact = False
            self.exact_failure = (0.0, exc)
        self._initial_q = list(system.initial_state()[0])
        self._last_q: dict[int, list[float]] = {}  # last state drawn of each lane
        lanes = len(self.names)
        #: one row per lane across the scene (the spring's), else small multiples (cells)
        self.in_rows = geometry.wall is not None
        if self.in_rows:
            self._layout_rows(geometry, lanes)
        else:
            self._layout_cells(geometry, lanes)
        ghosts = lanes if self.has_exact else 0
        self.bodies = self._static_rows(self.bodies_per_lane)
        self.bodies["w"] = [self._body_w] * len(self.bodies["color"])
        self.bodies["h"] = [self._body_h] * len(self.bodies["color"])
        self.bodies["r"] = [w / 2.0 for w in self.bodies["w"]]
        self.links = self._static_rows(self.links_per_lane)
        self.ghost_bodies = {
            "w": [self._body_w] * (self.bodies_per_lane * ghosts),
            "h": [self._body_h] * (self.bodies_per_lane * ghosts),
        }
        self.ghost_bodies["r"] = [w / 2.0 for w in self.ghost_bodies["w"]]
        self.n_ghost_links = self.ghost_links_per_lane * ghosts

    def counts(self) -> dict[str, int]:
        """Rows of each moving role of :data:`FRAME_SCENE`: how many values each of its
        columns has in a frame."""
        return {
            "bodies": len(self.bodies["color"]),
            "links": len(self.links["color"]),
            "ghost_bodies": len(self.ghost_bodies["w"]),
            "ghost_links": self.n_ghost_links,
        }

    def _static_rows(self, per_lane: int) -> dict[str, list[Any]]:
        integrator, color, about = [], [], []
        for name in self.names:
            integrator += [name] * per_lane
            color += [color_of(name)] * per_lane
            about += [integrator_about(name)] * per_lane
        return {"integrator": integrator, "color": color, "about": about}

    def _labels(self, positions: Sequence[tuple[float, float]]) -> dict[str, list[Any]]:
        """The label columns of :attr:`fixtures`: each lane's integrator at ``positions``."""
        return {
            "lx": [x for x, _ in positions],
            "ly": [y for _, y in positions],
            "label": list(self.names),
            "color": [color_of(n) for n in self.names],
            "integrator": list(self.names),
        }

    # -- layouts --------------------------------------------------------------------------
    def _layout_cells(self, g: SceneGeometry, lanes: int) -> None:
        """Small multiples: one cell per lane, each with the system's pivots."""
        bx0, bx1, by0, by1 = g.bounds
        pivot_top = max(y for _, y in g.pivots) if g.pivots else by1
        # room above the pivots: a coarse step can throw a ball over its bar
        top = max(by1, pivot_top + 0.3 * g.rod)
        pad = 0.06 * max(bx1 - bx0, top - by0)
        label_h = 0.14 * (top - by0 + 2.0 * pad)
        cx0, cx1, cy0, cy1 = bx0 - pad, bx1 + pad, by0 - pad, top + pad + label_h
        width, height = cx1 - cx0, cy1 - cy0
        cols, rows = grid_shape(lanes, width / height)
        self.x_range, self.y_range = _fit_aspect((0.0, cols * width), (-rows * height, 0.0))
        self.bodies_per_lane = self.links_per_lane = len(g.pivots)
        self.ghost_links_per_lane = len(g.pivots)
        self._body_w, self._body_h = g.body_width, g.body_height
        self.offsets, self.boxes, labels = [], [], []
        bar: dict[str, list[float]] = dict(x0=[], y0=[], x1=[], y1=[])
        px = [x for x, _ in g.pivots]
        for lane in range(lanes):
            col, row = lane % cols, lane // cols
            left, cell_top = col * width, -row * height
            ox, oy = left - cx0, cell_top - cy1
            self.offsets.append((ox, oy))
            self.boxes.append((left, left + width, cell_top - height, cell_top - label_h))
            labels.append((left + 0.5 * pad, cell_top - 0.5 * label_h))
            bar["x0"].append(min(px) - g.body_width + ox)
            bar["x1"].append(max(px) + g.body_width + ox)
            bar["y0"].append(pivot_top + oy)
            bar["y1"].append(pivot_top + oy)
        self.fixtures = {**bar, **self._labels(labels)}

    def _layout_rows(self, g: SceneGeometry, lanes: int) -> None:
        """One row per lane, every row's spring tied to the same wall."""
        wall = g.wall
        assert wall is not None  # the rows are for a system with a wall
        bx1 = g.bounds[1]
        span = bx1 - wall
        x_range = (wall - 0.06 * span, bx1 + 0.1 * span)
        width = x_range[1] - x_range[0]
        height = width / SCENE_ASPECT
        self.row = height / max(lanes, 4)
        self.rows_y = [(lanes - 1) / 2.0 * self.row - i * self.row for i in range(lanes)]
        self.x_range, self.y_range = x_range, (-height / 2.0, height / 2.0)
        self.bodies_per_lane = 1
        self.links_per_lane = SPRING_ZIGS + 2
        self.ghost_links_per_lane = 0
        self._body_w, self._body_h = g.body_width, 0.55 * self.row
        self.wall = wall
        self.offsets = [(0.0, y) for y in self.rows_y]
        # the block stays between the wall and the view's right edge, within its row
        self.boxes = [
            (wall, x_range[1], y - self.row / 2.0, y + self.row / 2.0) for y in self.rows_y
        ]
        self.fixtures = {
            "x0": [wall] * lanes,
            "y0": [y + self.row / 2.0 for y in self.rows_y],
            "x1": [wall] * lanes,
            "y1": [y - self.row / 2.0 for y in self.rows_y],
            **self._labels([(wall + 0.03 * width, y + 0.36 * self.row) for y in self.rows_y]),
        }

    # -- frames ---------------------------------------------------------------------------
    def frame(
        self,
        states: Sequence[list[float] | None],
        t: float | None = None,
        diverged: Sequence[bool] | None = None,
    ) -> dict[str, Any]:
        """Moving coordinates for ``states`` (one ``q`` list per integrator) and, when ``t``
        is given, the exact ghost at t.

        A lane whose ``diverged`` entry is true, or whose state is ``None`` or not finite,
        is drawn in the ``f*`` columns (greyed by the figures), at its state if that is
        finite, else where it was last drawn (else at the initial state).

        Returns ``{"bodies": {...}, "links": {...}, "ghost_bodies": {x, y},
        "ghost_links": {x0, y0, x1, y1}}`` with the columns of :data:`FRAME_SCENE`, each an
        ``array('d')`` whose rows match the static columns; undrawn rows are NaN (Bokeh skips
        them). When the exact solution raises, the ghost's rows are NaN from then on and
        :attr:`exact_failure` says why.
        """
        bodies = {c: array("d") for c in BODY_COLUMNS}
        links = {c: array("d") for c in LINK_COLUMNS}
        for lane, q in enumerate(states):
            stopped = q is None or not _finite(q) or bool(diverged and diverged[lane])
            if q is not None and _finite(q):
                self._last_q[lane] = list(q)
            else:
                q = self._last_q.get(lane, self._initial_q)
            placed, segments = self._draw(lane, q)
            drawn, blank = (("fx", "fy"), ("x", "y")) if stopped else (("x", "y"), ("fx", "fy"))
            for x, y, pinned, angle in placed:
                bodies[drawn[0]].append(x)
                bodies[drawn[1]].append(y)
                bodies[blank[0]].append(_NAN)
                bodies[blank[1]].append(_NAN)
                bodies["ax"].append(x if pinned else _NAN)
                bodies["ay"].append(y if pinned else _NAN)
                bodies["angle"].append(angle if pinned else _NAN)
            moving, still = ("x0", "y0", "x1", "y1"), ("fx0", "fy0", "fx1", "fy1")
            if stopped:
                moving, still = still, moving
            for segment in segments:
                for c, value in zip(moving, segment):
                    links[c].append(value)
                for c in still:
                    links[c].append(_NAN)
        ghost_bodies = {c: array("d") for c in GHOST_BODY_COLUMNS}
        ghost_links = {c: array("d") for c in GHOST_LINK_COLUMNS}
        if self.has_exact:
            exact = None
            if t is not None and self.exact_failure is None:
                try:
                    exact = self.system.exact(t)
                except Exception as exc:  # noqa: BLE001 - the ghost is an extra: hide it
                    self.exact_failure = (t, exc)
            if exact is None or not _finite(exact[0]):
                for c in GHOST_BODY_COLUMNS:
                    ghost_bodies[c].extend([_NAN] * len(self.ghost_bodies["w"]))
                for c in GHOST_LINK_COLUMNS:
                    ghost_links[c].extend([_NAN] * self.n_ghost_links)
            else:
                for lane in range(len(self.names)):
                    placed, segments = self._draw(lane, exact[0])
                    for x, y, _pinned, _angle in placed:
                        ghost_bodies["x"].append(x)
                        ghost_bodies["y"].append(y)
                    if self.ghost_links_per_lane:
                        for segment in segments:
                            for c, value in zip(GHOST_LINK_COLUMNS, segment):
                                ghost_links[c].append(value)
        return {
            "bodies": bodies,
            "links": links,
            "ghost_bodies": ghost_bodies,
            "ghost_links": ghost_links,
        }

    def clear_exact_failure(self) -> None:
        """Try the exact solution again (the run restarted from t = 0)."""
        self._last_q.clear()
        if self.exact_failure is not None and self.exact_failure[0] > 0.0:
            self.exact_failure = None

    def _draw(
        self, lane: int, q: list[float]
    ) -> tuple[list[tuple[float, float, bool, float]], list[Box]]:
        """Bodies ``(x, y, pinned, arrow angle)`` and link segments of lane ``lane`` at
        state ``q``, in the view's coordinates, every body inside its lane."""
        ox, oy = self.offsets[lane]
        box = self.boxes[lane]
        half_w, half_h = self._body_w / 2.0, self._body_h / 2.0
        d = self.system.drawing(q)
        placed: list[tuple[float, float, bool, float]] = []
        segments: list[Box] = []
        for x, y in zip(d["x"], d["y"]):
            x, y = x + ox, y + oy
            px, py, pinned = _pin(x, y, box, half_w, half_h)
            # the triangle points up unrotated; turn it towards where the body went
            angle = math.atan2(y - py, x - px) - math.pi / 2.0 if pinned else 0.0
            placed.append((px, py, pinned, angle))
        if self.geometry.wall is None:
            for (pivot_x, pivot_y), (x, y, _p, _a) in zip(self.geometry.pivots, placed):
                segments.append((pivot_x + ox, pivot_y + oy, x, y))
        else:
            x, y = placed[0][0], placed[0][1]
            segments = self._zigzag(self.wall, x - half_w, y)
        return placed, segments

    # -- direct manipulation (the Panel dashboard; the static page's static/js/drag.js) ---
    def body_at(
        self, states: Sequence[list[float] | None], x: float, y: float, grab: float = 0.0
    ) -> tuple[int, int] | None:
        """The body under the view point ``(x, y)`` with the lanes at ``states``:
        ``(lane, ball)`` of the nearest centre within its half size plus ``grab``, or None."""
        best = None
        half_w, half_h = self._body_w / 2.0 + grab, self._body_h / 2.0 + grab
        for lane, q in enumerate(states):
            if q is None or not _finite(q):
                q = self._last_q.get(lane, self._initial_q)
            placed, _segments = self._draw(lane, q)
            for ball, (bx, by, _pinned, _angle) in enumerate(placed):
                dx, dy = abs(bx - x), abs(by - y)
                if self.shape == "rect":
                    inside = dx <= half_w and dy <= half_h
                else:
                    inside = math.hypot(dx, dy) <= half_w
                if inside and (best is None or math.hypot(dx, dy) < best[0]):
                    best = (math.hypot(dx, dy), lane, ball)
        return None if best is None else best[1:]

    def dragged_params(self, lane: int, ball: int, x: float, y: float) -> dict[str, float]:
        """The initial-state parameters that put body ``ball`` of lane ``lane`` at the view
        point ``(x, y)``, as the core declares them and before any range check: pendulum
        θ₀ from its pivot (ω₀ = 0); spring x₀, the displacement from rest (v₀ = 0); cradle:
        that ball and every ball to its left lifted, to the left, by ``angle`` (the
        declarations lift only the leftmost balls, to the left)."""
        ox, oy = self.offsets[lane]
        if self.geometry.wall is not None:
            return {"x0": x - ox, "v0": 0.0}
        px, py = self.geometry.pivots[ball]
        dx, dy = x - (px + ox), y - (py + oy)
        if self.kind == "pendulum":
            return {"theta0": math.atan2(dx, -dy), "omega0": 0.0}
        return {"angle": math.atan2(-dx, -dy), "lifted": ball + 1}

    def _zigzag(self, start: float, end: float, y: float) -> list[Box]:
        lead = 0.08 * (end - start) if end > start else 0.0
        a, b = start + lead, end - lead
        amp = 0.22 * self.row
        out = [(start, y, a, y)]
        previous = (a, y)
        for i in range(1, SPRING_ZIGS + 1):
            if i == SPRING_ZIGS:
                point = (b, y)
            else:
                point = (a + (b - a) * i / SPRING_ZIGS, y + (amp if i % 2 else -amp))
            out.append((previous[0], previous[1], point[0], point[1]))
            previous = point
        out.append((b, y, end, y))
        return out


# -- samples for the energy and phase plots ------------------------------------------------
def error_scale(system: System, energy0: float) -> float:
    """Denominator of the relative energy error: |E(0)|, or the system's characteristic
    energy when E(0) is zero (a spring at rest)."""
    return abs(energy0) if energy0 != 0.0 else system.energy_scale()


def signed_log(error: float) -> float:
    """Where the signed-log energy axis draws a signed relative ``error``:
    ``sign(error) * max(0, log10|error| - log10(ERROR_FLOOR))``, so that a gain of 10^k goes
    up by as much as a loss of 10^k goes down, and errors within :data:`ERROR_FLOOR` sit at 0:
    ``y`` stands for ``±10 ** (|y| + ERROR_FLOOR_EXPONENT)``.
    NaN and infinities pass through (a plot skips NaN)."""
    size = abs(error)
    if not size > ERROR_FLOOR:
        return 0.0 if size == size else error  # NaN stays NaN
    if size == math.inf:
        return error
    return math.copysign(math.log10(size) - ERROR_FLOOR_EXPONENT, error)


def wrap_angle(angle: float) -> float:
    """``angle`` (rad) brought into (-pi, pi]."""
    wrapped = math.remainder(angle, 2.0 * math.pi)
    return math.pi if wrapped == -math.pi else wrapped


def wraps_angle(system: System) -> bool:
    """Whether the phase plot wraps the first coordinate: it is an angle (its unit is rad)."""
    return bool(system.coordinate_units[0] == "rad")


def phase_labels(system: System) -> tuple[str, str]:
    """Axis labels of the phase plot, symbol and unit: ``("θ (rad)", "θ̇ (rad/s)")``,
    ``("x (m)", "v (m/s)")``."""
    name, unit = system.coordinates[0], system.coordinate_units[0]
    stem = name.rstrip("0123456789")
    index = name[len(stem) :].translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    symbol = _GREEK.get(stem, stem) + index
    rate = "v" if stem == "x" else _GREEK.get(stem, stem) + "\u0307" + index
    return f"{symbol} ({unit})", f"{rate} ({unit}/s)"


_GREEK = {"theta": "θ", "phi": "φ", "psi": "ψ", "alpha": "α"}


def sample_columns(
    flat: Sequence[float],
    stride: int,
    ndof: int,
    energy0: float,
    scale: float,
    *,
    wrap: bool = False,
    previous: float | None = None,
) -> dict[str, Any]:
    """Columns :data:`SAMPLE_COLUMNS` from one integrator's flat batch (``Runner.take_batch``).

    ``q`` and ``v`` are the first coordinate and its velocity (for the phase plot); ``error``
    is the signed relative energy error ``(total - energy0) / scale`` (positive: energy
    gained, negative: lost; ``total`` includes the work dissipated, so the exact motion has
    0), ``log_gain`` / ``log_loss`` the log view's columns
    (:func:`integrator_lab.views.energy.running_log_columns`, from this batch alone: the
    worker's :class:`~integrator_lab.views.energy.EnergyView` carries the maximum over).

    With ``wrap`` (an angle), ``q`` is wrapped into (-pi, pi], and where it jumps by more
    than pi from the sample before (``previous``, the last ``q`` of the batch before, for
    the first) a copy of the sample with ``q`` NaN goes first: the phase line breaks there
    instead of crossing the plot; the energy lines just pass through the same point twice.
    """
    out = {c: array("d") for c in SAMPLE_COLUMNS}
    t_col, q_col, v_col = out["t"], out["q"], out["v"]
    k_col, p_col, d_col = out["kinetic"], out["potential"], out["dissipated"]
    total_col, err_col = out["total"], out["error"]
    base = 1 + 2 * ndof
    for row in range(0, len(flat), stride):
        q = flat[row + 1]
        total = flat[row + base + 3]
        error = (total - energy0) / scale
        copies = 1
        if wrap:
            q = wrap_angle(q)
            if previous is not None and abs(q - previous) > math.pi:
                copies = 2
            previous = q
        for copy in range(copies):
            t_col.append(flat[row])
            q_col.append(_NAN if copy < copies - 1 else q)
            v_col.append(flat[row + 1 + ndof])
            k_col.append(flat[row + base])
            p_col.append(flat[row + base + 1])
            d_col.append(flat[row + base + 2])
            total_col.append(total)
            err_col.append(error)
    gain, loss, _ = running_log_columns(err_col)
    out["log_gain"], out["log_loss"] = array("d", gain), array("d", loss)
    return out


def initial_sample(system: System) -> dict[str, Any]:
    """The :data:`SAMPLE_COLUMNS` of the state at t = 0 (one value each)."""
    q, v = system.initial_state()
    kinetic, potential, dissipated, total = system.energies(q, v, 0.0)
    return {
        "t": 0.0,
        "q": wrap_angle(q[0]) if wraps_angle(system) else q[0],
        "v": v[0],
        "kinetic": kinetic,
        "potential": potential,
        "dissipated": dissipated,
        "total": total,
        "error": 0.0,
        "log_gain": log_value(0.0),
        "log_loss": _NAN,
    }


def exact_curve(system: System, points: int = 400) -> dict[str, Any] | None:
    """The exact trajectory in phase space (first coordinate, its velocity): one period of
    a periodic motion, or until a damped motion has decayed; None without an exact solution.
    """
    if system.exact(0.0) is None:
        return None
    duration = None
    period = getattr(system, "period", None)
    if callable(period):
        duration = period()
    elif system.name == "spring":
        spring: Any = system  # a DampedSpring: its own fields
        omega = math.sqrt(spring.k_over_m)
        # decay to 1% of the amplitude, but at most 3 periods (more clutters the plot)
        decay = math.log(100.0) / spring.gamma if spring.gamma > 0.0 else math.inf
        duration = min(decay, 3.0 * 2.0 * math.pi / omega)
        points = max(points, 600)
    if not duration or not math.isfinite(duration):
        return None
    q, v = array("d"), array("d")
    for i in range(points + 1):
        state = system.exact(duration * i / points)
        if state is None or not _finite(state[0] + state[1]):
            continue
        # a drawing needs 6 digits, and the page embeds this curve as text
        q.append(float(f"{state[0][0]:.6g}"))
        v.append(float(f"{state[1][0]:.6g}"))
    if wraps_angle(system) and q:
        q = array("d", (wrap_angle(x) for x in q))
        # a periodic orbit that goes round (a rotating pendulum) jumps once from pi to -pi:
        # start it there, so that the one line has no jump and needs no break (no NaN)
        jumps = [i for i in range(1, len(q)) if abs(q[i] - q[i - 1]) > math.pi]
        if jumps:
            k = jumps[0]
            q, v = q[k:] + q[1:k], v[k:] + v[1:k]
    return {"q": q, "v": v}


def sample_every(dt: float, per_second: float = 60.0) -> int:
    """Runner ``every`` so that the energy plots get about ``per_second`` samples per
    simulated second."""
    return max(1, int(round(1.0 / (per_second * dt))))


def clamp_to(param: Param, value: float) -> tuple[float, bool]:
    """``value`` within ``param``'s declared closed range: ``(value set, clamped?)``."""
    low = -math.inf if param.min is None else param.min
    high = math.inf if param.max is None else param.max
    kept = min(max(value, low), high)
    return kept, kept != value
