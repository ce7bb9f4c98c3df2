"""The simulation loop of the static page, run by its Web Worker inside Pyodide.

Pure Python (core + :mod:`integrator_lab.views.scene`), so it also runs, and is tested, in
CPython. The worker's JavaScript only moves messages: it calls :meth:`Live.configure` and
friends when a widget changes, and :meth:`Live.tick` on its own clock, then posts what
:meth:`Live.tick` returns to the page (flat ``array('d')`` buffers become transferred
``Float64Array`` s).

Frame budget: every tick covers the wall time elapsed since the last one, at the chosen
speed, for every system. When the steps that would take cost more than the tick's compute
budget, every system gets the same fraction of its steps and drops the rest of the time
(:meth:`Runner.tick` with ``max_steps``), so the simulation clocks slow down together and
smoothly instead of queueing work.

Isolation: one system's failure never stops the others. An exception while a system steps or
is drawn stops that system alone (its frame says so, with the error, in ``alerts``); an
exact solution that raises only hides that system's exact ghost and curve.
"""

from __future__ import annotations

import math
import time
from array import array

from integrator_lab.core import INTEGRATORS, Runner, get_system
from integrator_lab.views.scene import (
    Scene,
    error_scale,
    exact_curve,
    sample_columns,
    sample_every,
    wraps_angle,
)
from integrator_lab.views.shared import (
    DT_RANGE,
    FRAME_SCENE,
    SAMPLE_COLUMNS,
    describe_error,
    failure_text,
)

#: samples each lane keeps for a batch not yet taken (the page holds its own bounded copy)
RUNNER_CAPACITY = 4000
#: longest wall time one tick covers (s): after a stall (hidden tab) the clock just skips
MAX_WALL = 0.1
#: fraction of the elapsed wall time the worker may spend computing
BUDGET_FRACTION = 0.8
#: the real-time factor is measured over this much wall time (s)
RTF_WINDOW = 1.0
#: samples per simulated second sent to the energy plots
SAMPLES_PER_SECOND = 60.0
UNLIMITED = 10**9  # max_steps when the budget covers every step wanted


def check_dt(dt):
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


class SystemRun:
    """One system under several integrators: runner, scene and bookkeeping for the page."""

    def __init__(self, name, params, dt, integrators):
        self.name = name
        self.system = get_system(name, **params)
        self.title = getattr(self.system, "title", name)
        self.curve_failure = None  # why the exact phase-space curve is missing, if it failed
        self.dt = self.system.recommended_dt if dt is None else check_dt(dt)
        self.integrators = list(integrators)
        self.scene = Scene(self.system, self.integrators)
        self.reset()

    def reset(self):
        self.runner = Runner(
            self.system,
            self.integrators,
            self.dt,
            every=sample_every(self.dt, SAMPLES_PER_SECOND),
            capacity=RUNNER_CAPACITY,
        )
        self.energy0 = self.runner.energy0
        self.scale = error_scale(self.system, self.energy0)
        self.cost = None  # seconds of compute per step, measured (exponential average)
        self.rtf_wall = 0.0
        self.rtf_sim = 0.0
        self.rtf_start = 0.0
        self.rtf = None
        self.failure = None  # what stopped this system (text), None while it runs
        self.scene.clear_exact_failure()
        self.wrap = wraps_angle(self.system)
        self.last_q: dict[str, float] = {}  # each lane's last phase-plot q sent
        self.changed = True

    def layout(self) -> dict:
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
            "shape": scene.shape,
            "x_range": list(scene.x_range),
            "y_range": list(scene.y_range),
            "bodies": {k: list(v) for k, v in scene.bodies.items()},
            "links": {k: list(v) for k, v in scene.links.items()},
            "ghost_bodies": {k: list(v) for k, v in scene.ghost_bodies.items()},
            "n_ghost_links": scene.n_ghost_links,
            "counts": scene.counts(),
            "fixtures": {k: list(v) for k, v in scene.fixtures.items()},
            "exact_curve": curve,
            "columns": list(SAMPLE_COLUMNS),
        }

    def wanted_steps(self, wall, speed):
        return (self.runner.accumulator + wall * speed) / self.dt

    def advance(self, wall, speed, max_steps):
        started = time.perf_counter()
        before = self.runner.time
        steps = self.runner.tick(wall, speed, max_steps=max(0, int(max_steps)))
        if steps:
            spent = time.perf_counter() - started
            per_step = spent / steps
            self.cost = per_step if self.cost is None else 0.7 * self.cost + 0.3 * per_step
            self.changed = True
        self._measure(wall, self.runner.time - before)
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

    def failed_frame(self) -> dict:
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

    def _measure(self, wall, sim):
        self.rtf_wall += wall
        self.rtf_sim += sim
        if self.rtf_wall >= RTF_WINDOW:
            self.rtf = self.rtf_sim / self.rtf_wall
            self.rtf_wall = self.rtf_sim = 0.0

    def frame(self, everything: bool = False) -> dict:
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
        for role, cols in FRAME_SCENE:
            for c in cols:
                data.extend(scene[role][c])
        batch = runner.take_batch(everything)
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
            lanes.append([name, len(cols["t"])])
            for c in SAMPLE_COLUMNS:
                data.extend(cols[c])
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
        }


