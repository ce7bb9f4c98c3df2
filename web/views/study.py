"""The study view's data, shared by the static page's worker and the Panel dashboard.

A study (:class:`integrator_lab.core.Study`) runs in slices beside the live simulation; after
each slice :meth:`StudySession.update` turns the points finished so far into the columns of
the two diagrams (error against dt, error against force evaluations; log–log), the fitted
slope per integrator and the dashed reference slopes, and the finished study into the CSV of
``integrator-lab study``. Standard library and the core only: the page's worker imports this
in Pyodide. The figures that show these columns are in :mod:`integrator_lab.views.study_figures`.
"""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Iterable
from typing import Any

from integrator_lab.core.study import (
    DEFAULT_POINTS,
    POINTS_RANGE,
    Study,
    fit_power_law,
    roundoff_floor,
)
from integrator_lab.views.scene import INTEGRATOR_COLORS

#: which error the diagrams show (the CSV has them all)
ERROR_MEASURES = ("error", "position_error", "energy_error")
ERROR_LABELS = {
    "error": "relative state error at T",
    "position_error": "position error at T",
    "energy_error": "relative energy error at T",
}
#: the page's default study per system: long enough for the error to accumulate, short
#: enough to finish in seconds in Pyodide beside the live view (the cradle's contacts need
#: tiny steps, so its study is short and does not go down to 1/20 of its step)
STUDY_DEFAULTS: dict[str, dict[str, Any]] = {
    "pendulum": {"duration": 5.0, "dt_max": None, "dt_min": None},
    "cradle": {"duration": 0.5, "dt_max": None, "dt_min": 1e-4},
    "spring": {"duration": 10.0, "dt_max": None, "dt_min": None},
}
GENERIC_DEFAULTS: dict[str, Any] = {"duration": 5.0, "dt_max": None, "dt_min": None}
#: the duration T a view's study accepts (s): a study takes every step of it several times
DURATION_RANGE = (1e-3, 1000.0)
#: the dashed reference lines: error ~ dt^p
REFERENCE_SLOPES = (1, 2, 4)
#: a point with no finite error (diverged) is drawn this far above the largest finite one
OFF_SCALE = 10.0
#: the columns of ``integrator-lab study --format csv``, one row per point
CSV_COLUMNS = (
    "integrator",
    "order",
    "dt",
    "steps",
    "error",
    "position_error",
    "energy_error",
    "evaluations",
    "seconds",
    "excluded",
    "slope",
)


def default_settings(system: str) -> dict[str, Any]:
    """The page's default study settings for ``system``."""
    return {
        **STUDY_DEFAULTS.get(system, GENERIC_DEFAULTS),
        "points": DEFAULT_POINTS,
        "error": "error",
    }


def study_page_data(systems: Iterable[str]) -> dict[str, Any]:
    """What the page's study view needs to check its settings and label them."""
    return {
        "defaults": {name: default_settings(name) for name in systems},
        "measures": list(ERROR_MEASURES),
        "measureLabels": dict(ERROR_LABELS),
        "pointsRange": list(POINTS_RANGE),
        "durationRange": list(DURATION_RANGE),
    }


def check_error_measure(value: object) -> str:
    if value not in ERROR_MEASURES:
        raise ValueError(f"'error': got {value!r}, expected one of {', '.join(ERROR_MEASURES)}")
    return str(value)


def _cell(value: object) -> str:
    return "" if value is None else repr(value)


def study_csv(result: dict[str, Any]) -> str:
    """A study result (``StudyResult.to_dict()``) as CSV: :data:`CSV_COLUMNS`, a row a point."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in result["runs"]:
        for i, dt in enumerate(run["dt"]):
            writer.writerow(
                [
                    run["integrator"],
                    run["order"],
                    repr(dt),
                    run["steps"][i],
                    *(_cell(run[key][i]) for key in ("error", "position_error", "energy_error")),
                    run["evaluations"][i],
                    repr(run["seconds"][i]),
                    run["excluded"][i] or "",
                    _cell(run["slope"]),
                ]
            )
    return out.getvalue()


def _fit(
    run: dict[str, Any], measure: str, floors: list[float], not_smooth: str | None = None
) -> tuple[Any, Any]:
    """Slope and per-point reasons of ``measure``: the study's own fit for the state error."""
    if measure == "error":
        return run["slope"], run["excluded"]
    values = [math.inf if x is None else x for x in run[measure]]
    slope, _, reasons = fit_power_law(run["dt"], values, floors, not_smooth)
    return slope, reasons


