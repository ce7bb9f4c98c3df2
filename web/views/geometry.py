"""The geometry view of a system, shared by the dashboards: the stability regions of the
selected integrators with the system's points ``dt lambda``, and each integrator's ring of
states in the phase plane with its area ratio (:mod:`integrator_lab.core.stability`,
:mod:`integrator_lab.core.area`).

:class:`GeometrySession` holds the numbers (pure Python: it also runs in the page's worker);
:class:`GeometryFigures` draws them into Bokeh figures. What a region means for each kind of
method is in ``docs/stability.rst``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING, Any

from integrator_lab.core import get_system
from integrator_lab.core.area import Ring, ring_scale
from integrator_lab.core.divergence import DivergenceRule
from integrator_lab.core.stability import (
    linear_modes,
    method,
    mode_stable,
    region,
    scaled_points,
    verdict,
)
from integrator_lab.views.scene import FALLBACK_COLOR, INTEGRATOR_COLORS, USER_COLOR, shown_name

if TYPE_CHECKING:
    from integrator_lab.core.custom import MethodEntry
    from integrator_lab.views.live import Live, SystemRun

#: the region's window in the plane of z = dt lambda, and its cell (coarser than the CLI's: a
#: region costs a tenth of a second or two, once per method)
WINDOW = (-4.0, 2.0, -3.5, 3.5)
CELL = 0.1
#: states on each ring, its radius (relative to the start state), the area samples kept
RING_POINTS = 48
RING_RADIUS = 0.08
AREA_HISTORY = 400
#: the most steps a ring takes per update (it falls behind the live run rather than stall)
MAX_RING_STEPS = 400
#: a ring is judged (diverged or not) after every block of this many steps: the time it
#: diverged is known to that many steps (a block per step costs half as much again)
JUDGED_STEPS = 4
#: a point outside a method's region is drawn in the dashboards' "diverged" grey
OUTSIDE_COLOR = "#b0b0b0"
#: the rings' axes fit the rings whose area stayed within this factor of the start: one that
#: ran away (explicit Euler's grows by 1e16 in seconds) would shrink the others to dots; it is
#: drawn clipped, its area plot says how far it went
RING_FIT_FACTOR = 100.0

#: every text of the view, in English and Japanese
TEXTS = {
    "en": {
        "open": "Geometry",
        "open.tip": "Stability regions and phase-space area of the selected integrators",
        "region.title": "Stability regions in the plane of z = dt·λ",
        "region.x": "Re(dt·λ)",
        "region.y": "Im(dt·λ)",
        "phase.title": "Each integrator's ring of states",
        "area.title": "Area of the ring / area at the start",
        "time": "t (s)",
        "intro": (
            "Left: each integrator is stable inside its line; × is this system at this dt. "
            "A solid line holds the ×, a dashed line does not: that run diverges. Right: a "
            "ring of start states carried by each integrator; symplectic methods keep its "
            "area, explicit Euler inflates it."
        ),
        "outside": "{name}: dt·λ outside the region, the run diverges",
        "inside": "{name}: stable",
        "adaptive": "{name}: adaptive, it shortens its steps: no verdict at a fixed dt",
        "point.pendulum": "The point: dt·λ at the bottom of the swing (θ = 0), its fastest",
        "point.spring": "The point: dt·λ of the spring",
        "point.cradle": "The points: the swing and the stiffest contact at impact",
        "point.constant-force": "The point: dt·λ at the start",
        "point.drag": "The point: dt·λ of the drag",
    },
    "ja": {
        "open": "幾何",
        "open.tip": "選んだ積分法の安定領域と位相空間の面積",
        "region.title": "z = dt·λ 平面の安定領域",
        "region.x": "Re(dt·λ)",
        "region.y": "Im(dt·λ)",
        "phase.title": "積分法ごとの状態の輪",
        "area.title": "輪の面積 / 最初の面積",
        "time": "t (s)",
        "intro": (
            "左: 各積分法は線の内側で安定。× はこの dt でのこの系。実線は × を内に含み、"
            "破線は含まない (その計算は発散する)。右: 初期状態の輪を各積分法で運んだもの。"
            "シンプレクティック法は面積を保ち、陽的オイラー法は広げる。"
        ),
        "outside": "{name}: dt·λ が領域の外、計算は発散する",
        "inside": "{name}: 安定",
        "adaptive": "{name}: 適応刻み (刻みを自分で縮める): 固定 dt での判定なし",
        "point.pendulum": "点: 振れの最下点 (θ = 0、最も速いところ) での dt·λ",
        "point.spring": "点: ばねの dt·λ",
        "point.cradle": "点: 振り子の振れと、衝突時の最も硬い接触",
        "point.constant-force": "点: 初期状態での dt·λ",
        "point.drag": "点: 抵抗の dt·λ",
    },
}


def text(key: str, lang: str = "en", **values: object) -> str:
    catalog = TEXTS.get(lang, TEXTS["en"])
    return catalog.get(key, TEXTS["en"][key]).format(**values)


def color_of(name: str) -> str:
    if name in INTEGRATOR_COLORS:
        return INTEGRATOR_COLORS[name]
    return USER_COLOR if name else FALLBACK_COLOR


_REGIONS: dict[str, tuple[list[float], list[float]]] = {}


def region_line(entry: MethodEntry) -> tuple[str, list[float], list[float]]:
    """``(name, xs, ys)`` of an integrator's region boundary, pieces separated by NaN (one
    Bokeh line); built-ins are computed once per process."""
    m = method(entry)
    key = m.name if isinstance(entry, str) else None
    if key is not None and key in _REGIONS:
        known_xs, known_ys = _REGIONS[key]
        return m.name, known_xs, known_ys
    xs: list[float] = []
    ys: list[float] = []
    for piece in region(m, WINDOW, CELL):
        if xs:
            xs.append(math.nan)
            ys.append(math.nan)
        xs.extend(x for x, _ in piece)
        ys.extend(y for _, y in piece)
    if key is not None:
        _REGIONS[key] = (xs, ys)
    return m.name, xs, ys


class GeometrySession:
    """One system's geometry: regions of ``entries`` (names or users' definitions), the
    points ``dt lambda`` of its modes, and one :class:`~integrator_lab.core.area.Ring` per
    entry advanced with the live run's step."""

    def __init__(
        self,
        system: str,
        params: dict[str, float],
        entries: list[MethodEntry],
        dt: float,
    ) -> None:
        self.system = get_system(system, **params)
        self.entries = list(entries)
        self.methods = {}
        self.regions = {}
        for entry in self.entries:
            name, xs, ys = region_line(entry)
            self.methods[name] = method(entry)
            self.regions[name] = (xs, ys)
        self.names = list(self.methods)
        self.modes = linear_modes(self.system)
        self.dt = dt
        self.rings = {
            name: Ring(self.system, entry, dt, RING_RADIUS, RING_POINTS)
            for name, entry in zip(self.names, self.entries)
        }
        scale = ring_scale(self.system, RING_RADIUS)
        self.coordinate = scale.coordinate
        self.ring_radii = (scale.radius_q, scale.radius_v)
        #: the live run's rule (core.divergence): a ring whose states it refuses has diverged
        self.rule = DivergenceRule(self.system)
        self.history = {name: deque([(0.0, 1.0)], maxlen=AREA_HISTORY) for name in self.names}

    # -- the points -------------------------------------------------------------------------
    def points(self, dt: float | None = None) -> list[tuple[float, float]]:
        """The points ``dt lambda`` (default: the session's dt)."""
        return scaled_points(self.modes, self.dt if dt is None else dt)

    def verdicts(self, dt: float | None = None) -> dict[str, bool | None]:
        """Per integrator: whether every point lies in its region (None: no fixed-step
        verdict, :func:`~integrator_lab.core.stability.verdict`)."""
        step = self.dt if dt is None else dt
        return {name: verdict(m, self.modes, step) for name, m in self.methods.items()}

    def verdict_lines(self, lang: str = "en", name_of: Any = None) -> list[dict[str, Any]]:
        """One verdict per integrator, ``{"name", "ok", "text"}`` (``ok``: as
        :meth:`verdicts`; ``name_of(name, lang)``: its shown name)."""
        shown = name_of or (lambda name, _lang: name)
        key = {True: "inside", False: "outside", None: "adaptive"}
        return [
            {"name": name, "ok": ok, "text": text(key[ok], lang, name=shown(name, lang))}
            for name, ok in self.verdicts().items()
        ]

    def point_text(self, lang: str = "en") -> str:
        """Which state the points describe."""
        return text(f"point.{self.system.name}", lang)

    def verdict_text(self, lang: str = "en", name_of: Any = None) -> str:
        """What the view says under the regions: which state the points describe, then one
        verdict per integrator (``name_of(name, lang)``: its shown name)."""
        said = [line["text"] for line in self.verdict_lines(lang, name_of)]
        return " · ".join([self.point_text(lang), *said])

    def point_columns(self, dt: float | None = None) -> dict[str, list[Any]]:
        """One marker per integrator and point: its colour inside the region, grey outside;
        sizes grow with the integrator's index so that every verdict stays visible."""
        columns: dict[str, list[Any]] = {"x": [], "y": [], "color": [], "size": [], "name": []}
        step = self.dt if dt is None else dt
        for index, (name, m) in enumerate(self.methods.items()):
            for mode in self.modes:
                inside = mode_stable(m, mode, step)
                for x, y in scaled_points([mode], step):
                    columns["x"].append(x)
                    columns["y"].append(y)
                    columns["color"].append(color_of(name) if inside else OUTSIDE_COLOR)
                    columns["size"].append(9 + 6 * (len(self.methods) - 1 - index))
                    columns["name"].append(name)
        return columns

    # -- the rings -------------------------------------------------------------------------
    def set_dt(self, dt: float) -> None:
        """A new step: the points move at once; the rings start again from the start state."""
        if dt != self.dt:
            self.dt = dt
            self.reset_rings()

    def reset_rings(self) -> None:
        self.rings = {
            name: Ring(self.system, entry, self.dt, RING_RADIUS, RING_POINTS)
            for name, entry in zip(self.names, self.entries)
        }
        for history in self.history.values():
            history.clear()
            history.append((0.0, 1.0))

    def advance_to(self, time: float) -> None:
        """Step every ring up to ``time`` (s), at most :data:`MAX_RING_STEPS` steps.

        A ring has diverged when a step fails or leaves the finite numbers, when the live
        run's rule (core.divergence) refuses one of its states, or when its area is no
        longer a positive finite number: a ring that runs away is stretched into a needle
        whose polygon area rounding turns to noise (Verlet outside its region showed an area
        of -6.4 after seconds). A diverged ring keeps its last sound states and area, to be
        drawn greyed."""
        for name, ring in self.rings.items():
            steps = min(MAX_RING_STEPS, int((time - ring.time) / self.dt + 1e-9))
            last = None  # (time, area ratio) after the last sound block
            while steps > 0 and ring.diverged_at is None:
                block = min(steps, JUDGED_STEPS)
                steps -= block
                sound = ring.states
                ring.advance(block)
                if ring.diverged_at is not None:
                    break
                ratio = ring.area_ratio()
                if not (math.isfinite(ratio) and ratio > 0.0) or self._refused(ring):
                    ring.diverged_at = ring.time
                    ring.states = sound
                    break
                last = (ring.time, ratio)
            if last is not None:
                self.history[name].append(last)

    def _refused(self, ring: Ring) -> bool:
        judge = self.rule.judge
        return any(judge(q, v, 0.0, ring.time)[0] is not None for q, v in ring.states)

    def ring_columns(self) -> dict[str, list[Any]]:
        """Per integrator its ring (closed) in the plane of the ring's coordinate, for a
        Bokeh ``multi_line``/``patches``; a diverged ring is left out."""
        i = self.coordinate
        columns: dict[str, list[Any]] = {"xs": [], "ys": [], "color": [], "name": []}
        for name, ring in self.rings.items():
            if ring.diverged_at is not None:
                continue
            xs = [q[i] for q, _ in ring.states]
            ys = [v[i] for _, v in ring.states]
            columns["xs"].append([*xs, xs[0]])
            columns["ys"].append([*ys, ys[0]])
            columns["color"].append(color_of(name))
            columns["name"].append(name)
        return columns

    def ring_cards(self) -> list[dict[str, Any]]:
        """Per integrator what the page draws in its own frame: the ring (closed) in units of
        the start ring's radii, so that the start ring is a circle of radius 1, its centre
        (the mean of its states), its latest area ratio and when it diverged (None if not:
        then ``ratio`` is the last area before that)."""
        i = self.coordinate
        rq, rv = self.ring_radii
        cards = []
        for name, ring in self.rings.items():
            xs = [round(q[i] / rq, 6) for q, _ in ring.states]
            ys = [round(v[i] / rv, 6) for _, v in ring.states]
            cards.append(
                {
                    "name": name,
                    "color": color_of(name),
                    "xs": [*xs, xs[0]],
                    "ys": [*ys, ys[0]],
                    "centre": [sum(xs) / len(xs), sum(ys) / len(ys)],
                    "ratio": self.history[name][-1][1],
                    "diverged_at": ring.diverged_at,
                }
            )
        return cards

    def area_columns(self) -> dict[str, list[Any]]:
        columns: dict[str, list[Any]] = {"xs": [], "ys": [], "color": [], "name": []}
        for name, history in self.history.items():
            columns["xs"].append([t for t, _ in history])
            columns["ys"].append([a for _, a in history])
            columns["color"].append(color_of(name))
            columns["name"].append(name)
        return columns

    def ring_window(self) -> list[float] | None:
        """``[x0, x1, y0, y1]``: a square window, centred on the rings whose area stayed within
        :data:`RING_FIT_FACTOR` of the start (all of them if none did), that holds them with a
        margin of 5 %; None when no ring is drawn. Both dashboards frame the rings with it."""
        columns = self.ring_columns()
        if not columns["xs"]:
            return None
        ratios = self.area_ratios()

        def kept(name: str) -> bool:
            ratio = ratios.get(name)
            return ratio is None or (
                ratio > 0 and abs(math.log10(ratio)) <= math.log10(RING_FIT_FACTOR)
            )

        fit = [i for i, name in enumerate(columns["name"]) if kept(name)]
        fit = fit or list(range(len(columns["name"])))
        xs = [x for i in fit for x in columns["xs"][i] if math.isfinite(x)]
        ys = [y for i in fit for y in columns["ys"][i] if math.isfinite(y)]
        if not xs or not ys:
            return None
        half = 0.55 * max(max(xs) - min(xs), max(ys) - min(ys))
        if not half > 0:  # (a ring drawn as one point)
            half = max(abs(xs[0]), abs(ys[0]), 1.0) * RING_RADIUS
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        return [cx - half, cx + half, cy - half, cy + half]

    def area_ratios(self) -> dict[str, float | None]:
        """The latest area ratio per integrator (None once its ring diverged)."""
        return {
            name: None if self.rings[name].diverged_at is not None else history[-1][1]
            for name, history in self.history.items()
        }