class Live:
    """Every system of the page, the shared speed and play state."""

    def __init__(self):
        self.runs: dict[str, SystemRun] = {}
        self.speed = 1.0
        self.playing = True

    def configure(self, name, params=None, dt=None, integrators=None) -> dict:
        """(Re)build system ``name``; returns ``{"layout": ..., "errors": [...]}``.

        Invalid settings are reported in ``errors`` and replaced by the defaults, so the
        page always gets a running system.
        """
        errors = []
        params = dict(params or {})
        if integrators is None:
            integrators = self.runs[name].integrators if name in self.runs else []
        integrators = [i for i in integrators if i in INTEGRATORS]
        try:
            run = SystemRun(name, params, dt, integrators)
        except Exception as exc:  # noqa: BLE001 - whatever fails, the page gets a system
            errors.append(str(exc) if isinstance(exc, ValueError) else describe_error(exc))
            try:
                run = SystemRun(name, params, None, integrators)
            except Exception:  # noqa: BLE001
                run = SystemRun(name, {}, None, integrators)
        self.runs[name] = run
        return {"layout": run.layout(), "errors": errors}

    def set_integrators(self, names) -> list[dict]:
        unknown = [n for n in names if n not in INTEGRATORS]
        if unknown or not names or len(set(names)) != len(names):
            raise ValueError(
                f"integrators: got {list(names)!r}, expected distinct names "
                f"among {', '.join(INTEGRATORS)}"
            )
        out = []
        for name, run in list(self.runs.items()):
            out.append(self.configure(name, run.system.params, run.dt, names))
        return out

    def set_speed(self, speed):
        self.speed = float(speed)

    def set_playing(self, playing):
        self.playing = bool(playing)

    def reset(self) -> list[dict]:
        """Every system back to t = 0; returns their layouts (as :meth:`configure`)."""
        for run in self.runs.values():
            try:
                run.reset()
            except Exception as exc:  # noqa: BLE001 - that system stops, the others reset
                run.fail("restarting", exc)
        return [{"layout": run.layout(), "errors": []} for run in self.runs.values()]

    def step(self):
        """One time step of every system (the page pauses first)."""
        for run in self.live_runs():
            try:
                run.runner.advance(1)
            except Exception as exc:  # noqa: BLE001 - that system stops, the others go on
                run.fail("computing its next step", exc)
            run.changed = True

    def live_runs(self) -> list[SystemRun]:
        """The systems that have not stopped on an error."""
        return [run for run in self.runs.values() if run.failure is None]

    def advance(self, wall: float) -> None:
        """Advance every system by ``wall`` seconds of wall time (at the current speed)
        within a compute budget of a fraction of ``wall``."""
        wall = min(max(wall, 0.0), MAX_WALL)
        if not (self.playing and wall > 0.0):
            for run in self.runs.values():
                run._measure(wall, 0.0)
            return
        runs = self.live_runs()
        wanted = [run.wanted_steps(wall, self.speed) for run in runs]
        # before the first measurement the cost per step is unknown: assume a slow one
        cost = sum(w * (run.cost if run.cost is not None else 1e-4) for w, run in zip(wanted, runs))
        budget = BUDGET_FRACTION * wall
        share = 1.0 if cost <= budget else budget / cost
        for w, run in zip(wanted, runs):
            limit = UNLIMITED if share >= 1.0 else max(1, math.floor(w * share))
            try:
                run.advance(wall, self.speed, limit)
            except Exception as exc:  # noqa: BLE001 - that system stops, the others go on
                run.fail("computing its next steps", exc)

    def frames(self, force: bool = False) -> dict:
        """Frames (:meth:`SystemRun.frame`) of the systems that changed since the last
        call, or of all of them with ``force``; a system that fails to draw stops and sends
        :meth:`SystemRun.failed_frame` instead."""
        out = {}
        for name, run in self.runs.items():
            if not (run.changed or force):
                continue
            if run.failure is None:
                try:
                    out[name] = run.frame()
                    continue
                except Exception as exc:  # noqa: BLE001 - that system stops, not the page
                    run.fail("drawing its frame", exc)
            out[name] = run.failed_frame()
        return out

    def tick(self, wall: float, force: bool = False) -> dict:
        self.advance(wall)
        return self.frames(force)

    def status(self) -> dict:
        return {
            name: {"time": run.runner.time, "rtf": run.rtf, "alerts": run.alerts()}
            for name, run in self.runs.items()
        }
