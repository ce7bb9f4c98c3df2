"""Bokeh models of the dashboard, shared by the static page and the Panel server app.

One call builds everything::

    from integrator_lab.views.figures import DashboardConfig, build_dashboard
    models = build_dashboard(DashboardConfig(integrators=("euler", "rk4")))
    models.controls.speed            # a Bokeh Slider
    models.panels["cradle"].samples["rk4"]   # the ColumnDataSource streamed for rk4
    models.layout()                  # everything in one Bokeh layout

The module builds models only: no callbacks, no JavaScript, no assumption about where the
simulation runs. The static page wires the widgets to a Pyodide worker in JavaScript; the
Panel app wires them to Python callbacks. The drawing itself (coordinates of balls, rods and
springs, sample columns) comes from :mod:`integrator_lab.views.scene`, pure Python that the
Pyodide worker runs too.

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
    ``models.controls`` (:class:`Controls`: the global widgets), ``models.panels``
    (``{system name: SystemFigures}`` in config order), ``models.header`` (the controls laid
    out) and ``models.layout()`` (header above the panels side by side).
:class:`SystemFigures` (one per system)
    Figures ``scene_fig`` (animation), ``energy_fig`` (signed relative energy error on a
    signed-log or linear axis, or the total/kinetic/potential/dissipated breakdown),
    ``phase_fig``; sources
    ``scene_sources`` (``bodies``, ``links``, ``ghost_bodies``, ``ghost_links``,
    ``fixtures``, ``status``), ``samples`` (``{integrator: ColumnDataSource}`` with columns
    :data:`~scene.SAMPLE_COLUMNS`, one for *every* integrator of the core), ``phase_exact``;
    widgets ``dt`` (Spinner) and ``params`` (``{param name: Spinner or Select}``, generated
    from the system's declarations); ``title``, ``status`` (Divs, plain text); ``layout``
    (all of them).
    Lines are built on demand (``line(kind, integrator)``, kinds :data:`LINE_STYLES`), for
    the selected integrators and the kinds on view only.
    Methods to update them from Python: :meth:`~SystemFigures.apply_scene`,
    :meth:`~SystemFigures.apply_frame`, :meth:`~SystemFigures.stream`, :meth:`~SystemFigures.clear`,
    :meth:`~SystemFigures.set_integrators`, :meth:`~SystemFigures.set_diverged`,
    :meth:`~SystemFigures.set_status`, :meth:`~SystemFigures.set_exact_curve`,
    :meth:`~SystemFigures.set_view` (energy mode, log scale, exact ghost, phase plot).
    With :mod:`integrator_lab.views.scene`: ``Scene(system, names)`` gives what
    :meth:`apply_scene` takes and ``scene.frame(states, t)`` what :meth:`apply_frame` takes;
    ``sample_columns(...)`` turns a ``Runner.take_batch()`` lane into what :meth:`stream`
    takes (see :mod:`integrator_lab.views.live` for the whole loop).

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

from bokeh.layouts import column, row
from bokeh.models import Axis, Column, ColumnDataSource, Grid, Line, Range1d, Row
from bokeh.models.annotations import Label, LegendItem
from bokeh.models.renderers import GlyphRenderer

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.core.systems.base import System
from integrator_lab.views import energy_figures, i18n
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
    diverged_status,
    empty_status,
    lane_filter,
    show_frame,
    show_scene,
)
from integrator_lab.views.shared import ROLLOVER, SAMPLE_COLUMNS, status_text
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
    panel_status,
    panel_title,
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
    "PanelModels",
    "SystemFigures",
    "build_controls",
    "build_dashboard",
    "build_header",
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

    Lines are created on demand: one source per integrator of the core exists from the
    start, but an integrator's lines (``lines[(kind, name)]``) are only built when it is
    selected and its kind is on view, which keeps the page light.
    """

    def __init__(self, system_name: str, config: DashboardConfig) -> None:
        self.system_name = name = system_name
        system = config.system(name)
        self.names = list(config.integrators)
        self.energy_mode = config.energy_mode
        self.log_scale = config.log_scale
        self.show_phase = config.show_phase
        self.lang = config.lang
        #: integrators toggled off in the legend: selected and running, but not drawn
        self.hidden: set[str] = set(config.hidden)
        self._lanes_hidden: set[str] | None = None  # what the scene's filters hide
        #: legend labels of integrators the core does not know (a user's method, by name)
        self.user_labels: dict[str, str] = {}

        def n(role: str) -> str:
            return model_name(name, role)

        self._n = n

        self.title = panel_title(n, SYSTEMS[name])
        self.status = panel_status(n)
        self._build_scene(system)
        self._build_samples(system)
        self._build_energy_plot()
        self._build_phase_plot(system)
        self._build_settings(system, config.dt_of(name))
        self._build_layout()
        self.set_exact_curve(scenes.exact_curve(system))
        self.set_view(
            energy_mode=config.energy_mode,
            log_scale=config.log_scale,
            show_exact=config.show_exact,
            show_phase=config.show_phase,
        )

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
        #: the renderers with a row per integrator's body or link (:meth:`set_hidden`)
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
        # the axes the energy plot switches between (see _refresh)
        self._axes = plot.axes
        self._axis: str | None = None
        self._y_guides: tuple[Axis, Grid] | None = None  # its y axis and grid (see _refresh)
        # the zero line's "0 = exact" (in the plot's centre: no search of the whole figure)
        label_name = self._n("energy:exact-label")
        self._exact_label = cast(Label, next(m for m in plot.fig.center if m.name == label_name))
        #: the methods clipped at the energy plot's edge (views.energy_figures)
        self.clipped = plot.clipped
        #: the last energy view a frame carried (views.energy.EnergyView.view)
        self.energy_view: dict[str, Any] | None = None
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

    def _build_layout(self) -> None:
        """The panel: title and status, the animation, the energy and phase plots, the
        settings (``layout``)."""
        # the scene in a box of its own, so that Bokeh does not align its frame with the
        # energy plot's (which has axes and a toolbar) and it can take the full width
        self.scene_box = column(self.scene_fig, sizing_mode="stretch_width")
        parts = [self.scene_box, self.energy_fig, self.phase_fig, self.param_grid]
        self.layout = column(
            self.title,
            self.status,
            *parts,
            sizing_mode="stretch_width",
            name=self._n("panel"),
            min_width=320,
        )

    # -- lines on demand ------------------------------------------------------------------
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

    def _style_items(self) -> list[LegendItem]:
        if not self.style_items:
            self.style_items.extend(breakdown_style_items(self.energy_fig, self._n))
            self.legend.items = [*self.legend.items, *self.style_items]
        return self.style_items

    def _kinds_on_view(self) -> list[str]:
        kinds = ["error"] if self.energy_mode == "error" else list(BREAKDOWN_KINDS)
        if self._log_on():
            kinds.append("loss")  # the log view: gains solid, losses dashed
        return kinds + (["phase"] if self.show_phase else [])

    def _refresh(self) -> None:
        """Create the lines the view needs and show exactly those."""
        on_view = self._kinds_on_view()
        for i in self.names:
            for kind in on_view:
                self.line(kind, i)
        shown = set(self.names) - self.hidden
        for (kind, i), renderer in self.lines.items():
            renderer.visible = i in shown and kind in on_view
        # the scene's bodies and links of a hidden integrator: filtered out by their
        # "integrator" column, so the filter holds for every later frame and layout
        if self._lanes_hidden != self.hidden:  # new filter models only when it changed
            self._lanes_hidden = set(self.hidden)
            for renderer in self.lane_renderers:
                renderer.view.filter = lane_filter(self.hidden)
        if self.energy_mode == "breakdown":
            self._style_items()
        for item in self.style_items:
            item.visible = self.energy_mode == "breakdown"
        fig = self.energy_fig
        log = self._log_on()
        axis = self.energy_view_mode()
        if self._axis != axis:
            self._axis = axis
            ticker, formatter = self._axes[axis]
            if self._y_guides is None:  # (found once: a search of the whole figure)
                self._y_guides = (fig.yaxis[0], fig.ygrid[0])
            yaxis, ygrid = self._y_guides
            yaxis.ticker = ygrid.ticker = ticker
            yaxis.formatter = formatter
        column = ERROR_COLUMNS["log" if log else "linear"]
        for (kind, _), renderer in self.lines.items():
            if kind == "error" and renderer.glyph.y != column:
                renderer.glyph.y = column
        fig.yaxis[0].axis_label = i18n.text(f"energy.axis.{axis}", self.lang)
        self._exact_label.visible = axis == "linear"  # the zero line: the exact motion's books
        self.show_energy_view()
        fig.height = ENERGY_HEIGHT + (
            BREAKDOWN_EXTRA_HEIGHT if self.energy_mode == "breakdown" else 0
        )

    def energy_view_for_page(self, view: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """What the page applies of energy view ``view`` (or the last one) in the mode on
        view: the y-range and the clipped marks (none but in the linear view); sets them on
        the models too, so that a mode changed while paused shows at once."""
        if view is not None:
            self.energy_view = view
        if self.energy_view is None:
            return None
        out = energy_figures.view_for_mode(self.energy_view, self.energy_view_mode())
        return out

    def show_energy_view(self) -> None:
        """The last energy view in the mode on view, set on the models (a mode change)."""
        out = self.energy_view_for_page()
        if out is not None:
            y_range = cast(Range1d, self.energy_fig.y_range)  # energy_figures.energy_range
            y_range.start, y_range.end = out["range"]
            self.clipped.data = energy_figures.padded_marks(out["clipped"])

    def energy_view_mode(self) -> str:
        """The energy view's mode (views.energy.MODES): the breakdown, the log view or the
        linear one."""
        if self.energy_mode == "breakdown":
            return "breakdown"
        return "log" if self.log_scale else "linear"

    def _log_on(self) -> bool:
        """The error plot on the signed-log axis (the breakdown is always linear)."""
        return self.log_scale and self.energy_mode == "error"

    # -- updates (the Panel app calls these; the static page does the same in JavaScript) --
    def apply_scene(self, scene: Scene, lang: str = "en") -> None:
        """New static layout: rows of bodies and links, view ranges (coordinates NaN until
        :meth:`apply_frame`); the bodies' hover texts in ``lang`` (views.i18n ``about.*``)."""
        show_scene(self.scene_fig, self.scene_sources, scene, lang)

    def apply_frame(self, frame: dict[str, Any]) -> None:
        """Move bodies and links to a :meth:`Scene.frame` result."""
        show_frame(self.scene_sources, frame)

    def stream(
        self, integrator: str, columns: Mapping[str, Sequence[float]], rollover: int = ROLLOVER
    ) -> None:
        """Append samples (:func:`scene.sample_columns`) of one integrator."""
        self.samples[integrator].stream({c: list(v) for c, v in columns.items()}, rollover=rollover)

    def clear(self) -> None:
        """Forget all samples (after a reset or a change of system, dt or integrators).

        Give the shown integrators their first samples in the same document change: BokehJS
        draws no axis at all for a log-scaled plot whose sources are all empty."""
        for source in self.samples.values():
            source.data = {c: [] for c in SAMPLE_COLUMNS}
        self.scene_sources["status"].data = empty_status()

    def set_integrators(self, names: Sequence[str]) -> None:
        """Show the lines and legend entries of ``names`` only (creating them if needed)."""
        self.names = list(names)
        self._refresh()

    def set_hidden(self, names: Sequence[str]) -> None:
        """Draw no body, link or line of the integrators ``names`` (they go on running)."""
        self.hidden = set(names)
        self._refresh()

    def set_diverged(self, diverged: Mapping[str, float], lang: str = "en") -> None:
        """Mark integrators that diverged: ``{name: time in s}`` (in their own colour), said
        in ``lang``."""
        self.scene_sources["status"].data = diverged_status(diverged, self.names, lang)

    def set_status(self, time: float, real_time_factor: float | None) -> None:
        self.status.text = status_text(time, real_time_factor)

    def set_exact_curve(self, curve: Mapping[str, Sequence[float]] | None) -> None:
        self.phase_exact.data = exact_columns(curve)

    def set_view(
        self,
        *,
        energy_mode: str | None = None,
        log_scale: bool | None = None,
        show_exact: bool | None = None,
        show_phase: bool | None = None,
    ) -> None:
        """Display options; ``None`` leaves an option as it is."""
        if energy_mode is not None:
            if energy_mode not in ENERGY_MODES:
                raise ValueError(
                    f"energy_mode: got {energy_mode!r}, expected one of {', '.join(ENERGY_MODES)}"
                )
            self.energy_mode = energy_mode
        if log_scale is not None:
            self.log_scale = bool(log_scale)
        if show_exact is not None:
            for r in (*self.ghost_renderers, self.phase_ghost):
                r.visible = bool(show_exact)
        if show_phase is not None:
            self.show_phase = bool(show_phase)
            self.phase_fig.visible = self.show_phase
        self._refresh()


#: the former name of :class:`SystemFigures` (it has nothing to do with the Panel library)
PanelModels = SystemFigures


def line_name(system: str, kind: str, integrator: str) -> str:
    """Name of the line of ``kind`` (:data:`LINE_STYLES`) for ``integrator``."""
    return model_name(system, f"line:{kind}:{integrator}")


# -- the whole dashboard ---------------------------------------------------------------------
@dataclass
class DashboardModels:
    config: DashboardConfig
    controls: Controls
    panels: dict[str, SystemFigures]
    header: Any

    def layout(self) -> Column:
        """Header above the panels side by side (one Bokeh layout, e.g. for Panel)."""
        return column(
            self.header,
            row([p.layout for p in self.panels.values()], sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )


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


def build_header(controls: Controls) -> Row:
    return row(
        [getattr(controls, role) for role in CONTROL_ORDER],
        sizing_mode="stretch_width",
        name=model_name("controls", "header"),
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
    return DashboardModels(
        config=config, controls=controls, panels=panels, header=build_header(controls)
    )
