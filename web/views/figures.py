"""Bokeh models of the dashboard, shared by the static page and the Panel server app.

One call builds everything::

    from integrator_lab.views.figures import DashboardConfig, build_dashboard
    models = build_dashboard(DashboardConfig(integrators=("euler", "rk4")))
    models.controls.speed            # a Bokeh Slider
    models.panels["cradle"].samples["rk4"]   # the ColumnDataSource the page streams rk4 into

The module builds models only, once, at build time (the site's page data,
:mod:`integrator_lab.site.page_data`): no callbacks, no JavaScript, no updates at run time.
The page's front end (``static/js``) applies frames, layouts and views to these models in
every host. The drawing itself (coordinates of balls, rods and springs, sample columns) comes
from :mod:`integrator_lab.views.scene`, pure Python that the engine runs too.

This module assembles a system's panel and the dashboard; each part is built in a module of
its own, all re-exported here where other code took them from:

- :mod:`~integrator_lab.views.dashboard_config`: :class:`DashboardConfig` and
  :func:`model_name`;
- :mod:`~integrator_lab.views.scene_figures`: the animation (figure, sources, lane filter);
- :mod:`~integrator_lab.views.energy_plot`: the energy plot (figure, modes, line styles,
  legend, hover), with :mod:`~integrator_lab.views.energy_figures` (what
  :mod:`~integrator_lab.views.energy` decides of it);
- :mod:`~integrator_lab.views.phase_figures`: the phase plot;
- :mod:`~integrator_lab.views.widget_models`: the controls and each panel's widgets.

API
---
:class:`DashboardConfig`
    What to show: systems, integrators, per-system parameters and time steps, speed, view
    options. ``config.system(name)`` validates and builds the core system.
:func:`build_dashboard(config) -> DashboardModels`
    ``models.controls`` (:class:`Controls`: the global widgets, shown in
    :data:`CONTROL_ORDER`) and ``models.panels`` (``{system name: SystemFigures}`` in config
    order).
:class:`SystemFigures` (one per system)
    Figures ``scene_fig`` (animation), ``energy_fig`` (signed relative energy error on a
    signed-log or linear axis, or the total/kinetic/potential/dissipated breakdown),
    ``phase_fig``; sources
    ``scene_sources`` (``bodies``, ``links``, ``ghost_bodies``, ``ghost_links``,
    ``fixtures``, ``status``), ``samples`` (``{integrator: ColumnDataSource}`` with columns
    :data:`~scene.SAMPLE_COLUMNS`, one for *every* integrator of the core), ``phase_exact``;
    widgets ``dt`` (Spinner) and ``params`` (``{param name: Spinner or Select}``, generated
    from the system's declarations) in ``param_grid``; ``scene_box`` (the animation in a box of
    its own). The page draws the scene box, the plots and the parameters' grid each into an
    element of its own (:data:`integrator_lab.site.page_data.PANEL_PARTS`).
    Lines are built (``line(kind, integrator)``, kinds :data:`LINE_STYLES`) for the
    selected integrators and the kinds on view of the config only; the page makes the others.
    The scene is drawn at the initial state (``Scene(system, names)`` and its ``frame``, from
    :mod:`integrator_lab.views.scene`).

Every model has a stable ``name`` (``"<system>:<role>"`` or ``"controls:<role>"``, see
:func:`model_name`) so that JavaScript can find it with ``document.get_model_by_name``.
The panels' renderers (scenes, energy and phase plots) are made with
``fig.add_glyph(source, Glyph(...))``, not with ``fig.line`` and its kin, which add a
non-selection and a muted copy of every glyph to the document (the dashboards select and mute
nothing; BokehJS derives both from the glyph when they are left ``"auto"``): 120 models fewer
in a Panel session (docs/developing.rst). The study and geometry diagrams, built on demand and
with legends by field, keep Bokeh's glyph methods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from bokeh.layouts import column
from bokeh.models import ColumnDataSource, Line
from bokeh.models.annotations import Label, LegendItem
from bokeh.models.renderers import GlyphRenderer

from integrator_lab.core import INTEGRATORS
from integrator_lab.core.systems.base import System
from integrator_lab.views import i18n
from integrator_lab.views import scene as scenes
from integrator_lab.views.dashboard_config import DashboardConfig, model_name
from integrator_lab.views.energy_plot import (
    BREAKDOWN_EXTRA_HEIGHT,
    BREAKDOWN_KINDS,
    BREAKDOWN_LABELS,
    ENERGY_AXIS_LABELS,
    ENERGY_HEIGHT,
    ENERGY_LINE_STYLES,
    ENERGY_MODES,
    ERROR_COLUMNS,
    ERROR_HOVER_CODE,
    SIGNED_LOG_TICK_CODE,
    breakdown_style_items,
    build_energy_plot,
)
from integrator_lab.views.phase_figures import (
    PHASE_HEIGHT,
    PHASE_LINE_STYLE,
    build_phase_plot,
    exact_columns,
)
from integrator_lab.views.scene import Scene, color_of
from integrator_lab.views.scene_figures import (
    DIVERGED_COLOR,
    MARKS_JS,
    SCENE_WIDTH,
    build_scene_figure,
    lane_filter,
    show_frame,
    show_scene,
)
from integrator_lab.views.shared import ROLLOVER, SAMPLE_COLUMNS
from integrator_lab.views.widget_models import (
    DT_DOUBLE_TITLE,
    DT_HALF_TITLE,
    DT_SLIDER_FORMAT,
    DT_SLIDER_TITLE,
    ENERGY_MODE_LABELS,
    LOG_SCALE_TIP,
    WRAP_TITLE,
    WRAPPING_TITLE,
    Controls,
    build_controls,
    build_settings,
    dt_slider_css,
    dt_slider_options,
    input_step,
    param_widget,
)

#: every name this module defined before its parts moved to the modules above: code that
#: imports them from here goes on working
__all__ = [
    "BREAKDOWN_EXTRA_HEIGHT",
    "BREAKDOWN_KINDS",
    "BREAKDOWN_LABELS",
    "CONTROL_ORDER",
    "DIVERGED_COLOR",
    "DT_DOUBLE_TITLE",
    "DT_HALF_TITLE",
    "DT_SLIDER_FORMAT",
    "DT_SLIDER_TITLE",
    "ENERGY_AXIS_LABELS",
    "ENERGY_HEIGHT",
    "ENERGY_MODES",
    "ENERGY_MODE_LABELS",
    "ERROR_COLUMNS",
    "ERROR_HOVER_CODE",
    "LINE_STYLES",
    "LOG_SCALE_TIP",
    "MARKS_JS",
    "PHASE_HEIGHT",
    "ROLLOVER",
    "SCENE_WIDTH",
    "SIGNED_LOG_TICK_CODE",
    "WRAPPING_TITLE",
    "WRAP_TITLE",
    "Controls",
    "DashboardConfig",
    "DashboardModels",
    "SystemFigures",
    "build_controls",
    "build_dashboard",
    "dt_slider_css",
    "dt_slider_options",
    "input_step",
    "lane_filter",
    "line_name",
    "model_name",
    "param_widget",
]

#: glyph properties of every per-integrator line, by kind ("error" and the breakdown parts in
#: the energy plot, :data:`~integrator_lab.views.energy_plot.ENERGY_LINE_STYLES`; "phase" in
#: the phase plot); the colour is the integrator's
LINE_STYLES = {**ENERGY_LINE_STYLES, "phase": PHASE_LINE_STYLE}


# -- one panel -------------------------------------------------------------------------------
class SystemFigures:
    """Figures, sources and widgets of one system's panel (see the module docstring).

    One source per integrator of the core exists from the start, but an integrator's lines
    (``lines[(kind, name)]``) are only built when it is selected and its kind is on view in
    the config, which keeps the page light (the page makes the others as they are needed).
    """

    def __init__(self, system_name: str, config: DashboardConfig) -> None:
        self.system_name = name = system_name
        system = config.system(name)
        self.names = list(config.integrators)
        self.energy_mode = config.energy_mode
        self.log_scale = config.log_scale
        self.show_phase = bool(config.show_phase)
        self.lang = config.lang
        #: integrators toggled off in the legend: selected and running, but not drawn
        self.hidden: set[str] = set(config.hidden)

        def n(role: str) -> str:
            return model_name(name, role)

        self._n = n

        self._build_scene(system)
        self._build_samples(system)
        self._build_energy_plot()
        self._build_phase_plot(system)
        self._build_settings(system, config.dt_of(name))
        # the scene in a box of its own, so that Bokeh does not align its frame with the
        # energy plot's (which has axes and a toolbar) and it can take the full width
        self.scene_box = column(self.scene_fig, sizing_mode="stretch_width")
        self.set_exact_curve(scenes.exact_curve(system))
        if config.energy_mode not in ENERGY_MODES:
            raise ValueError(
                f"energy_mode: got {config.energy_mode!r}, expected one of "
                f"{', '.join(ENERGY_MODES)}"
            )
        self._show_view(config.show_exact)

    # -- the parts (each built in its own module) -----------------------------------------
    def _build_scene(self, system: System) -> None:
        """The animation (views.scene_figures), at the initial state."""
        scene = Scene(system, self.names)
        parts = build_scene_figure(self._n, scene)
        self.scene_fig = parts.fig
        self.scene_sources = parts.sources
        #: the exact solution's ghost (shown with it, like :attr:`phase_ghost`)
        self.ghost_renderers = parts.ghost_renderers
        #: each lane's energy bar, E/E0 (views.energy_figures.add_energy_bars)
        self.energy_bars = parts.energy_bars
        #: the renderers with a row per integrator's body or link (filtered by ``hidden``)
        self.lane_renderers = parts.lane_renderers
        self.apply_scene(scene)
        self.apply_frame(scene.frame([system.initial_state()[0]] * len(self.names), 0.0))

    def _build_samples(self, system: System) -> None:
        """The energy and phase plots' data: a source per integrator of the core (lines on
        demand, :meth:`line`), the selected ones holding the state at t = 0, so that the
        plots have ranges at once."""
        self.samples = {
            i: ColumnDataSource({c: [] for c in SAMPLE_COLUMNS}, name=self._n(f"samples:{i}"))
            for i in INTEGRATORS
        }
        first = scenes.initial_sample(system)
        for i in self.names:
            self.samples[i].data = {c: [v] for c, v in first.items()}
        self.lines: dict[tuple[str, str], GlyphRenderer[Any]] = {}  # by (kind, integrator)

    def _build_energy_plot(self) -> None:
        """The energy plot (views.energy_plot), without lines."""
        plot = build_energy_plot(self._n)
        self.energy_fig = plot.fig
        # the axes of the energy plot's modes (the page switches between them)
        self._axes = plot.axes
        # the zero line's "0 = exact" (in the plot's centre: no search of the whole figure)
        label_name = self._n("energy:exact-label")
        self._exact_label = cast(Label, next(m for m in plot.fig.center if m.name == label_name))
        #: the methods clipped at the energy plot's edge (views.energy_figures)
        self.clipped = plot.clipped
        #: explains the breakdown's line styles only (the page has one integrator legend)
        self.legend = plot.legend
        #: legend entries explaining the line styles of the breakdown view
        self.style_items: list[LegendItem] = []

    def _build_phase_plot(self, system: System) -> None:
        """The phase plot (views.phase_figures), without lines."""
        plot = build_phase_plot(self._n, system)
        self.phase_fig = plot.fig
        self.phase_exact = plot.exact
        self.phase_ghost = plot.ghost

    def _build_settings(self, system: System, dt: float) -> None:
        """The time step's and the parameters' widgets (views.widget_models)."""
        settings = build_settings(self._n, self.system_name, system, dt)
        self.dt = settings.dt
        self.dt_slider = settings.dt_slider
        self.dt_half, self.dt_double = settings.dt_half, settings.dt_double
        self.dt_row = settings.dt_row
        self.params = settings.params
        self.param_grid = settings.grid

    # -- the config's view ----------------------------------------------------------------
    def line(self, kind: str, integrator: str) -> GlyphRenderer[Any]:
        """The line of ``kind`` for ``integrator``, created on first use."""
        key = (kind, integrator)
        if key not in self.lines:
            style = dict(LINE_STYLES[kind])
            fig = self.phase_fig if kind == "phase" else self.energy_fig
            if integrator not in self.samples:  # a user's method: no source was made for it
                self.samples[integrator] = ColumnDataSource(
                    {c: [] for c in SAMPLE_COLUMNS}, name=self._n(f"samples:{integrator}")
                )
            self.lines[key] = fig.add_glyph(
                self.samples[integrator],
                Line(line_color=color_of(integrator), **style),
                name=line_name(self.system_name, kind, integrator),
            )
        return self.lines[key]

    def _kinds_on_view(self) -> list[str]:
        kinds = ["error"] if self.energy_mode == "error" else list(BREAKDOWN_KINDS)
        if self._log_on():
            kinds.append("loss")  # the log view: gains solid, losses dashed
        return kinds + (["phase"] if self.show_phase else [])

    def _show_view(self, show_exact: bool) -> None:
        """The config's view: the lines it needs (an integrator's hidden ones not shown, its
        bodies and links filtered out of the scene), the energy plot's axis, its legend of
        line styles in the breakdown, the exact ghost and the phase plot shown or not."""
        for r in (*self.ghost_renderers, self.phase_ghost):
            r.visible = bool(show_exact)
        self.phase_fig.visible = self.show_phase
        on_view = self._kinds_on_view()
        for i in self.names:
            for kind in on_view:
                self.line(kind, i)
        shown = set(self.names) - self.hidden
        for (kind, i), renderer in self.lines.items():
            renderer.visible = i in shown and kind in on_view
        # the scene's bodies and links of a hidden integrator: filtered out by their
        # "integrator" column, so the filter holds for every frame and layout
        for renderer in self.lane_renderers:
            renderer.view.filter = lane_filter(self.hidden)
        if self.energy_mode == "breakdown":
            self.style_items.extend(breakdown_style_items(self.energy_fig, self._n))
            self.legend.items = [*self.legend.items, *self.style_items]
        fig = self.energy_fig
        axis = self.energy_view_mode()
        ticker, formatter = self._axes[axis]
        yaxis, ygrid = fig.yaxis[0], fig.ygrid[0]
        yaxis.ticker = ygrid.ticker = ticker
        yaxis.formatter = formatter
        column = ERROR_COLUMNS["log" if self._log_on() else "linear"]
        for (kind, _), renderer in self.lines.items():
            if kind == "error":
                renderer.glyph.y = column
        yaxis.axis_label = i18n.text(f"energy.axis.{axis}", self.lang)
        self._exact_label.visible = axis == "linear"  # the zero line: the exact motion's books
        fig.height = ENERGY_HEIGHT + (
            BREAKDOWN_EXTRA_HEIGHT if self.energy_mode == "breakdown" else 0
        )

    def energy_view_mode(self) -> str:
        """The energy view's mode (views.energy.MODES): the breakdown, the log view or the
        linear one."""
        if self.energy_mode == "breakdown":
            return "breakdown"
        return "log" if self.log_scale else "linear"

    def _log_on(self) -> bool:
        """The error plot on the signed-log axis (the breakdown is always linear)."""
        return self.log_scale and self.energy_mode == "error"

    # -- the state the page starts from (the page updates the models from there) -----------
    def apply_scene(self, scene: Scene, lang: str = "en") -> None:
        """New static layout: rows of bodies and links, view ranges (coordinates NaN until
        :meth:`apply_frame`); the bodies' hover texts in ``lang`` (views.i18n ``about.*``)."""
        show_scene(self.scene_fig, self.scene_sources, scene, lang)

    def apply_frame(self, frame: dict[str, Any]) -> None:
        """Move bodies and links to a :meth:`Scene.frame` result."""
        show_frame(self.scene_sources, frame)

    def set_exact_curve(self, curve: Mapping[str, Sequence[float]] | None) -> None:
        self.phase_exact.data = exact_columns(curve)