def diagram_columns(
    result: dict[str, Any], measure: str, colors: dict[str, str], reference_error: float
) -> dict[str, dict[str, list[Any]]]:
    """The diagrams' data sources from a (partial) study result: ``points`` (fitted points),
    ``excluded`` (with the reason, for the hover), ``lines`` (one per integrator, through its
    finite points, with its fitted slope as its legend ``label``) and ``refs`` (dashed
    slopes 1, 2, 4 through the middle of the data, against dt and against evaluations)."""
    cols = ("integrator", "dt", "evaluations", "y", "value", "reason", "color")
    points: dict[str, list[Any]] = {c: [] for c in cols}
    excluded: dict[str, list[Any]] = {c: [] for c in cols}
    lines: dict[str, list[Any]] = {
        c: [] for c in ("integrator", "dt", "evaluations", "y", "color", "label", "slope")
    }
    finite = [
        x
        for run in result["runs"]
        for x in run[measure]
        if x is not None and math.isfinite(x) and x > 0
    ]
    top = max(finite) * OFF_SCALE if finite else 1.0
    for run in result["runs"]:
        name = run["integrator"]
        color = colors.get(name, "#555555")
        floors = [roundoff_floor(n, reference_error) for n in run["steps"]]
        slope, reasons = _fit(run, measure, floors, result.get("not_smooth"))
        line: dict[str, list[Any]] = {"dt": [], "evaluations": [], "y": []}
        for i, dt in enumerate(run["dt"]):
            value = run[measure][i]
            shown = value is not None and math.isfinite(value) and value > 0
            reason = reasons[i]
            if value is not None and value == 0:
                reason = reason or "zero error: exact to rounding"
            target = points if reason is None else excluded
            target["integrator"].append(name)
            target["dt"].append(dt)
            target["evaluations"].append(run["evaluations"][i])
            target["y"].append(value if shown else top)
            target["value"].append(f"{value:.3g}" if shown else "not finite")
            if reason is None:
                # on a system that is not smooth the slope is a trend, not a fit of an order
                word = "trend" if result.get("not_smooth") else "fitted"
                reason = word if slope is None else f"{word} (slope {slope:.2f})"
            target["reason"].append(reason)
            target["color"].append(color)
            if shown:
                line["dt"].append(dt)
                line["evaluations"].append(run["evaluations"][i])
                line["y"].append(value)
        lines["integrator"].append(name)
        lines["dt"].append(line["dt"])
        lines["evaluations"].append(line["evaluations"])
        lines["y"].append(line["y"])
        lines["color"].append(color)
        # the legend names each line with its fitted slope
        lines["label"].append(f"{name}: " + ("no slope" if slope is None else f"slope {slope:.2f}"))
        lines["slope"].append(slope)  # for a legend in another language (i18n's study.slope)
    return {
        "points": points,
        "excluded": excluded,
        "lines": lines,
        "refs": _reference_lines(result, measure, finite),
    }


def _reference_lines(
    result: dict[str, Any], measure: str, finite: list[float]
) -> dict[str, list[Any]]:
    """Dashed ``error ~ dt^p`` for p in :data:`REFERENCE_SLOPES`, through the geometric middle
    of the data; against evaluations (which grow like 1/dt) the same lines fall as ``N^-p``."""
    refs: dict[str, list[Any]] = {
        c: []
        for c in ("dt", "evaluations", "y", "y_cost", "text")
        + ("label_dt", "label_ev", "label_y", "label_y_cost")
    }
    dts = [dt for run in result["runs"] for dt in run["dt"]]
    evs = [e for run in result["runs"] for e in run["evaluations"] if e > 0]
    if not finite or not dts or not evs:
        return refs
    dt_lo, dt_hi = min(dts), max(dts)
    ev_lo, ev_hi = min(evs), max(evs)
    y_mid = math.exp(sum(math.log(x) for x in finite) / len(finite))
    dt_mid = math.sqrt(dt_lo * dt_hi)
    ev_mid = math.sqrt(ev_lo * ev_hi)
    for p in REFERENCE_SLOPES:
        refs["dt"].append([dt_lo, dt_hi])
        refs["evaluations"].append([ev_lo, ev_hi])
        refs["y"].append([y_mid * (dt_lo / dt_mid) ** p, y_mid * (dt_hi / dt_mid) ** p])
        # evaluations grow like 1/dt: the same power law falls as N^-p
        refs["y_cost"].append([y_mid * (ev_mid / ev_lo) ** p, y_mid * (ev_mid / ev_hi) ** p])
        refs["text"].append(f"slope {p}")
        # labelled at their left ends, inside the plot
        refs["label_dt"].append(dt_lo)
        refs["label_ev"].append(ev_lo)
        refs["label_y"].append(refs["y"][-1][0])
        refs["label_y_cost"].append(refs["y_cost"][-1][0])
    return refs


