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

import math
from array import array

from integrator_lab.core import INTEGRATORS
from integrator_lab.views.shared import (  # noqa: F401 - SAMPLE_COLUMNS re-exported
    BODY_COLUMNS,
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
#: colour of the exact solution's ghost
GHOST_COLOR = "#9a9a9a"

#: width / height of every animation view (the figures keep this aspect ratio)
SCENE_ASPECT = 4.0 / 3.0
#: relative energy errors below this are drawn at this value (a log axis cannot show 0)
ERROR_FLOOR = 1e-16

#: spring drawing: zig-zag segments between the two straight leads
SPRING_ZIGS = 12

_NAN = float("nan")


def color_of(name: str) -> str:
    return INTEGRATOR_COLORS.get(name, FALLBACK_COLOR)


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
    cls = INTEGRATORS[name]
    kind = "symplectic" if cls.symplectic else "not symplectic"
    how = "implicit" if cls.implicit else "explicit"
    order = f"order {cls.order}" + (f" ({cls.order_note()})" if cls.order_note() else "")
    return f"{cls.title}: {order}, {kind}, {how}. {cls.description}"


def _finite(values) -> bool:
    try:
        return all(math.isfinite(x) for x in values)
    except TypeError:
        return False


def _fit_aspect(x_range, y_range, aspect=SCENE_ASPECT):
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


class Scene:
    """Drawing of one system under the integrators ``names`` (in that order).

    Static parts, fixed until the system or the integrator list changes:

    - ``shape``: ``"circle"`` (``w`` is the diameter) or ``"rect"`` bodies;
    - ``x_range``, ``y_range``: the view, with aspect :data:`SCENE_ASPECT`;
    - ``bodies``, ``links``: dicts of columns ``integrator``, ``color`` (and ``w``, ``h`` for
      bodies), one row per drawn body or link; :meth:`frame` fills in the coordinates;
    - ``ghost_bodies``, ``ghost_links``: the same for the exact solution (no rows when the
      system has no exact solution);
    - ``fixtures``: links that never move (pivot bar, wall), columns ``x0, y0, x1, y1``.

    :meth:`frame` returns the moving coordinates for a list of states, one per integrator.
    """

    def __init__(self, system, names):
        self.system = system
        self.names = list(names)
        self.kind = system.name
        #: ``(t, exception)`` once the exact solution failed: the ghost stays hidden from then
        #: on (until :meth:`clear_exact_failure`), the integrators are drawn as before
        self.exact_failure = None
        try:
            self.has_exact = system.exact(0.0) is not None
        except Exception as exc:  # noqa: BLE001 - any failure of the view's extra
            self.has_exact = False
            self.exact_failure = (0.0, exc)
        build = {
            "pendulum": self._layout_pendulum,
            "cradle": self._layout_cradle,
            "spring": self._layout_spring,
        }.get(self.kind)
        if build is None:
            raise ValueError(
                f"no scene for system {self.kind!r}; scenes exist for: pendulum, cradle, spring"
            )
        self.fixtures = {c: [] for c in LINK_COLUMNS}
        build()
        lanes = len(self.names)
        ghosts = 1 if self.has_exact else 0
        self.bodies = self._static_rows(self.bodies_per_lane, lanes)
        self.bodies["w"] = self._body_w * (lanes or 0)
        self.bodies["h"] = self._body_h * (lanes or 0)
        self.bodies["r"] = [w / 2.0 for w in self.bodies["w"]]
        self.links = self._static_rows(self.links_per_lane, lanes)
        self.ghost_bodies = {"w": self._ghost_body_w * ghosts, "h": self._ghost_body_h * ghosts}
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

    def _static_rows(self, per_lane, lanes):
        integrator, color, about = [], [], []
        for name in self.names[:lanes]:
            integrator += [name] * per_lane
            color += [color_of(name)] * per_lane
            about += [integrator_about(name)] * per_lane
        return {"integrator": integrator, "color": color, "about": about}

    # -- layouts --------------------------------------------------------------------------
    def _layout_pendulum(self):
        s = self.system
        length = s.length
        # highest point the exact motion reaches (above the pivot for large swings)
        theta0, omega0 = s.params["theta0"], s.params["omega0"]
        rise = 1.0 - math.cos(theta0) + omega0 * omega0 / (2.0 * s.w2)  # (1 - cos theta_max)
        top = (
            1.2 * length if rise > 1.0 else max(0.25 * length, (rise - 1.0) * length + 0.2 * length)
        )
        self.shape = "circle"
        self.x_range, self.y_range = _fit_aspect(
            (-1.2 * length, 1.2 * length), (-1.2 * length, top)
        )
        self.bodies_per_lane, self.links_per_lane = 1, 1
        self.ghost_links_per_lane = 1
        diameter = 0.12 * length
        self._body_w = self._body_h = [diameter]
        self._ghost_body_w = self._ghost_body_h = [diameter]
        bar = 0.08 * length
        self.fixtures = {"x0": [-bar], "y0": [0.0], "x1": [bar], "y1": [0.0]}

    def _layout_cradle(self):
        s = self.system
        reach = s.length * math.sin(min(s.params["angle"], math.pi / 2)) + s.radius
        margin = 3.0 * s.radius
        x_range = (
            s.pivots[0] - max(reach, 2 * s.radius) - margin,
            s.pivots[-1] + max(reach, 2 * s.radius) + margin,
        )
        y_range = (-s.length - s.radius - margin, margin)
        self.shape = "circle"
        self.x_range, self.y_range = _fit_aspect(x_range, y_range)
        self.bodies_per_lane = self.links_per_lane = s.n
        self.ghost_links_per_lane = 0
        self._body_w = self._body_h = [2.0 * s.radius] * s.n
        self._ghost_body_w = self._ghost_body_h = []
        bar = 2.0 * s.radius
        self.fixtures = {
            "x0": [s.pivots[0] - bar],
            "y0": [0.0],
            "x1": [s.pivots[-1] + bar],
            "y1": [0.0],
        }

    def _layout_spring(self):
        s = self.system
        # amplitude of the exact motion, from the initial energy (1 m when it starts at rest)
        energy = s.energy_scale()
        amplitude = math.sqrt(2.0 * energy / s.k) if energy > 0.0 else 1.0
        self.amplitude = amplitude
        self.half_block = 0.2 * amplitude
        self.wall = -1.9 * amplitude  # the spring's fixed end
        x_range = (self.wall - 0.15 * amplitude, 1.6 * amplitude)
        width = x_range[1] - x_range[0]
        height = width / SCENE_ASPECT
        lanes = max(len(self.names), 1)
        self.row = height / max(lanes, 4)
        self.rows_y = [(lanes - 1) / 2.0 * self.row - i * self.row for i in range(lanes)]
        self.shape = "rect"
        self.x_range, self.y_range = x_range, (-height / 2.0, height / 2.0)
        self.bodies_per_lane = 1
        self.links_per_lane = SPRING_ZIGS + 2
        self.ghost_links_per_lane = 0
        block_h = 0.7 * self.row
        self._body_w, self._body_h = [2.0 * self.half_block], [block_h]
        # the ghost: one outline block in every row
        self._ghost_body_w = [2.0 * self.half_block] * len(self.names)
        self._ghost_body_h = [block_h] * len(self.names)
        span = self.rows_y[0] - self.rows_y[-1] + self.row
        self.fixtures = {
            "x0": [self.wall],
            "y0": [span / 2.0],
            "x1": [self.wall],
            "y1": [-span / 2.0],
        }

    # -- frames ---------------------------------------------------------------------------
    def frame(self, states, t=None) -> dict:
        """Moving coordinates for ``states`` (one ``q`` list per integrator, or ``None`` for
        one that is not drawn, e.g. diverged) and, when ``t`` is given, the exact ghost at t.

        Returns ``{"bodies": {x, y}, "links": {x0, y0, x1, y1}, "ghost_bodies": {x, y},
        "ghost_links": {x0, y0, x1, y1}}``, each column an ``array('d')`` whose rows match
        the static columns; undrawn rows are NaN (Bokeh skips them). When the exact solution
        raises, the ghost's rows are NaN from then on and :attr:`exact_failure` says why.
        """
        bodies = {c: array("d") for c in BODY_COLUMNS}
        links = {c: array("d") for c in LINK_COLUMNS}
        for lane, q in enumerate(states):
            if q is None or not _finite(q):
                for c in BODY_COLUMNS:
                    bodies[c].extend([_NAN] * self.bodies_per_lane)
                for c in LINK_COLUMNS:
                    links[c].extend([_NAN] * self.links_per_lane)
                continue
            self._draw(lane, q, bodies, links)
        ghost_bodies = {c: array("d") for c in BODY_COLUMNS}
        ghost_links = {c: array("d") for c in LINK_COLUMNS}
        if self.has_exact:
            exact = None
            if t is not None and self.exact_failure is None:
                try:
                    exact = self.system.exact(t)
                except Exception as exc:  # noqa: BLE001 - the ghost is an extra: hide it
                    self.exact_failure = (t, exc)
            if exact is None or not _finite(exact[0]):
                for c in BODY_COLUMNS:
                    ghost_bodies[c].extend([_NAN] * len(self.ghost_bodies["w"]))
                for c in LINK_COLUMNS:
                    ghost_links[c].extend([_NAN] * self.n_ghost_links)
            elif self.kind == "spring":
                for lane in range(len(self.names)):
                    self._draw(lane, exact[0], ghost_bodies, None)
            else:
                self._draw(0, exact[0], ghost_bodies, ghost_links)
        return {
            "bodies": bodies,
            "links": links,
            "ghost_bodies": ghost_bodies,
            "ghost_links": ghost_links,
        }

    def clear_exact_failure(self) -> None:
        """Try the exact solution again (the run restarted from t = 0)."""
        if self.exact_failure is not None and self.exact_failure[0] > 0.0:
            self.exact_failure = None

    def _draw(self, lane, q, bodies, links):
        s = self.system
        if self.kind == "pendulum":
            d = s.drawing(q)
            bodies["x"].append(d["x"][0])
            bodies["y"].append(d["y"][0])
            if links is not None:
                _segment(links, 0.0, 0.0, d["x"][0], d["y"][0])
        elif self.kind == "cradle":
            d = s.drawing(q)
            bodies["x"].extend(d["x"])
            bodies["y"].extend(d["y"])
            if links is not None:
                for px, x, y in zip(d["pivot_x"], d["x"], d["y"]):
                    _segment(links, px, 0.0, x, y)
        else:  # spring
            x = s.drawing(q)["x"][0]
            y = self.rows_y[lane]
            bodies["x"].append(x)
            bodies["y"].append(y)
            if links is not None:
                self._zigzag(links, self.wall, x - self.half_block, y)

    def _zigzag(self, links, start, end, y):
        lead = 0.08 * (end - start) if end > start else 0.0
        a, b = start + lead, end - lead
        amp = 0.22 * self.row
        _segment(links, start, y, a, y)
        previous = (a, y)
        for i in range(1, SPRING_ZIGS + 1):
            if i == SPRING_ZIGS:
                point = (b, y)
            else:
                point = (a + (b - a) * i / SPRING_ZIGS, y + (amp if i % 2 else -amp))
            _segment(links, previous[0], previous[1], point[0], point[1])
            previous = point
        _segment(links, b, y, end, y)


def _segment(links, x0, y0, x1, y1):
    links["x0"].append(x0)
    links["y0"].append(y0)
    links["x1"].append(x1)
    links["y1"].append(y1)


# -- samples for the energy and phase plots ------------------------------------------------
def error_scale(system, energy0: float) -> float:
    """Denominator of the relative energy error: |E(0)|, or the system's characteristic
    energy when E(0) is zero (a spring at rest)."""
    return abs(energy0) if energy0 != 0.0 else system.energy_scale()


def sample_columns(flat, stride: int, ndof: int, energy0: float, scale: float) -> dict:
    """Columns :data:`SAMPLE_COLUMNS` from one integrator's flat batch (``Runner.take_batch``).

    ``q`` and ``v`` are the first coordinate and its velocity (for the phase plot); ``error``
    is ``|total - energy0| / scale``, floored at :data:`ERROR_FLOOR`.
    """
    out = {c: array("d") for c in SAMPLE_COLUMNS}
    t_col, q_col, v_col = out["t"], out["q"], out["v"]
    k_col, p_col, d_col = out["kinetic"], out["potential"], out["dissipated"]
    total_col, err_col = out["total"], out["error"]
    base = 1 + 2 * ndof
    for row in range(0, len(flat), stride):
        t_col.append(flat[row])
        q_col.append(flat[row + 1])
        v_col.append(flat[row + 1 + ndof])
        k_col.append(flat[row + base])
        p_col.append(flat[row + base + 1])
        d_col.append(flat[row + base + 2])
        total = flat[row + base + 3]
        total_col.append(total)
        err_col.append(max(abs(total - energy0) / scale, ERROR_FLOOR))
    return out


def initial_sample(system) -> dict:
    """The :data:`SAMPLE_COLUMNS` of the state at t = 0 (one value each)."""
    q, v = system.initial_state()
    kinetic, potential, dissipated, total = system.energies(q, v, 0.0)
    return {
        "t": 0.0,
        "q": q[0],
        "v": v[0],
        "kinetic": kinetic,
        "potential": potential,
        "dissipated": dissipated,
        "total": total,
        "error": ERROR_FLOOR,
    }


def exact_curve(system, points: int = 400) -> dict | None:
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
        omega = math.sqrt(system.k_over_m)
        # decay to 1% of the amplitude, but at most 3 periods (more clutters the plot)
        decay = math.log(100.0) / system.gamma if system.gamma > 0.0 else math.inf
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
    return {"q": q, "v": v}


def sample_every(dt: float, per_second: float = 60.0) -> int:
    """Runner ``every`` so that the energy plots get about ``per_second`` samples per
    simulated second."""
    return max(1, int(round(1.0 / (per_second * dt))))
