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
    (all of them) and ``body`` (the same without title and status).
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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bokeh.layouts import column, row
from bokeh.models import (
    AllIndices,
    Button,
    Checkbox,
    CheckboxButtonGroup,
    ColumnDataSource,
    CustomJS,
    CustomJSHover,
    CustomJSTickFormatter,
    DataRange1d,
    Div,
    Filter,
    GridBox,
    GroupFilter,
    HoverTool,
    IntersectionFilter,
    InversionFilter,
    LabelSet,
    Legend,
    LegendItem,
    MetricLength,
    MultiChoice,
    RadioButtonGroup,
    Range1d,
    ScaleBar,
    Select,
    Slider,
    Span,
    Spinner,
    Toggle,
)
from bokeh.plotting import figure

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, SYSTEMS, get_system
from integrator_lab.views import energy_figures, i18n
from integrator_lab.views import scene as scenes
from integrator_lab.views.scene import (
    ERROR_FLOOR_EXPONENT,
    GHOST_COLOR,
    SCENE_ASPECT,
    Scene,
    color_of,
)
from integrator_lab.views.shared import (
    DT_RANGE,
    DT_SLIDER_STEPS,
    FRAME_SCENE,
    PANEL_SYSTEMS,
    ROLLOVER,
    SAMPLE_COLUMNS,
    SPEED_RANGE,
    dt_mark,
    dt_position,
    status_text,
)

#: fill of a diverged integrator's bodies (outlined in its colour)
DIVERGED_COLOR = "#b0b0b0"
#: places each "diverged at" text (rows of the status source, ``"name: ..."``, and the
#: integrator's code name) on its integrator's lane label (a row of the fixtures), over two
#: lines
MARKS_JS = """
const s = status.data, f = lanes.data;
const out = {x: [], y: [], text: [], color: []};
for (let i = 0; i < s.text.length; i++) {
  const lane = (f.integrator || []).indexOf((s.integrator || [])[i]);
  if (lane < 0) continue;
  out.x.push(f.lx[lane]);
  out.y.push(f.ly[lane]);
  out.text.push(s.text[i].replace(": ", ":\\n"));
  out.color.push(s.color[i]);
}
marks.data = out;
"""

ENERGY_MODES = ("error", "breakdown")
ENERGY_MODE_LABELS = ("Energy error", "Energy breakdown")
SCENE_WIDTH = 480  # px; figures scale to the width they get, these set proportions
ENERGY_HEIGHT = 230
#: px the energy plot grows by in breakdown mode, for the legend of its line styles (below
#: the plot, inside its height), so that the plot itself keeps its size
BREAKDOWN_EXTRA_HEIGHT = 56
PHASE_HEIGHT = 260
#: why "Log scale" is greyed out in breakdown mode (its tooltip, on both dashboards)
LOG_SCALE_TIP = (
    "The energy error on a signed log axis: a gain of 10^k as far above 0 as a loss of 10^k "
    "is below it. Unchecked: a linear axis. The energy breakdown (in joules, on a linear "
    "axis) does not use it."
)

# The signed-log axis (scene.signed_log): a tick at y means ±10^(|y| + floor exponent), one
# decade per unit, so ticks go at whole units only (a tick between decades would mean
# nothing) and read "+10⁻³", "0", "−10⁻⁶".
SIGNED_LOG_TICK_CODE = f"""
const k = Math.round(tick);
if (k === 0) return "0";
const digits = "⁻⁰¹²³⁴⁵⁶⁷⁸⁹";
const exponent = String(Math.abs(k) + ({ERROR_FLOOR_EXPONENT}));
const power = [...exponent].map((c) => digits["-0123456789".indexOf(c)]).join("");
return (k > 0 ? "+" : "−") + "10" + power;
"""
#: the hover's energy error: the value with its sign, and what the sign means
ERROR_HOVER_CODE = """
if (!Number.isFinite(value)) return "–";
if (value === 0) return "0 (exact)";
const text = Math.abs(value).toExponential(1);
return value > 0 ? `+${text} (gain)` : `−${text} (loss)`;
"""


#: a widget's title wraps within its grid cell (Bokeh keeps it on one line, where a long one,
#: such as the dt field's "recommended" note or a unit, ran into the next field or off a phone)
WRAP_TITLE = ".bk-input-group > label { white-space: normal; overflow-wrap: anywhere; }"


def model_name(owner: str, role: str) -> str:
    """The ``name`` of a model: ``owner`` is a system name or ``"controls"``."""
    return f"{owner}:{role}"


