"""One system under several integrators, for a viewer: its runner, its scene, and what a
view needs of it: the layout when it is (re)built, a frame of positions and samples on every
tick, its real-time factor and why it stopped.

Pure Python (core + :mod:`integrator_lab.views.scene` and friends), so it runs in the static
page's worker (Pyodide) and in the Panel server alike. :class:`integrator_lab.views.live.Live`
paces many of these and keeps one system's failure from stopping the others; a
:class:`SystemRun` knows nothing of the other systems, of the compute budget or of speed
beyond what one :meth:`SystemRun.advance` is handed. :mod:`integrator_lab.views.live`
re-exports these names, where they were defined before.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Iterable
from typing import Any

from integrator_lab.core import INTEGRATORS, Runner, get_system
from integrator_lab.core.custom import MethodDefinition
from integrator_lab.views import drag
from integrator_lab.views.energy import EnergyView, bar_layout
from integrator_lab.views.integrators import color_of, integrator_label
from integrator_lab.views.samples import (
    error_scale,
    exact_curve,
    sample_columns,
    sample_every,
    wraps_angle,
)
from integrator_lab.views.scene import Scene
from integrator_lab.views.shared import (
    DT_RANGE,
    FRAME_SCENE,
    SAMPLE_COLUMNS,
    describe_error,
    failure_text,
)

#: samples each lane keeps for a batch not yet taken (the page holds its own bounded copy)
RUNNER_CAPACITY = 4000
#: the real-time factor is measured over this much wall time (s)
RTF_WINDOW = 1.0
#: samples per simulated second sent to the energy plots
SAMPLES_PER_SECOND = 60.0


def check_dt(dt: object) -> float:
    """Validate a time step from the page: a number in :data:`DT_RANGE` (s)."""
    if (
        isinstance(dt, bool)
        or not isinstance(dt, (int, float))
        or not math.isfinite(dt)
        or not DT_RANGE[0] <= dt <= DT_RANGE[1]
    ):
        raise ValueError(
            f"'dt': got {dt!r}, expected a number in [{DT_RANGE[0]:g}, {DT_RANGE[1]:g}] s"
        )
    return float(dt)


def method_label(method: MethodDefinition) -> str:
    """The legend label of a user's method: its name, its order (computed or declared) and
    that it is the user's own."""
    return f"{method.name} · {method.describe()['order_text']} · yours"