class GeometryFollower:
    """One system's geometry view following a live
    :class:`~integrator_lab.views.system_run.SystemRun`: a new session when the run's parameters or
    integrators change, the points when its dt moves, the rings up to its time (from the
    start again after a new dt or a reset). Both dashboards use it."""

    def __init__(self, system: str) -> None:
        self.system = system
        self.session: GeometrySession | None = None
        self.key: tuple[Any, ...] | None = None
        self.error: Exception | None = None
        self.shown_dt: float | None = None

    def follow(self, run: SystemRun | None) -> dict[str, bool]:
        """Catch up with ``run``; says what changed: ``regions`` (a new session, or an
        error in ``self.error``) and ``points`` (dt moved since :meth:`shown`)."""
        changed = {"regions": False, "points": False}
        if run is None:
            return changed
        key = (tuple(sorted(run.system.params.items())), tuple(run.integrators))
        if key != self.key:
            self.key = key
            changed["regions"] = True
            self.shown_dt = None
            try:
                self.session = GeometrySession(
                    self.system, dict(run.system.params), list(run.entries), run.dt
                )
                self.error = None
            except ValueError as exc:
                self.session, self.error = None, exc
                return changed
        session = self.session
        if session is None:
            return changed
        now = run.runner.time
        if run.dt != session.dt or any(r.time > now + 1e-12 for r in session.rings.values()):
            session.dt = run.dt
            session.reset_rings()  # a new step, or the run went back to its start
        session.advance_to(now)
        changed["points"] = self.shown_dt != session.dt
        return changed

    def shown(self) -> None:
        """The points of the current dt are on screen."""
        if self.session is not None:
            self.shown_dt = self.session.dt


