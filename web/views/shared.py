"""What the engine and the page's front end share, stated once.

Standard library only, no Bokeh or Panel: the engine imports it (in the page's worker, in
Pyodide, or in a Panel session), the page's JavaScript gets it through its build-time data
(:func:`page_constants`, embedded by ``integrator_lab.site.build.page_data``), so it does not
restate it.
"""

from __future__ import annotations

import math
from typing import Any

#: the systems the dashboard shows, left to right
PANEL_SYSTEMS = ("pendulum", "cradle", "spring")
#: slow motion to fast forward, × real time
SPEED_RANGE = (0.1, 4.0)
#: s: finer steps crawl, coarser ones mean nothing on these systems
DT_RANGE = (1e-5, 0.5)
#: the time-step slider runs over log10(dt) across DT_RANGE in this many steps (about 2 %
#: of dt each); a dt it sets, or ×2 / ÷2 give, keeps DT_DIGITS significant digits, so links
#: stay short
DT_SLIDER_STEPS = 470
DT_DIGITS = 3
#: samples kept per integrator and plot (older ones roll over): bounded memory
ROLLOVER = 3000
#: how often (ms) a system's energy and phase plots take the samples that came meanwhile,
#: with the energy view that describes them, on both pages: streaming into a line
#: re-processes all of its points and repaints the plot, its axes measured again (the scene
#: moves at every frame)
STREAM_INTERVAL_MS = 150

#: columns streamed to the energy and phase plots, one row per sample
#: (``error``: the signed relative energy error; ``log_gain`` / ``log_loss``: the log view's
#: log10 of its largest size so far, in the first while that was a gain, in the second while a
#: loss, NaN in the other: views.energy.running_log_columns)
SAMPLE_COLUMNS = (
    "t",
    "q",
    "v",
    "kinetic",
    "potential",
    "dissipated",
    "total",
    "error",
    "log_gain",
    "log_loss",
)
#: columns of a scene that change every frame: a body's centre ``x, y`` while its integrator
#: runs, ``fx, fy`` once it diverged (drawn greyed where it stopped), and ``ax, ay, angle``,
#: the outward arrow of a body pinned at the edge of its view (NaN where not drawn)
BODY_COLUMNS = ("x", "y", "fx", "fy", "ax", "ay", "angle")
#: a link (rod, string, spring segment) while its integrator runs, then once it diverged
LINK_COLUMNS = ("x0", "y0", "x1", "y1", "fx0", "fy0", "fx1", "fy1")
#: the exact solution's ghost: it neither diverges nor leaves the view
GHOST_BODY_COLUMNS = ("x", "y")
GHOST_LINK_COLUMNS = ("x0", "y0", "x1", "y1")
#: the scene part of a frame's flat buffer (``SystemRun.frame``): each role's moving columns,
#: column after column, as many values each as the role has rows; then per integrator the
#: :data:`SAMPLE_COLUMNS`, column after column
FRAME_SCENE = (
    ("bodies", BODY_COLUMNS),
    ("links", LINK_COLUMNS),
    ("ghost_bodies", GHOST_BODY_COLUMNS),
    ("ghost_links", GHOST_LINK_COLUMNS),
)

#: texts of a system's status line and of a diverged integrator, which the page fills
#: (static/js/live.js); ``{time}``, ``{rtf}`` and ``{at}`` are numbers with the decimals /
#: significant digits of :data:`TEXT_DIGITS`
STATUS_TEXT = "t = {time} s · {rtf}× real time"
STOPPED_TEXT = "t = {time} s · stopped"
#: paused: no rate (the clock stands; a real-time factor measured over a step means nothing)
PAUSED_TEXT = "t = {time} s · paused"
NO_RATE = "–"  # real-time factor not measured yet
DIVERGED_TEXT = "{name}: diverged at t = {at} s"
#: time and real-time factor: decimals; divergence time: significant digits
TEXT_DIGITS = {"time": 2, "rtf": 2, "at": 3}


def describe_error(exc: BaseException) -> str:
    """``"OverflowError: math range error"``: the exception's type and message, one line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1]}" if text else type(exc).__name__


def failure_text(title: str, time: float | None, what: str, exc: BaseException) -> str:
    """Why a system stopped, on its panel (the page and the Panel server alike)."""
    at = "" if time is None else f" at t = {time:.4g} s"
    return (
        f"{title} stopped{at}: {what} failed ({describe_error(exc)}). The other systems go "
        "on; change a parameter or press Reset to try again."
    )


def dt_position(dt: float) -> float:
    """Where ``dt`` sits on the time-step slider: log10(dt), clamped to :data:`DT_RANGE`."""
    return math.log10(min(max(dt, DT_RANGE[0]), DT_RANGE[1]))


def dt_mark(recommended: float) -> float:
    """Where the recommended step is marked on the slider, as a percentage of its track."""
    lo, hi = (math.log10(x) for x in DT_RANGE)
    return 100.0 * (dt_position(recommended) - lo) / (hi - lo)


def page_constants() -> dict[str, Any]:
    """All of the above but the systems (the page gets those it shows), as JSON for the
    page's JavaScript."""
    return {
        "speedRange": list(SPEED_RANGE),
        "dtRange": list(DT_RANGE),
        "dtDigits": DT_DIGITS,
        "rollover": ROLLOVER,
        "streamIntervalMs": STREAM_INTERVAL_MS,
        "frameLayout": frame_layout(),
        "texts": {
            "status": STATUS_TEXT,
            "stopped": STOPPED_TEXT,
            "paused": PAUSED_TEXT,
            "noRate": NO_RATE,
            "diverged": DIVERGED_TEXT,
            "digits": dict(TEXT_DIGITS),
        },
    }


#: renderers that draw from a scene role's source only now and then, with a column that is
#: finite exactly where they show something: a view may hide them while it is all NaN
#: (figures.SystemFigures names them ``<system>:scene:<renderer>``)
SCENE_EXTRAS = {
    "bodies": (("fx", "diverged-bodies-renderer"), ("ax", "edge-arrows-renderer")),
    "links": (("fx0", "diverged-links-renderer"),),
}


def frame_layout() -> dict[str, Any]:
    """The frame buffer's layout as JSON: ``scene`` [[role, [columns]], ...] in buffer order,
    then ``samples``, the columns of each integrator's part; ``extras``: :data:`SCENE_EXTRAS`."""
    return {
        "scene": [[role, list(cols)] for role, cols in FRAME_SCENE],
        "samples": list(SAMPLE_COLUMNS),
        "extras": {role: [list(pair) for pair in pairs] for role, pairs in SCENE_EXTRAS.items()},
    }
