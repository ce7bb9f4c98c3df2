"""The phase plot of a system's panel: velocity against position of its first coordinate
(:func:`integrator_lab.views.scene.phase_labels`), with the exact solution's orbit as a
dashed ghost (:func:`integrator_lab.views.scene.exact_curve`) and the style of each
integrator's line; the lines themselves are built on demand by
:class:`~integrator_lab.views.figures.SystemFigures`, from the same sources as the energy
plot's. Shown or hidden as a whole (the "Phase space" control).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bokeh.models import ColumnDataSource, DataRange1d, Line
from bokeh.models.renderers import GlyphRenderer
from bokeh.plotting import figure

from integrator_lab.core.systems.base import System
from integrator_lab.views import scene as scenes
from integrator_lab.views.dashboard_config import Namer
from integrator_lab.views.energy_plot import PLOT_TOOLS, finish_plot
from integrator_lab.views.scene import GHOST_COLOR
from integrator_lab.views.scene_figures import SCENE_WIDTH

PHASE_HEIGHT = 260
#: glyph properties of an integrator's line in the phase plot (its colour is the
#: integrator's)
PHASE_LINE_STYLE: dict[str, Any] = {"x": "q", "y": "v", "line_width": 1.6, "line_alpha": 0.85}


@dataclass
class PhasePlot:
    """One panel's phase plot: the figure, the exact orbit's source (``q``, ``v``) and the
    renderer that draws it (shown with the exact solution)."""

    fig: figure
    exact: ColumnDataSource
    ghost: GlyphRenderer[Any]


def phase_figure(n: Namer, system: System) -> figure:
    """The figure, its axes labelled for ``system`` and named (``phase:xaxis``,
    ``phase:yaxis``); its ranges follow the lines on view."""
    x_label, y_label = scenes.phase_labels(system)
    fig = figure(
        name=n("phase"),
        height=PHASE_HEIGHT,
        width=SCENE_WIDTH,
        sizing_mode="stretch_width",
        tools=PLOT_TOOLS,
        toolbar_location="right",
        x_axis_label=x_label,
        y_axis_label=y_label,
        x_range=DataRange1d(only_visible=True, name=n("phase:x")),
        y_range=DataRange1d(only_visible=True, name=n("phase:y")),
    )
    fig.xaxis[0].name = n("phase:xaxis")
    fig.yaxis[0].name = n("phase:yaxis")
    return fig


def build_phase_plot(n: Namer, system: System) -> PhasePlot:
    """The phase plot of ``system``'s panel (whose models ``n`` names), without lines; the
    exact orbit empty (:func:`exact_columns` fills it)."""
    fig = phase_figure(n, system)
    finish_plot(fig)
    exact = ColumnDataSource({"q": [], "v": []}, name=n("phase:exact"))
    ghost = fig.add_glyph(
        exact,
        Line(x="q", y="v", line_color=GHOST_COLOR, line_width=2, line_dash="dashed"),
        name=n("phase:exact-renderer"),
    )
    return PhasePlot(fig=fig, exact=exact, ghost=ghost)


def exact_columns(curve: Mapping[str, Sequence[float]] | None) -> dict[str, list[float]]:
    """The exact orbit's source's columns for ``curve`` (none: no orbit)."""
    curve = curve or {"q": [], "v": []}
    return {"q": list(curve["q"]), "v": list(curve["v"])}