class Geometries:
    """The page worker's open geometry views (one :class:`GeometryFollower` per system):
    :meth:`step` gives, per open view, the data to draw (JSON-ready, no NaN: the region's
    pieces are separate lists)."""

    def __init__(self) -> None:
        self.followers: dict[str, GeometryFollower] = {}
        self.lang = "en"

    def set_open(self, system: str, open_: bool, lang: str = "en") -> None:
        self.lang = lang if lang in TEXTS else "en"
        if open_:
            self.followers[system] = GeometryFollower(system)  # drawn afresh
        else:
            self.followers.pop(system, None)

    @property
    def running(self) -> bool:
        return bool(self.followers)

    def step(self, live: Live) -> list[dict[str, Any]]:
        updates: list[dict[str, Any]] = []
        for system, follower in self.followers.items():
            changed = follower.follow(live.runs.get(system))
            update: dict[str, Any] = {"system": system}
            if follower.error is not None:
                if changed["regions"]:
                    update["error"] = str(follower.error)
                    updates.append(update)
                continue
            session = follower.session
            if session is None:
                continue
            if changed["regions"]:
                update["regions"] = {
                    name: [piece for piece in _pieces(*session.regions[name])]
                    for name in session.names
                }
                update["colors"] = {name: color_of(name) for name in session.names}
                update["window"] = list(WINDOW)
                update["texts"] = {
                    "intro": text("intro", self.lang),
                    "region": text("region.title", self.lang),
                    "phase": text("phase.title", self.lang),
                    "x": text("region.x", self.lang),
                    "y": text("region.y", self.lang),
                }
            if changed["points"]:
                update["points"] = [list(point) for point in session.points()]
                update["verdicts"] = session.verdicts()
                update["verdict_lines"] = session.verdict_lines(self.lang, shown_name)
                update["point_text"] = session.point_text(self.lang)
                update["dt"] = session.dt
                follower.shown()
            update["cards"] = session.ring_cards()
            update["areas"] = session.area_ratios()
            updates.append(update)
        return updates


def _pieces(xs: list[float], ys: list[float]) -> list[list[list[float]]]:
    """A NaN-separated line as its pieces ``[[x, y], ...]``."""
    pieces: list[list[list[float]]] = [[]]
    for x, y in zip(xs, ys):
        if math.isnan(x):
            pieces.append([])
        else:
            pieces[-1].append([round(x, 4), round(y, 4)])
    return [p for p in pieces if p]