@dataclass
class DashboardConfig:
    """What the dashboard shows. Missing ``params``/``dt`` entries mean the defaults."""

    systems: Sequence[str] = PANEL_SYSTEMS
    integrators: Sequence[str] = DEFAULT_INTEGRATORS
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    dt: Mapping[str, float] = field(default_factory=dict)
    speed: float = 1.0
    playing: bool = True
    show_exact: bool = True
    energy_mode: str = "error"
    log_scale: bool = False  # the linear energy view is the default (views.energy)
    show_phase: bool = False
    #: integrators toggled off in the legend: they run, but are not drawn
    hidden: Sequence[str] = ()
    #: the language of the texts the figures set as they change (views.i18n); the static
    #: page sets its own in the page
    lang: str = i18n.DEFAULT_LANGUAGE

    def system(self, name: str):
        """The core system ``name`` with this config's parameters (ValueError if invalid)."""
        return get_system(name, **dict(self.params.get(name, {})))

    def dt_of(self, name: str) -> float:
        dt = self.dt.get(name)
        return float(dt) if dt is not None else self.system(name).recommended_dt


# -- widgets ---------------------------------------------------------------------------------
@dataclass
class Controls:
    """Widgets that act on every panel."""

    integrators: MultiChoice
    systems: CheckboxButtonGroup
    play: Toggle
    step: Button
    reset: Button
    speed: Slider
    show_exact: Checkbox
    energy_mode: RadioButtonGroup
    log_scale: Checkbox
    show_phase: Checkbox
    copy_link: Button


def build_controls(config: DashboardConfig) -> Controls:
    def name(role):
        return model_name("controls", role)

    options = [(n, n) for n in INTEGRATORS]
    return Controls(
        integrators=MultiChoice(
            title="Integrators",
            # also the input's accessible name (without one it reads "null"); the input is
            # as wide as its placeholder in "ch", too narrow for Japanese characters
            placeholder="add an integrator…",
            # at most two rows of chips, then it scrolls: the controls' bar stays as tall
            # with eleven integrators as with four, and so does the first screen's room
            stylesheets=[
                ".choices__input--cloned { min-width: 10em !important; }",
                ".choices__inner { max-height: 64px; overflow-y: auto; }",
            ],
            options=options,
            value=list(config.integrators),
            name=name("integrators"),
            sizing_mode="stretch_width",
            min_width=280,
            description="Integrators run in lockstep on every system; hover a body in the "
            "animation for its order and properties.",
        ),
        # the page's system picker (the page shows any of the panels it was built with, in
        # the order the state says); the labels are the systems' titles
        systems=CheckboxButtonGroup(
            labels=[SYSTEMS[s].title for s in config.systems],
            active=list(range(len(config.systems))),
            name=name("systems"),
            align="end",
            html_attributes={"title": "Systems shown (at least one)"},
        ),
        play=Toggle(
            label="Pause" if config.playing else "Play",
            active=config.playing,
            button_type="primary",
            name=name("play"),
            width=80,
            align="end",
        ),
        step=Button(
            label="Step",
            name=name("step"),
            width=70,
            align="end",
            html_attributes={"title": "Advance every system by one time step"},
        ),
        reset=Button(
            label="Reset",
            name=name("reset"),
            width=70,
            align="end",
            html_attributes={"title": "Back to t = 0"},
        ),
        speed=Slider(
            title="Speed (× real time)",
            start=SPEED_RANGE[0],
            end=SPEED_RANGE[1],
            step=0.1,
            value=config.speed,
            format="0.0",
            name=name("speed"),
            width=200,
            align="end",
        ),
        show_exact=Checkbox(
            label="Exact solution", active=config.show_exact, name=name("show_exact"), align="end"
        ),
        energy_mode=RadioButtonGroup(
            labels=list(ENERGY_MODE_LABELS),
            active=ENERGY_MODES.index(config.energy_mode),
            name=name("energy_mode"),
            align="end",
        ),
        log_scale=Checkbox(
            label="Log scale",
            active=config.log_scale,
            name=name("log_scale"),
            align="end",
            disabled=config.energy_mode == "breakdown",
            html_attributes={"title": LOG_SCALE_TIP},
        ),
        show_phase=Checkbox(
            label="Phase space", active=config.show_phase, name=name("show_phase"), align="end"
        ),
        copy_link=Button(
            label="Copy link",
            name=name("copy_link"),
            width=90,
            align="end",
            html_attributes={"title": "Copy a link to this exact view"},
        ),
    )


def input_step(p) -> float:
    """A spinner step: a tenth of the default's order of magnitude (or of the range)."""
    reference = abs(p.default) if p.default else None
    if reference is None and p.max is not None and p.min is not None:
        reference = (p.max - p.min) / 100.0
    reference = reference or 1.0
    return 10.0 ** (math.floor(math.log10(reference)) - 1)