class SystemRun:
    """One system under several integrators: runner, scene and bookkeeping for the page.

    ``integrators`` are built-in names; ``method`` is the user's own method (a parsed
    definition, :mod:`integrator_lab.core.custom`), raced after them in a lane of its own.
    """

    def __init__(
        self,
        name: str,
        params: dict[str, Any],
        dt: float | None,
        integrators: Iterable[str],
        method: MethodDefinition | None = None,
    ) -> None:
        self.name = name
        self.system = get_system(name, **params)
        self.title = getattr(self.system, "title", name)
        #: why the exact phase-space curve is missing, if it failed
        self.curve_failure: str | None = None
        self.dt = self.system.recommended_dt if dt is None else check_dt(dt)
        self.builtins = list(integrators)
        self.method = method
        self.entries: list[Any] = [*self.builtins, *([method] if method is not None else [])]
        self.integrators = [*self.builtins, *([method.name] if method is not None else [])]
        self.scene = Scene(self.system, self.integrators)
        #: the names the energy plot's marks show (:meth:`Live.set_shown_names`)
        self.shown_names: dict[str, str] = {}
        self.reset()

    def reset(self) -> None:
        self.runner = Runner(
            self.system,
            self.entries,
            self.dt,
            every=sample_every(self.dt, SAMPLES_PER_SECOND),
            capacity=RUNNER_CAPACITY,
        )
        self.energy0 = self.runner.energy0
        self.scale = error_scale(self.system, self.energy0)
        #: seconds of compute per step, measured (exponential average)
        self.cost: float | None = None
        self.rtf_wall = 0.0
        self.rtf_sim = 0.0
        self.rtf_start = 0.0
        self.rtf: float | None = None
        self.failure: str | None = None  # what stopped this system (text), None while it runs
        self.scene.clear_exact_failure()
        self.wrap = wraps_angle(self.system)
        #: the energy plot's axes and clipped marks (views.energy), fed every frame's samples
        scene = self.scene
        self.energy = EnergyView(
            labels=self.shown_names,
            colors=self.colors(),
            names=self.integrators,
            bars=bar_layout(
                scene.boxes,
                scene.fixtures["ly"],
                None if scene.in_rows else scene.fixtures["lx"],
            ),
        )
        self.last_q: dict[str, float] = {}  # each lane's last phase-plot q sent
        self.changed = True

    def set_shown_names(self, names: dict[str, str]) -> None:
        self.shown_names = dict(names)
        self.energy.labels = dict(names)

    def colors(self) -> dict[str, Any]:
        """Each lane's colour (the user's method has its own)."""
        return {name: color_of(name) for name in self.integrators}

    def layout(self) -> dict[str, Any]:
        """What the page needs when this run is (re)built: static scene, ranges, counts."""
        scene = self.scene
        self.curve_failure = None
        try:
            curve = exact_curve(self.system)
        except Exception as exc:  # noqa: BLE001 - the curve is an extra: leave it out
            curve = None
            self.curve_failure = describe_error(exc)
        return {
            "system": self.name,
            "params": dict(self.system.params),
            "dt": self.dt,
            "recommended_dt": self.system.recommended_dt,
            "integrators": list(self.integrators),
            # the user's method has no entry in the page's tables: its colour and label
            "method": self.method.describe() if self.method is not None else None,
            "colors": {name: color_of(name) for name in self.integrators},
            "labels": {
                name: integrator_label(name)
                if name in INTEGRATORS or self.method is None
                else method_label(self.method)
                for name in self.integrators
            },
            "shape": scene.shape,
            "x_range": list(scene.x_range),
            "y_range": list(scene.y_range),
            "bodies": {k: list(v) for k, v in scene.bodies.items()},
            "links": {k: list(v) for k, v in scene.links.items()},
            "ghost_bodies": {k: list(v) for k, v in scene.ghost_bodies.items()},
            "n_ghost_links": scene.n_ghost_links,
            "counts": scene.counts(),
            "fixtures": {k: list(v) for k, v in scene.fixtures.items()},
            # where each lane's origin sits in the view and the system's pivots about it:
            # the page maps a dragged body back to the initial state (static/js/drag.js)
            "origins": [list(o) for o in scene.offsets],
            "pivots": [list(p) for p in scene.geometry.pivots],
            # the rules of a drag (views.drag), which the page applies pointer by pointer
            "drag": drag.rules(),
            "exact_curve": curve,
            "columns": list(SAMPLE_COLUMNS),
        }

    def wanted_steps(self, wall: float, speed: float) -> float:
        return (self.runner.accumulator + wall * speed) / self.dt

    def advance(self, wall: float, speed: float, max_steps: float) -> int:
        started = time.perf_counter()
        before = self.runner.time
        steps = self.runner.tick(wall, speed, max_steps=max(0, int(max_steps)))
        if steps:
            spent = time.perf_counter() - started
            per_step = spent / steps
            self.cost = per_step if self.cost is None else 0.7 * self.cost + 0.3 * per_step
            self.changed = True
        self.count_wall(wall, self.runner.time - before)
        return steps

    def fail(self, what: str, exc: BaseException) -> None:
        """Stop this system after ``what`` raised ``exc``; the page is told once."""
        self.failure = failure_text(self.title, self.runner.time, what, exc)
        self.rtf = None
        self.changed = True

    def alerts(self) -> list[str]:
        """What the page shows on this system's panel: why it stopped, or what of its view
        failed."""
        out = []
        if self.failure:
            out.append(self.failure)
        failed = self.scene.exact_failure
        if failed is not None or self.curve_failure:
            why = describe_error(failed[1]) if failed is not None else self.curve_failure
            when = f" at t = {failed[0]:.4g} s" if failed is not None else ""
            out.append(
                f"{self.title}: the exact solution failed{when} ({why}); its ghost "
                f"is hidden, the integrators go on."
            )
        return out

    def failed_frame(self) -> dict[str, Any]:
        """The frame of a stopped system: no new positions or samples, only why."""
        self.changed = False
        return {
            "time": self.runner.time,
            "rtf": None,
            "lanes": [],
            "diverged": {},
            "reasons": {},
            "data": array("d"),
            "alerts": self.alerts(),
            "failed": True,
        }

    def count_wall(self, wall: float, sim: float) -> None:
        """Count ``wall`` seconds of wall time in which the simulation moved ``sim`` seconds
        (0 while paused or held) towards the real-time factor, which is updated once a
        :data:`RTF_WINDOW` is full."""
        self.rtf_wall += wall
        self.rtf_sim += sim
        if self.rtf_wall >= RTF_WINDOW:
            self.rtf = self.rtf_sim / self.rtf_wall
            self.rtf_wall = self.rtf_sim = 0.0

    def frame(self, everything: bool = False) -> dict[str, Any]:
        """The scene at the current time and every sample not sent yet (with
        ``everything``, every sample kept), in one flat buffer laid out as
        :data:`~integrator_lab.views.shared.FRAME_SCENE` says (``Scene.counts`` values per
        column), then per integrator (in ``lanes`` order) the :data:`SAMPLE_COLUMNS`, column
        after column, ``lanes[i][1]`` samples each."""
        runner = self.runner
        # a diverged lane keeps its last accepted state: its bodies stay there, greyed
        states = [lane.q for lane in runner.lanes]
        stopped = [lane.diverged_at is not None for lane in runner.lanes]
        scene = self.scene.frame(states, runner.time, stopped)
        data = array("d")
        for role, role_columns in FRAME_SCENE:
            for c in role_columns:
                data.extend(scene[role][c])
        batch = runner.take_batch(everything)
        if everything:  # every sample kept, from the start: the view sees them again
            self.energy.reset()
        lanes = []
        ndof = self.system.ndof
        for name, flat in batch["lanes"].items():
            previous = None if everything else self.last_q.get(name)
            cols = sample_columns(
                flat,
                batch["stride"],
                ndof,
                self.energy0,
                self.scale,
                wrap=self.wrap,
                previous=previous,
            )
            if len(cols["q"]):
                self.last_q[name] = cols["q"][-1]
            logs = self.energy.add(name, cols)  # the log view's maximum, carried over
            cols["log_gain"], cols["log_loss"] = array("d", logs["gain"]), array("d", logs["loss"])
            lanes.append([name, len(cols["t"])])
            for c in SAMPLE_COLUMNS:
                data.extend(cols[c])
        self.energy.stopped = {n for n, s in zip(self.integrators, stopped) if s}
        self.changed = False
        return {
            "time": runner.time,
            "rtf": self.rtf,
            "lanes": lanes,
            "diverged": {name: d["at"] for name, d in batch["diverged"].items()},
            "reasons": {name: d["reason"] for name, d in batch["diverged"].items()},
            "data": data,
            "alerts": self.alerts(),
            "failed": False,
            # the energy plot's y-range in each mode and the methods clipped at its edge
            "energy": self.energy.view(),
        }
