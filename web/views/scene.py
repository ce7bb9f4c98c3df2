"""The animation's view model: the bodies and links of one system under several integrators,
drawn from their states as plain columns.

Pure Python and standard library only (no Bokeh), because the same code runs in the
static-site builder (initial positions) and in the engine (every frame), in the page's
Pyodide worker as in a Panel session. The Bokeh figures that display these columns live in
:mod:`integrator_lab.views.scene_figures`.

- :class:`Scene` turns the states of several integrators of one system into the coordinates
  of bodies (balls, bobs, blocks) and links (strings, rods, springs), plus a faint "ghost"
  drawn from the exact solution where one exists (a body under the pointer is mapped back to
  an initial state by the page: static/js/dragmath.js, from each layout's ``origins`` and
  ``pivots``).
- :func:`grid_shape` lays out the small multiples.

The energy and phase plots' samples are :mod:`integrator_lab.views.samples`'s, the
integrators' colours, names and labels :mod:`integrator_lab.views.integrators`'s; both are
re-exported here, where the views have always found them.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from integrator_lab.core.systems.base import SceneGeometry, System
from integrator_lab.views.integrators import (
    FALLBACK_COLOR,
    GHOST_COLOR,
    INTEGRATOR_COLORS,
    INTEGRATOR_NAMES,
    USER_COLOR,
    color_of,
    integrator_about,
    integrator_label,
    shown_name,
)
from integrator_lab.views.samples import (
    ERROR_FLOOR,
    ERROR_FLOOR_EXPONENT,
    all_finite,
    error_scale,
    exact_curve,
    initial_sample,
    phase_labels,
    sample_columns,
    sample_every,
    signed_log,
    wrap_angle,
    wraps_angle,
)
from integrator_lab.views.shared import (
    BODY_COLUMNS,
    GHOST_BODY_COLUMNS,
    GHOST_LINK_COLUMNS,
    LINK_COLUMNS,
    SAMPLE_COLUMNS,
)

#: this module's names, and those it re-exports: the samples' and the integrators' (which
#: lived here once) and the columns of :mod:`integrator_lab.views.shared` that code takes
#: from here
__all__ = [
    "BODY_COLUMNS",
    "GHOST_BODY_COLUMNS",
    "GHOST_LINK_COLUMNS",
    "LINK_COLUMNS",
    "ERROR_FLOOR",
    "ERROR_FLOOR_EXPONENT",
    "FALLBACK_COLOR",
    "GHOST_COLOR",
    "INTEGRATOR_COLORS",
    "INTEGRATOR_NAMES",
    "SAMPLE_COLUMNS",
    "SCENE_ASPECT",
    "SPRING_ZIGS",
    "USER_COLOR",
    "Box",
    "Scene",
    "color_of",
    "error_scale",
    "exact_curve",
    "grid_shape",
    "initial_sample",
    "integrator_about",
    "integrator_label",
    "phase_labels",
    "sample_columns",
    "sample_every",
    "shown_name",
    "signed_log",
    "wrap_angle",
    "wraps_angle",
]

#: width / height of every animation view (the figures keep this aspect ratio)
SCENE_ASPECT = 4.0 / 3.0

#: spring drawing: zig-zag segments between the two straight leads
SPRING_ZIGS = 12

_NAN = float("nan")


#: ``(x0, x1, y0, y1)`` of a box, or ``(x0, y0, x1, y1)`` of a segment
Box = tuple[float, float, float, float]


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

    def __init__(self, system: System, names: Iterable[str]) -> None:
        self.system = system
        self.names = list(names)
        self.kind = system.name
        geometry = system.scene_geometry()
        if geometry is None:
            raise ValueError(
                f"no scene for system {self.kind!r}; scenes exist for: pendulum, cradle, spring"
            )
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
            stopped = q is None or not all_finite(q) or bool(diverged and diverged[lane])
            if q is not None and all_finite(q):
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
            if exact is None or not all_finite(exact[0]):
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