#: a field's title wraps in a narrow column (a phone) rather than push the page wider
WRAPPING_TITLE = ".bk-input-group > label { white-space: normal; overflow-wrap: anywhere; }"


def param_widget(system_name: str, p, value) -> Spinner | Select:
    """The widget for one declared parameter: a Select for choices, else a Spinner bounded
    by the declared range (open bounds are enforced by validation, not by the spinner)."""
    title = p.title  # declared once, in the core (Param.title)
    wname = model_name(system_name, f"param:{p.name}")
    description = f"{p.doc}; {p.accepted()}"
    if p.kind == "choice":
        return Select(
            title=title,
            options=list(p.choices),
            value=str(value),
            name=wname,
            description=description,
            sizing_mode="stretch_width",
            min_width=90,
            stylesheets=[WRAPPING_TITLE],
        )
    if p.kind == "int":
        return Spinner(
            title=title,
            value=value,
            low=p.min,
            high=p.max,
            step=1,
            mode="int",
            name=wname,
            description=description,
            sizing_mode="stretch_width",
            min_width=90,
            stylesheets=[WRAPPING_TITLE],
        )
    return Spinner(
        title=title,
        value=value,
        low=p.min,
        high=p.max,
        step=input_step(p),
        mode="float",
        format="0[.][000000]",
        name=wname,
        description=description,
        sizing_mode="stretch_width",
        min_width=90,
        stylesheets=[WRAPPING_TITLE],
    )


# -- the time step on a log scale ------------------------------------------------------------
#: the slider's value, log10(dt), as the slider shows it: the time step in seconds
DT_SLIDER_FORMAT = "return Number((10 ** tick).toPrecision(3)) + ' s';"


def dt_slider_css(recommended: float) -> str:
    """The mark of the recommended step on the time-step slider's track (CSS for the
    slider's shadow root). ``--il-dt-mark`` (a percentage of the track) and
    ``--il-dt-mark-text`` set on an ancestor element move it: the recommended step depends
    on the parameters (a stiffer cradle contact is shorter)."""
    at = f"var(--il-dt-mark, {dt_mark(recommended):.3f}%)"
    text = f'var(--il-dt-mark-text, "recommended {recommended:g} s")'
    return (
        ":host { margin-bottom: 18px; }"
        ".bk-slider-title { white-space: normal; }"
        ".noUi-base::after { content: ''; position: absolute; z-index: 1; top: -5px;"
        f" bottom: -5px; left: {at}; width: 2px; margin-left: -1px; background: #3d4247;"
        " pointer-events: none; }"
        f".noUi-base::before {{ content: {text}; position: absolute; top: 15px;"
        f" left: clamp(4em, {at}, calc(100% - 4em)); transform: translateX(-50%);"
        " font-size: 11px; line-height: 1; white-space: nowrap; color: #3d4247;"
        " pointer-events: none; }"
    )


def dt_slider_options(recommended: float) -> dict:
    """What a time-step slider (Bokeh's ``Slider``, Panel's ``FloatSlider``) takes: log10(dt)
    across :data:`DT_RANGE`, shown as seconds, with the recommended step marked."""
    lo, hi = (math.log10(x) for x in DT_RANGE)
    return {
        "start": lo,
        "end": hi,
        "step": (hi - lo) / DT_SLIDER_STEPS,
        "format": CustomJSTickFormatter(code=DT_SLIDER_FORMAT),
        "stylesheets": [dt_slider_css(recommended)],
    }


DT_SLIDER_TITLE = f"time step dt, log scale ({DT_RANGE[0]:g} to {DT_RANGE[1]:g} s)"
DT_HALF_TITLE = "Halve the time step (÷2)"
DT_DOUBLE_TITLE = "Double the time step (×2)"


