"""The simulation loop of one viewer: every system shown, paced together.

Pure Python (core + :mod:`integrator_lab.views.scene` and friends), so it runs in the static
page's worker (Pyodide) and in CPython alike. The engine (:mod:`integrator_lab.views.engine`)
drives it from the page's messages: :meth:`Live.configure` and friends when a widget changes,
:meth:`Live.tick` on its host's clock; what :meth:`Live.tick` returns goes to the page as a
frame (flat ``array('d')`` buffers become transferred ``Float64Array`` s).

This module paces the systems and keeps them apart; one system's run (its runner, scene,
layout and frames) is :class:`~integrator_lab.views.system_run.SystemRun`, re-exported here
with the rest of :mod:`integrator_lab.views.system_run`, which lived here before.

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

import json
import math
import struct
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from integrator_lab.core import INTEGRATORS, SYSTEMS, ParamError
from integrator_lab.core.custom import (
    MethodDefinition,
    definition_problems,
    parse_definition,
)
from integrator_lab.views.samples import sample_columns
from integrator_lab.views.shared import describe_error
from integrator_lab.views.system_run import (
    RTF_WINDOW,
    RUNNER_CAPACITY,
    SAMPLES_PER_SECOND,
    SystemRun,
    check_dt,
    method_label,
)

#: this module's names, and those of :mod:`integrator_lab.views.system_run` (which lived here
#: once) and :func:`~integrator_lab.views.samples.sample_columns` that code takes from here
__all__ = [
    "BAKE_FORMAT",
    "BAKE_MAGIC",
    "BAKE_TICKS",
    "BAKE_WALL",
    "BUDGET_FRACTION",
    "FIRST_COST_GUESS",
    "MAX_WALL",
    "RTF_WINDOW",
    "RUNNER_CAPACITY",
    "SAMPLES_PER_SECOND",
    "UNLIMITED",
    "Live",
    "SystemRun",
    "baked_payload",
    "check_dt",
    "method_label",
    "refusal",
    "sample_columns",
]

#: longest wall time one tick covers (s): after a stall (hidden tab) the clock just skips
MAX_WALL = 0.1
#: fraction of the elapsed wall time the worker may spend computing
BUDGET_FRACTION = 0.8
UNLIMITED = 10**9  # max_steps when the budget covers every step wanted
#: the cost of a new run's steps until it is measured (s per step): slow on purpose, so the
#: first tick of a heavy run cannot take more than its budget (a Panel server's tick is
#: shared by every session)
FIRST_COST_GUESS = 2e-4
#: the page's baked start (:func:`baked_payload`): this many frames, the first the initial
#: state (no wall time), each next one :data:`BAKE_WALL` of wall time later: 4 s
BAKE_TICKS = 240
BAKE_WALL = 1.0 / 60.0
#: the baked file's first bytes (then the header's length, its JSON and the float64 data)
BAKE_MAGIC = b"ILBK"
BAKE_FORMAT = 1
#: significant digits of the baked frames' energy readouts (the bars beside the lanes, the
#: breakdown, the followed value): geometry and labels drawn in pixels, where 6 digits are
#: exact to a thousandth of a pixel; 17 digits made the file 25 kB larger gzipped
BAKE_DISPLAY_DIGITS = 6


def refusal(error: Exception, then: str) -> dict[str, Any] | None:
    """A parameter value the core refused (``core.ParamError``), as parts a view can say in
    its language (views.i18n.refusal_text; the page's frames.js): the system, the parameter,
    the value, the range that applied, and ``then`` ("kept": the settings in force go on;
    "defaults"); None for any other error (said as the core said it)."""
    if not isinstance(error, ParamError) or not error.owner:
        return None
    p, value = error.param, error.value
    return {
        "system": error.owner,
        "param": p.name,
        "value": value if isinstance(value, (int, float, str)) else repr(value),
        "min": p.min,
        "max": p.max,
        "min_open": p.min_open,
        "max_open": p.max_open,
        "then": then,
    }


class Live:
    """One viewer's simulation: every system shown, the shared speed and play state.

    The simulation of one engine (:class:`integrator_lab.views.engine.Engine`), whichever
    host runs it (the page's worker, a Panel session). It owns:

    Pacing
        :meth:`advance` covers the wall time elapsed at the current speed within a compute
        budget (``budget()``: a fraction of that wall time); beyond it every system gets the
        same share of its steps, and a run's cost per step is assumed to be
        :data:`FIRST_COST_GUESS` until it is measured.
    Bad settings
        :meth:`configure` with settings the core refuses keeps the system's running
        simulation unchanged and says so (``layout`` is ``None``, ``kept`` holds the
        settings in force, so a view shows them again); only a system with nothing running
        yet (a page opened from a link) falls back to the defaults.
    Failures
        A system whose computation raises stops alone (:meth:`SystemRun.fail`); the others
        go on. ``on_failure(name, run, what, exc)`` is told once per stop (a host may log
        it).
    """

    def __init__(
        self,
        budget: Callable[[], float] = lambda: BUDGET_FRACTION,
        max_wall: float = MAX_WALL,
        on_failure: Callable[[str, SystemRun, str, BaseException], None] | None = None,
        allow_code: bool = True,
    ) -> None:
        self.runs: dict[str, SystemRun] = {}
        #: the user's own method (a parsed definition) raced beside the built-ins, or None
        self.method: MethodDefinition | None = None
        #: whether a method may be Python code (a server runs it only when its operator
        #: allowed it; the page's worker runs the visitor's own code in the visitor's tab)
        self.allow_code = allow_code
        self.speed = 1.0
        self.playing = True
        #: systems whose body is held in a view (a drag sets their initial state): they wait
        #: for its release while the others go on
        self.held: set[str] = set()
        self.budget = budget
        self.max_wall = max_wall
        self.on_failure = on_failure
        #: the names the integrators are shown by (the energy plot's marks), in the viewer's
        #: language (``views.i18n.integrator_name``); a name missing here is shown as it is
        self.shown_names: dict[str, str] = {}

    def configure(
        self,
        name: str,
        params: dict[str, Any] | None = None,
        dt: float | None = None,
        integrators: Iterable[str] | None = None,
    ) -> dict[str, Any]:
        """(Re)build system ``name``; returns ``{"layout": ..., "errors": [...]}``, and
        ``"kept"`` (the running ``params`` and ``dt``) when the settings were refused.

        ``errors`` are sentences for the user: which system, what the core objected to and
        what runs instead.
        """
        params = dict(params or {})
        old = self.runs.get(name)
        if integrators is None:
            integrators = old.builtins if old is not None else []
        integrators = [i for i in integrators if i in INTEGRATORS]
        method = self.method
        try:
            run = SystemRun(name, params, dt, integrators, method)
        except Exception as exc:  # noqa: BLE001 - whatever the core objects to, a system runs
            objection = str(exc) if isinstance(exc, ValueError) else describe_error(exc)
            title = getattr(SYSTEMS.get(name), "title", name)
            if old is not None and old.builtins == integrators:
                return {
                    "system": name,
                    "layout": None,
                    "errors": [f"{title}: {objection}; kept the settings in force."],
                    "refused": refusal(exc, "kept"),
                    "kept": {"params": dict(old.system.params), "dt": old.dt},
                }
            try:
                run = SystemRun(name, params, None, integrators, method)
            except Exception:  # noqa: BLE001
                try:
                    run = SystemRun(name, {}, None, integrators, method)
                except Exception:  # noqa: BLE001 - the user's method cannot start here
                    run = SystemRun(name, {}, None, integrators)
            errors = [f"{title}: {objection}; using the defaults."]
            refused = refusal(exc, "defaults")
        else:
            errors, refused = [], None
        run.set_shown_names(self.shown_names)
        self.runs[name] = run
        return {"layout": run.layout(), "errors": errors, "refused": refused}

    def remove(self, name: str) -> None:
        """Stop and forget system ``name`` (a view no longer shows it; :meth:`configure`
        starts it again)."""
        self.runs.pop(name, None)
        self.held.discard(name)

    def set_integrators(self, names: Sequence[str]) -> list[dict[str, Any]]:
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

    def set_method(self, definition: dict[str, Any] | None) -> dict[str, Any]:
        """Race the user's method ``definition`` (a definition's dict; None removes it)
        beside the selected built-ins on every system, which restart.

        Returns ``{"method": describe() or None, "problems": [...], "results": [...]}``:
        ``problems`` lists everything wrong with the definition (each naming its entry, code
        errors with their line), and then nothing changes; ``results`` holds each system's
        :meth:`configure` result.
        """
        method = None
        if definition is not None:
            problems = definition_problems(definition, allow_code=self.allow_code)
            if not problems:
                try:
                    method = parse_definition(definition, allow_code=self.allow_code)
                except ValueError as exc:  # code that fails only on its second run
                    problems = [str(exc)]
            if problems:
                return {"method": None, "problems": problems, "results": []}
        self.method = method
        results = [
            self.configure(name, run.system.params, run.dt, run.builtins)
            for name, run in list(self.runs.items())
        ]
        return {
            "method": method.describe() if method is not None else None,
            "problems": [],
            "results": results,
        }

    def set_shown_names(self, names: dict[str, str]) -> None:
        """Show the integrators by ``names`` (code name → shown name: the viewer's language)
        from the next frame on."""
        self.shown_names = {str(k): str(v) for k, v in dict(names).items()}
        for run in self.runs.values():
            run.set_shown_names(self.shown_names)

    def set_speed(self, speed: float) -> None:
        self.speed = float(speed)

    def set_playing(self, playing: bool) -> None:
        self.playing = bool(playing)

    def hold(self, name: str, held: bool) -> None:
        """Hold system ``name`` still (``held``) or let it go on: a body being dragged in a
        view waits for its release; every other system goes on."""
        if held:
            self.held.add(name)
        else:
            self.held.discard(name)

    def reset(self) -> list[dict[str, Any]]:
        """Every system back to t = 0 (a stopped one starts again); returns their layouts
        (as :meth:`configure`)."""
        for name, run in self.runs.items():
            try:
                run.reset()
            except Exception as exc:  # noqa: BLE001 - that system stops, the others reset
                self._fail(name, run, "restarting", exc)
        return [{"layout": run.layout(), "errors": []} for run in self.runs.values()]

    def step(self, steps: int = 1) -> set[str]:
        """``steps`` time steps of every running system that is not held (a view pauses
        first); returns the systems that moved."""
        moved = set()
        for name, run in self.live_items():
            if name in self.held:  # a system not shown, or a body being dragged: it waits
                continue
            try:
                run.runner.advance(steps)
            except Exception as exc:  # noqa: BLE001 - that system stops, the others go on
                self._fail(name, run, "computing its next step", exc)
            else:
                moved.add(name)
            run.changed = True
        return moved

    def live_items(self) -> list[tuple[str, SystemRun]]:
        """(name, run) of the systems that have not stopped on an error."""
        return [(name, run) for name, run in self.runs.items() if run.failure is None]

    def advance(self, wall: float) -> set[str]:
        """Advance every system by ``wall`` seconds of wall time (at the current speed)
        within the compute budget; returns the systems that moved."""
        wall = min(max(wall, 0.0), self.max_wall)
        if not (self.playing and wall > 0.0):
            for run in self.runs.values():
                run.count_wall(wall, 0.0)
            return set()
        for name in self.held & self.runs.keys():
            self.runs[name].count_wall(wall, 0.0)
        items = [(name, run) for name, run in self.live_items() if name not in self.held]
        wanted = [run.wanted_steps(wall, self.speed) for _, run in items]
        cost = sum(
            w * (run.cost if run.cost is not None else FIRST_COST_GUESS)
            for w, (_, run) in zip(wanted, items)
        )
        budget = self.budget() * wall
        share = 1.0 if cost <= budget else budget / cost
        moved = set()
        for w, (name, run) in zip(wanted, items):
            limit = UNLIMITED if share >= 1.0 else max(1, math.floor(w * share))
            try:
                if run.advance(wall, self.speed, limit):
                    moved.add(name)
            except Exception as exc:  # noqa: BLE001 - that system stops, the others go on
                self._fail(name, run, "computing its next steps", exc)
        return moved

    def frame_of(self, name: str, everything: bool = False) -> dict[str, Any]:
        """:meth:`SystemRun.frame` of system ``name``, or, if drawing it raises (that system
        stops) or it stopped before, :meth:`SystemRun.failed_frame`."""
        run = self.runs[name]
        if run.failure is None:
            try:
                return run.frame(everything)
            except Exception as exc:  # noqa: BLE001 - that system stops, not the page
                self._fail(name, run, "drawing its frame", exc)
        return run.failed_frame()

    def frames(self, force: bool = False) -> dict[str, Any]:
        """Frames (:meth:`frame_of`) of the systems that changed since the last call, or of
        all of them with ``force``."""
        return {
            name: self.frame_of(name) for name, run in self.runs.items() if run.changed or force
        }

    def tick(self, wall: float, force: bool = False) -> dict[str, Any]:
        self.advance(wall)
        return self.frames(force)

    def baked_tick(self, index: int) -> dict[str, Any]:
        """Tick ``index`` of the baked start (:func:`baked_payload`): the initial frame of
        every system for 0, else :data:`BAKE_WALL` of wall time. No compute budget applies, so
        every step is taken and the frames depend on the index alone: the build's CPython and
        the page's worker compute the same numbers."""
        budget = self.budget
        self.budget = _no_budget_limit
        try:
            return self.tick(0.0 if index == 0 else BAKE_WALL, force=index == 0)
        finally:
            self.budget = budget

    def forward(self, start: int, stop: int) -> None:
        """Baked ticks ``start`` to ``stop - 1``, their frames dropped: the worker catches up
        with the frames the page played from the build's bake."""
        for index in range(start, stop):
            self.baked_tick(index)

    def _fail(self, name: str, run: SystemRun, what: str, exc: BaseException) -> None:
        run.fail(what, exc)
        if self.on_failure is not None:
            self.on_failure(name, run, what, exc)


def _no_budget_limit() -> float:
    return math.inf


def _display_rounded(view: dict[str, Any]) -> dict[str, Any]:
    """An energy view (:meth:`Live.tick`'s ``frame["energy"]``) with its drawn readouts
    (``bars``, ``breakdown``, ``followed``) rounded to :data:`BAKE_DISPLAY_DIGITS`; the rest
    (the plot's ranges, the clipped marks) as it is."""

    def rounded(value: Any) -> Any:
        if isinstance(value, float) and math.isfinite(value):
            return float(f"{value:.{BAKE_DISPLAY_DIGITS}g}")
        if isinstance(value, (list, tuple, array)):
            return [rounded(v) for v in value]
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return value

    drawn = ("bars", "breakdown", "followed")
    return {k: rounded(v) if k in drawn else v for k, v in view.items()}


def _plain(value: Any) -> Any:
    """``value`` with its ``array('d')`` s as lists (for JSON)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, array):
        return value.tolist()
    return value


def baked_payload(view: dict[str, Any], ticks: int = BAKE_TICKS) -> bytes:
    """The first ``ticks`` frames of ``view`` (``systems``, ``integrators``, ``params`` and
    ``dt`` per system; speed 1, playing), as the worker would post them, in one buffer: the
    page plays them while Python boots (static/js/baked.js).

    Layout: :data:`BAKE_MAGIC`, the header's length (uint32, little-endian), the header
    (UTF-8 JSON, padded with spaces to a multiple of 8 bytes from the start), then every
    frame's ``data`` (float64, little-endian), frame after frame, system after system. The
    header holds ``view``, ``wall``, ``ticks``, each system's :meth:`Live.configure` result
    (``layouts``) and per frame and system the frame without its data, its length in ``size``.
    """
    live = Live()
    layouts = [
        live.configure(name, view["params"][name], view["dt"][name], view["integrators"])
        for name in view["systems"]
    ]
    frames = []
    data = array("d")
    for index in range(ticks):
        shown = {}
        for name, frame in live.baked_tick(index).items():
            shown[name] = {k: v for k, v in frame.items() if k != "data"}
            shown[name]["energy"] = _display_rounded(frame["energy"])
            shown[name]["size"] = len(frame["data"])
            data.extend(frame["data"])
        frames.append(shown)
    header = {
        "format": BAKE_FORMAT,
        "view": {**view, "speed": 1.0, "playing": True},
        "wall": BAKE_WALL,
        "ticks": ticks,
        "layouts": _plain(layouts),
        "frames": frames,
    }
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    text += b" " * (-(len(BAKE_MAGIC) + 4 + len(text)) % 8)
    if struct.pack("<d", 1.0) != array("d", [1.0]).tobytes():
        data.byteswap()  # the file is little-endian, as every browser's Float64Array
    return BAKE_MAGIC + struct.pack("<I", len(text)) + text + data.tobytes()