class StudySession:
    """One system's study, run in slices: settings checked, points and diagrams on demand."""

    def __init__(
        self,
        system: str,
        params: dict[str, Any],
        integrators: list[str],
        settings: dict[str, Any],
        colors: dict[str, str] | None = None,
    ) -> None:
        settings = {
            **default_settings(system),
            **{k: v for k, v in settings.items() if v is not None},
        }
        self.measure = check_error_measure(settings["error"])
        points = settings["points"]
        if isinstance(points, float) and points.is_integer():
            points = int(points)
        lo, hi = POINTS_RANGE
        if isinstance(points, bool) or not isinstance(points, int) or not lo <= points <= hi:
            raise ValueError(f"'points': got {points!r}, expected an integer in [{lo}, {hi}]")
        self.system = system
        self.settings = {**settings, "points": points}
        self.colors = INTEGRATOR_COLORS if colors is None else colors
        self.study = Study(
            system,
            list(integrators),
            duration=settings["duration"],
            dt_max=settings["dt_max"],
            dt_min=settings["dt_min"],
            points=points,
            **params,
        )
        self.began = time.perf_counter()
        self.seconds: float | None = None  # wall time from start to done

    @property
    def done(self) -> bool:
        return self.study.done

    def advance(self, budget_seconds: float) -> int:
        """Run a slice of about ``budget_seconds``; return how many points it finished."""
        finished = self.study.run_next(budget_seconds=budget_seconds)
        if self.study.done and self.seconds is None:
            self.seconds = time.perf_counter() - self.began
        return len(finished)

    def update(self) -> dict[str, Any]:
        """The study's state for a view: progress, the diagrams' columns, and when done the
        CSV and the fitted slopes."""
        result = self.study.result().to_dict()
        out: dict[str, Any] = {
            "system": self.system,
            "progress": self.study.progress,
            "done": self.study.done,
            "points": sum(len(run["dt"]) for run in result["runs"]),
            "total": len(self.study.points()),
            "measure": self.measure,
            "settings": {
                k: self.settings[k] for k in ("duration", "dt_max", "dt_min", "points", "error")
            },
            "reference": result["reference"],
            "columns": diagram_columns(
                result, self.measure, self.colors, self.study.reference.error
            ),
            "slopes": {run["integrator"]: run["slope"] for run in result["runs"]},
        }
        out["settings"]["dt_max"] = self.study.dt_max
        out["settings"]["dt_min"] = self.study.dt_min
        if self.study.done:
            out["csv"] = study_csv(result)
            out["seconds"] = self.seconds
        return out


class Studies:
    """The studies of a page (at most one per system), advanced together within a budget."""

    def __init__(self, colors: dict[str, str] | None = None) -> None:
        self.colors = dict(INTEGRATOR_COLORS if colors is None else colors)
        self.sessions: dict[str, StudySession] = {}

    def start(
        self,
        system: str,
        params: dict[str, Any],
        integrators: list[Any],
        settings: dict[str, Any],
    ) -> dict[str, Any]:
        """Start (or restart) ``system``'s study; ValueError names a bad setting."""
        self.sessions.pop(system, None)
        session = StudySession(system, dict(params), list(integrators), dict(settings), self.colors)
        self.sessions[system] = session
        return session.update()

    def stop(self, system: str) -> None:
        self.sessions.pop(system, None)

    @property
    def running(self) -> bool:
        return bool(self.sessions)

    def step(self, budget_seconds: float) -> list[dict[str, Any]]:
        """Advance the running studies by about ``budget_seconds`` in all; return the updates
        of those that finished points (a finished study's last update, then it is dropped)."""
        updates: list[dict[str, Any]] = []
        share = budget_seconds / max(1, len(self.sessions))
        for system, session in list(self.sessions.items()):
            try:
                finished = session.advance(share)
            except Exception as exc:  # a study that fails stops alone, and says why
                del self.sessions[system]
                updates.append({"system": system, "error": f"{type(exc).__name__}: {exc}"})
                continue
            if finished or session.done:
                updates.append(session.update())
            else:  # a long point: the progress bar moves all the same
                updates.append({"system": system, "progress": session.study.progress})
            if session.done:
                del self.sessions[system]
        return updates