# -- one panel -------------------------------------------------------------------------------
#: glyph properties of every per-integrator line, by kind ("error" and the breakdown parts in
#: the energy plot, "phase" in the phase plot); the colour is the integrator's. The error
#: line's ``y`` is :data:`ERROR_COLUMNS`' linear column; on the signed-log axis it is switched
#: to the signed-log one. In the breakdown, the total (what the error plot measures) is a
#: bold line and its parts are thin and faint, so that an integrator's total stays readable
#: over the parts of the others.
LINE_STYLES = {
    "error": {"x": "t", "y": "error", "line_width": 2.0},
    # the log view's second line: the largest error so far while it was a loss, dashed
    "loss": {"x": "t", "y": "log_loss", "line_width": 2.0, "line_dash": "dashed"},
    "total": {"x": "t", "y": "total", "line_width": 2.6, "line_dash": "solid"},
    "kinetic": {
        "x": "t",
        "y": "kinetic",
        "line_width": 1.2,
        "line_dash": "dashed",
        "line_alpha": 0.5,
    },
    "potential": {
        "x": "t",
        "y": "potential",
        "line_width": 1.2,
        "line_dash": "dotted",
        "line_alpha": 0.5,
    },
    "dissipated": {
        "x": "t",
        "y": "dissipated",
        "line_width": 1.2,
        "line_dash": "dashdot",
        "line_alpha": 0.5,
    },
    "phase": {"x": "q", "y": "v", "line_width": 1.6, "line_alpha": 0.85},
}
BREAKDOWN_KINDS = ("total", "kinetic", "potential", "dissipated")
#: legend labels of the breakdown's line styles
BREAKDOWN_LABELS = {
    "total": "total K+P+dissipated",
    "kinetic": "kinetic",
    "potential": "potential",
    "dissipated": "dissipated",
}
#: the error line's y column: on the signed-log axis (scene.signed_log), on the linear axis
ERROR_COLUMNS = {"log": "log_gain", "linear": "error"}
#: y-axis labels of the energy plot
ENERGY_AXIS_LABELS = {
    "error": "ΔE/E₀: ↑ gain, ↓ loss",
    "breakdown": "energy (J)",
}