def line_name(system: str, kind: str, integrator: str) -> str:
    """Name of the line of ``kind`` (:data:`LINE_STYLES`) for ``integrator``."""
    return model_name(system, f"line:{kind}:{integrator}")


# -- the whole dashboard ---------------------------------------------------------------------
@dataclass
class DashboardModels:
    config: DashboardConfig
    controls: Controls
    panels: dict[str, SystemFigures]


#: the controls in the order they are shown
CONTROL_ORDER = (
    "integrators",
    "systems",
    "play",
    "step",
    "reset",
    "speed",
    "energy_mode",
    "log_scale",
    "show_exact",
    "show_phase",
    "copy_link",
)


def build_dashboard(config: DashboardConfig | None = None) -> DashboardModels:
    """Every model of the dashboard for ``config`` (defaults when None)."""
    config = config or DashboardConfig()
    for name in config.integrators:
        if name not in INTEGRATORS:
            raise ValueError(
                f"unknown integrator {name!r}; valid integrators: {', '.join(INTEGRATORS)}"
            )
    if config.energy_mode not in ENERGY_MODES:
        raise ValueError(
            f"energy_mode: got {config.energy_mode!r}, expected one of {', '.join(ENERGY_MODES)}"
        )
    controls = build_controls(config)
    panels = {name: SystemFigures(name, config) for name in config.systems}
    return DashboardModels(config=config, controls=controls, panels=panels)