class SystemFigures:
    """Figures, sources and widgets of one system's panel (see the module docstring).

    Lines are created on demand: one source per integrator of the core exists from the
    start, but an integrator's lines (``lines[(kind, name)]``) are only built when it is
    selected and its kind is on view, which keeps the page light.
    """

    def __init__(self, system_name: str, config: DashboardConfig):
        self.system_name = name = system_name
        system = config.system(name)
        cls = SYSTEMS[name]
        self.names = list(config.integrators)
        self.energy_mode = config.energy_mode
        self.log_scale = config.log_scale
        self.show_phase = config.show_phase
        self.lang = config.lang

        def n(role):
            return model_name(name, role)

        self._n = n

        self.title = Div(
            text=cls.title,
            name=n("title"),
            render_as_text=True,
            sizing_mode="stretch_width",
            margin=(0, 5, 0, 5),
            styles={"font-size": "1.1rem", "font-weight": "600"},
            html_attributes={"title": cls.description},
        )
        self.status = Div(
            text=status_text(0.0, None),
            name=n("status"),
            render_as_text=True,
            sizing_mode="stretch_width",
            margin=(0, 5, 4, 5),
            styles={
                "font-size": "0.85rem",
                "color": "#5c6166",
                "font-variant-numeric": "tabular-nums",
            },
        )

        # the animation
        scene = Scene(system, self.names)
        self.scene_sources = {
            role: ColumnDataSource(name=n(f"scene:{role}"))
            for role in ("bodies", "links", "ghost_bodies", "ghost_links", "fixtures", "status")
        }
        src = self.scene_sources
        self.scene_fig = fig = figure(
            name=n("scene"),
            x_range=Range1d(*scene.x_range, name=n("scene:x_range")),
            y_range=Range1d(*scene.y_range, name=n("scene:y_range")),
            tools="",
            toolbar_location=None,
            width=SCENE_WIDTH,
            height=round(SCENE_WIDTH / SCENE_ASPECT),
            sizing_mode="scale_width",
            min_border=0,
            outline_line_color=None,
            background_fill_color="#fbfbfa",
        )
        fig.axis.visible = False
        fig.grid.visible = False
        # the view fits the motion: a scale bar says how big it is (a 0.17 m swing and a 3 m
        # one would look alike), its length a round number of metres that follows the range
        fig.add_layout(
            ScaleBar(
                dimensional=MetricLength(),
                unit="m",
                location="bottom_right",
                bar_length=0.16,
                bar_line_color="#555555",
                label_text_font_size="10px",
                label_text_color="#555555",
                background_fill_color=None,
                border_line_color=None,
                level="underlay",  # under the bodies: it never hides one that swings by
                margin=4,
                padding=4,
                name=n("scene:scale"),
            )
        )
        fig.segment(
            "x0",
            "y0",
            "x1",
            "y1",
            source=src["fixtures"],
            line_color="#555555",
            line_width=4,
            name=n("scene:fixtures-renderer"),
        )
        # each lane's integrator, in its colour, at the lane's top left
        fig.text(
            "lx",
            "ly",
            text="label",
            source=src["fixtures"],
            text_color="color",
            text_font_size="11px",
            text_font_style="bold",
            text_baseline="middle",
            name=n("scene:lane-labels"),
        )
        self.ghost_renderers = [
            fig.segment(
                "x0",
                "y0",
                "x1",
                "y1",
                source=src["ghost_links"],
                line_color=GHOST_COLOR,
                line_width=2,
                line_dash="dashed",
                line_alpha=0.7,
                name=n("scene:ghost-links-renderer"),
            ),
            self._body_glyph(
                fig,
                src["ghost_bodies"],
                scene.shape,
                ghost=True,
                rname=n("scene:ghost-bodies-renderer"),
            ),
        ]
        # a diverged integrator's bodies stay where it stopped, greyed, outlined in its colour
        diverged_links = fig.segment(
            "fx0",
            "fy0",
            "fx1",
            "fy1",
            source=src["links"],
            line_color=DIVERGED_COLOR,
            line_width=2,
            name=n("scene:diverged-links-renderer"),
        )
        diverged_bodies = self._body_glyph(
            fig,
            src["bodies"],
            scene.shape,
            ghost=False,
            diverged=True,
            rname=n("scene:diverged-bodies-renderer"),
        )
        links = fig.segment(
            "x0",
            "y0",
            "x1",
            "y1",
            source=src["links"],
            line_color="color",
            line_width=2,
            line_alpha=0.8,
            name=n("scene:links-renderer"),
        )
        bodies = self._body_glyph(
            fig, src["bodies"], scene.shape, ghost=False, rname=n("scene:bodies-renderer")
        )
        # a body beyond its lane is pinned at the edge, with an arrow pointing the way it went
        arrows = fig.scatter(
            "ax",
            "ay",
            source=src["bodies"],
            marker="triangle",
            angle="angle",
            size=14,
            fill_color="color",
            line_color="white",
            line_width=1.5,
            name=n("scene:edge-arrows-renderer"),
        )
        fig.add_tools(HoverTool(renderers=[bodies], tooltips=[("", "@about")]))
        #: each lane's energy bar, E/E0 (views.energy_figures.add_energy_bars)
        self.energy_bars = energy_figures.add_energy_bars(fig, n)
        #: the renderers with a row per integrator's body or link (:meth:`set_hidden`)
        self.lane_renderers = [links, bodies, diverged_links, diverged_bodies, arrows]
        # "diverged at t = ..." (the status source, filled by the page or the server) is
        # shown over the diverged integrator's lane label, next to its bodies
        marks = ColumnDataSource({"x": [], "y": [], "text": [], "color": []}, name=n("scene:marks"))
        src["status"].js_on_change(
            "data",
            CustomJS(
                args=dict(status=src["status"], lanes=src["fixtures"], marks=marks), code=MARKS_JS
            ),
        )
        fig.add_layout(
            LabelSet(
                x="x",
                y="y",
                text="text",
                text_color="color",
                text_font_size="11px",
                text_font_style="bold",
                text_baseline="top",
                y_offset=7,
                source=marks,
                name=n("scene:diverged-marks"),
                background_fill_color="white",
                background_fill_alpha=0.85,
            )
        )
        # the texts as the page and the server set them (in the corner, in screen units):
        # hidden, the marks above show them; the renderer keeps the source in the document
        fig.add_layout(
            LabelSet(
                x="x",
                y="y",
                x_units="screen",
                y_units="screen",
                text="text",
                source=src["status"],
                name=n("scene:status-labels"),
                visible=False,
            )
        )
        self.apply_scene(scene)
        self.apply_frame(scene.frame([system.initial_state()[0]] * len(self.names), 0.0))

        # energy and phase plots: a source per integrator of the core, lines on demand
        self.samples = {
            i: ColumnDataSource({c: [] for c in SAMPLE_COLUMNS}, name=n(f"samples:{i}"))
            for i in INTEGRATORS
        }
        first = scenes.initial_sample(system)
        for i in self.names:  # the state at t = 0, so that the plots have ranges at once
            self.samples[i].data = {c: [v] for c, v in first.items()}
        tools = "pan,wheel_zoom,box_zoom,reset,save"
        self.energy_fig = figure(
            name=n("energy"),
            height=ENERGY_HEIGHT,
            width=SCENE_WIDTH,
            sizing_mode="stretch_width",
            tools=tools,
            toolbar_location="right",
            x_axis_label="t (s)",
            x_range=DataRange1d(range_padding=0.0, only_visible=True, name=n("energy:x")),
            y_range=energy_figures.energy_range(n("energy:y")),
        )
        self.energy_fig.yaxis[0].name = n("energy:yaxis")
        # its label says how to read the lines ("max |ΔE/E₀| (%), dashed: loss"): at Bokeh's
        # 13 px it was longer than a first-screen plot is tall, and cut
        self.energy_fig.yaxis[0].axis_label_text_font_size = "11px"
        self.energy_fig.xaxis[0].name = n("energy:xaxis")
        self.energy_fig.ygrid[0].name = n("energy:ygrid")
        # the axes the energy plot switches between (see _refresh)
        self._axes = {m: energy_figures.axis_models(m) for m in ("log", "linear", "breakdown")}
        self._axis = None
        #: the methods clipped at the energy plot's edge (views.energy_figures)
        self.clipped = energy_figures.add_energy_view(self.energy_fig, n)
        #: the last energy view a frame carried (views.energy.EnergyView.view)
        self.energy_view: dict | None = None
        # no error: the line a gain rises from and a loss sinks from
        self.energy_fig.add_layout(
            Span(
                location=0.0,
                dimension="width",
                line_color="#333333",
                line_width=1.2,
                name=n("energy:zero"),
            )
        )
        x_label, y_label = scenes.phase_labels(system)
        self.phase_fig = figure(
            name=n("phase"),
            height=PHASE_HEIGHT,
            width=SCENE_WIDTH,
            sizing_mode="stretch_width",
            tools=tools,
            toolbar_location="right",
            x_axis_label=x_label,
            y_axis_label=y_label,
            x_range=DataRange1d(only_visible=True, name=n("phase:x")),
            y_range=DataRange1d(only_visible=True, name=n("phase:y")),
        )
        self.phase_fig.xaxis[0].name = n("phase:xaxis")
        self.phase_fig.yaxis[0].name = n("phase:yaxis")
        for f in (self.energy_fig, self.phase_fig):
            f.toolbar.logo = None
            f.min_border_left = 60
        self.phase_exact = ColumnDataSource({"q": [], "v": []}, name=n("phase:exact"))
        self.phase_ghost = self.phase_fig.line(
            "q",
            "v",
            source=self.phase_exact,
            line_color=GHOST_COLOR,
            line_width=2,
            line_dash="dashed",
            name=n("phase:exact-renderer"),
        )
        # One legend for the whole page, outside the figures (the static page's HTML chips, the
        # Panel dashboard's toggle buttons): a legend in each energy plot took its data area,
        # more with every integrator. This one only explains the breakdown's line styles.
        self.legend = Legend(
            items=[],
            location="top_left",
            orientation="horizontal",
            click_policy="none",
            label_text_font_size="11px",
            spacing=8,
            padding=2,
            margin=2,
            glyph_width=18,
            glyph_height=12,
            label_height=12,
            background_fill_alpha=0.0,
            border_line_alpha=0.0,
            name=n("energy:legend"),
        )
        self.energy_fig.add_layout(self.legend, "below")
        #: legend entries explaining the line styles of the breakdown view
        self.style_items = []
        self.lines = {}  # (kind, integrator) -> GlyphRenderer
        #: integrators toggled off in the legend: selected and running, but not drawn
        self.hidden: set[str] = set(config.hidden)
        self._lanes_hidden: set[str] | None = None  # what the scene's filters hide
        #: legend labels of integrators the core does not know (a user's method, by name)
        self.user_labels: dict[str, str] = {}
        self.energy_fig.add_tools(
            HoverTool(
                tooltips=[
                    ("t", "@t{0.000} s"),
                    ("energy error", "@error{custom}"),
                    ("total", "@total{0.000e} J"),
                    ("kinetic", "@kinetic{0.000e} J"),
                    ("potential", "@potential{0.000e} J"),
                    ("dissipated", "@dissipated{0.000e} J"),
                ],
                formatters={"@error": CustomJSHover(code=ERROR_HOVER_CODE)},
                mode="mouse",
                name=n("energy:hover"),
            )
        )

        # widgets
        self.dt = Spinner(
            title="time step dt (s)",
            value=config.dt_of(name),
            low=DT_RANGE[0],
            high=DT_RANGE[1],
            step=system.recommended_dt / 10.0,
            mode="float",
            format="0[.][000000]",
            name=n("dt"),
            sizing_mode="stretch_width",
            min_width=90,
            stylesheets=[WRAPPING_TITLE],
            description=(
                f"fixed time step of every integrator; recommended "
                f"{system.recommended_dt:g} s; accepted: {DT_RANGE[0]:g} to "
                f"{DT_RANGE[1]:g} s"
            ),
        )
        # the time step on a log scale, with ×2 / ÷2 (the spinner above stays for typing)
        self.dt_slider = Slider(
            title=DT_SLIDER_TITLE,
            value=dt_position(config.dt_of(name)),
            name=n("dt:slider"),
            sizing_mode="stretch_width",
            min_width=120,
            **dt_slider_options(system.recommended_dt),
        )
        self.dt_half, self.dt_double = (
            Button(
                label=label,
                name=n(f"dt:{role}"),
                width=44,
                align="center",
                html_attributes={"title": tip},
            )
            for label, role, tip in (
                ("÷2", "half", DT_HALF_TITLE),
                ("×2", "double", DT_DOUBLE_TITLE),
            )
        )
        self.dt_row = row(
            self.dt_half,
            self.dt_slider,
            self.dt_double,
            sizing_mode="stretch_width",
            name=n("dt:row"),
        )
        self.params = {p.name: param_widget(name, p, system.params[p.name]) for p in cls.PARAMS}
        widgets = [self.dt, *self.params.values()]
        for widget in widgets:
            widget.stylesheets = [*widget.stylesheets, WRAP_TITLE]
        self.param_grid = GridBox(
            children=[(self.dt_row, 0, 0, 1, 3)]
            + [(w, 1 + k // 3, k % 3) for k, w in enumerate(widgets)],
            sizing_mode="stretch_width",
            name=n("params"),
            spacing=(2, 8),
        )
        # the scene in a box of its own, so that Bokeh does not align its frame with the
        # energy plot's (which has axes and a toolbar) and it can take the full width
        self.scene_box = column(self.scene_fig, sizing_mode="stretch_width")
        parts = [self.scene_box, self.energy_fig, self.phase_fig, self.param_grid]
        self.layout = column(
            self.title,
            self.status,
            *parts,
            sizing_mode="stretch_width",
            name=n("panel"),
            min_width=320,
        )
        self.set_exact_curve(scenes.exact_curve(system))
        self.set_view(
            energy_mode=config.energy_mode,
            log_scale=config.log_scale,
            show_exact=config.show_exact,
            show_phase=config.show_phase,
        )

    @staticmethod
    def _body_glyph(fig, source, shape, *, ghost, rname, diverged=False):
        if ghost:
            style = dict(fill_alpha=0.0, line_color=GHOST_COLOR, line_width=2, line_dash="dashed")
        elif diverged:
            style = dict(
                fill_color=DIVERGED_COLOR, fill_alpha=0.8, line_color="color", line_width=2
            )
        else:
            style = dict(fill_color="color", fill_alpha=0.55, line_color="color", line_width=1.5)
        x, y = ("fx", "fy") if diverged else ("x", "y")
        if shape == "rect":
            return fig.rect(x, y, width="w", height="h", source=source, name=rname, **style)
        return fig.circle(x, y, radius="r", source=source, name=rname, **style)

    # -- lines on demand ------------------------------------------------------------------
    def line(self, kind: str, integrator: str):
        """The line of ``kind`` for ``integrator``, created on first use."""
        key = (kind, integrator)
        if key not in self.lines:
            style = dict(LINE_STYLES[kind])
            fig = self.phase_fig if kind == "phase" else self.energy_fig
            if integrator not in self.samples:  # a user's method: no source was made for it
                self.samples[integrator] = ColumnDataSource(
                    {c: [] for c in SAMPLE_COLUMNS}, name=self._n(f"samples:{integrator}")
                )
            self.lines[key] = fig.line(
                style.pop("x"),
                style.pop("y"),
                source=self.samples[integrator],
                line_color=color_of(integrator),
                name=line_name(self.system_name, kind, integrator),
                **style,
            )
        return self.lines[key]

    def _style_items(self):
        if not self.style_items:
            nan = float("nan")
            empty = ColumnDataSource({"t": [nan], "y": [nan]}, name=self._n("energy:style-source"))
            for kind in BREAKDOWN_KINDS:
                swatch = self.energy_fig.line(
                    "t",
                    "y",
                    source=empty,
                    line_color="#666666",
                    line_width=LINE_STYLES[kind]["line_width"],
                    line_dash=LINE_STYLES[kind]["line_dash"],
                )
                self.style_items.append(
                    LegendItem(
                        label=BREAKDOWN_LABELS[kind],
                        renderers=[swatch],
                        name=self._n(f"legend-style:{kind}"),
                    )
                )
            self.legend.items = [*self.legend.items, *self.style_items]
        return self.style_items

    def _kinds_on_view(self):
        kinds = ["error"] if self.energy_mode == "error" else list(BREAKDOWN_KINDS)
        if self._log_on():
            kinds.append("loss")  # the log view: gains solid, losses dashed
        return kinds + (["phase"] if self.show_phase else [])

    def _refresh(self):
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
            fig.yaxis[0].ticker = fig.ygrid[0].ticker = ticker
            fig.yaxis[0].formatter = formatter
        column = ERROR_COLUMNS["log" if log else "linear"]
        for (kind, _), renderer in self.lines.items():
            if kind == "error" and renderer.glyph.y != column:
                renderer.glyph.y = column
        fig.yaxis[0].axis_label = i18n.text(f"energy.axis.{axis}", self.lang)
        for label in fig.select({"name": self._n("energy:exact-label")}):
            label.visible = axis == "linear"  # the zero line: the exact motion's books
        self.show_energy_view()
        fig.height = ENERGY_HEIGHT + (
            BREAKDOWN_EXTRA_HEIGHT if self.energy_mode == "breakdown" else 0
        )

    def energy_view_for_page(self, view: dict | None = None) -> dict | None:
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
            fig = self.energy_fig
            fig.y_range.start, fig.y_range.end = out["range"]
            self.clipped.data = energy_figures.padded_marks(out["clipped"])

    def energy_view_mode(self) -> str:
        """The energy view's mode (views.energy.MODES): the breakdown, the log view or the
        linear one."""
        if self.energy_mode == "breakdown":
            return "breakdown"
        return "log" if self.log_scale else "linear"

    def _log_on(self):
        """The error plot on the signed-log axis (the breakdown is always linear)."""
        return self.log_scale and self.energy_mode == "error"

    # -- updates (the Panel app calls these; the static page does the same in JavaScript) --
    def apply_scene(self, scene: Scene, lang: str = "en") -> None:
        """New static layout: rows of bodies and links, view ranges (coordinates NaN until
        :meth:`apply_frame`); the bodies' hover texts in ``lang`` (views.i18n ``about.*``)."""
        src = self.scene_sources
        nan = float("nan")
        bodies = dict(scene.bodies)
        if lang != i18n.DEFAULT_LANGUAGE and "about" in bodies:
            bodies["about"] = [
                i18n.text(f"about.{name}", lang) if name in INTEGRATORS else about
                for name, about in zip(bodies["integrator"], bodies["about"])
            ]
        statics = {
            "bodies": bodies,
            "links": scene.links,
            "ghost_bodies": scene.ghost_bodies,
            "ghost_links": {},
        }
        counts = scene.counts()
        for role, cols in FRAME_SCENE:
            src[role].data = {
                **{k: list(v) for k, v in statics[role].items()},
                **{c: [nan] * counts[role] for c in cols},
            }
        fixtures = {k: list(v) for k, v in scene.fixtures.items()}
        # the lanes' labels: each integrator by its name in ``lang``
        fixtures["label"] = [i18n.integrator_name(n, lang) for n in fixtures["integrator"]]
        src["fixtures"].data = fixtures
        src["status"].data = {"x": [], "y": [], "text": [], "color": [], "integrator": []}
        fig = self.scene_fig
        fig.x_range.start, fig.x_range.end = scene.x_range
        fig.y_range.start, fig.y_range.end = scene.y_range

    def apply_frame(self, frame: dict) -> None:
        """Move bodies and links to a :meth:`Scene.frame` result."""
        for role, columns in frame.items():
            source = self.scene_sources[role]
            source.data.update({c: list(v) for c, v in columns.items()})

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
        self.scene_sources["status"].data = {
            "x": [],
            "y": [],
            "text": [],
            "color": [],
            "integrator": [],
        }

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
        rows = [(name, at) for name, at in diverged.items() if name in self.names]
        self.scene_sources["status"].data = {
            "x": [8] * len(rows),
            "y": [8 + 18 * k for k in range(len(rows))],
            "text": [i18n.diverged_text(name, at, lang) for name, at in rows],
            "color": [color_of(name) for name, _ in rows],
            "integrator": [name for name, _ in rows],
        }

    def set_status(self, time: float, real_time_factor: float | None) -> None:
        self.status.text = status_text(time, real_time_factor)

    def set_exact_curve(self, curve: Mapping[str, Sequence[float]] | None) -> None:
        curve = curve or {"q": [], "v": []}
        self.phase_exact.data = {"q": list(curve["q"]), "v": list(curve["v"])}

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


def lane_filter(hidden: Sequence[str] | set[str]) -> Filter:
    """The rows of a scene source whose ``integrator`` is not in ``hidden``."""
    if not hidden:
        return AllIndices()
    return IntersectionFilter(
        operands=[
            InversionFilter(operand=GroupFilter(column_name="integrator", group=name))
            for name in sorted(hidden)
        ]
    )


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

    def layout(self):
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


def build_header(controls: Controls):
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
