"""The energy plot of a system's panel: its figure (axes, the zero line, the hover, the legend
that explains the breakdown's line styles), its modes (the signed relative energy error on a
signed-log or a linear axis, or the total/kinetic/potential/dissipated breakdown) and the
styles of its per-integrator lines.

What :mod:`integrator_lab.views.energy` decides of it (the y-range the frames set, each mode's
axis format, the marks of the methods clipped at its edge) is built by
:mod:`integrator_lab.views.energy_figures`; the lines themselves are built on demand by
:class:`~integrator_lab.views.figures.SystemFigures`, which switches the plot between its
modes. The phase plot (:mod:`~integrator_lab.views.phase_figures`) is drawn like this one
(:data:`PLOT_TOOLS`, :func:`finish_plot`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bokeh.models import ColumnDataSource, CustomJSHover, DataRange1d, HoverTool, Line
from bokeh.models.annotations import Legend, LegendItem, Span
from bokeh.models.renderers import GlyphRenderer
from bokeh.plotting import figure

from integrator_lab.views import energy_figures
from integrator_lab.views.dashboard_config import Namer
from integrator_lab.views.scene import ERROR_FLOOR_EXPONENT
from integrator_lab.views.scene_figures import SCENE_WIDTH

#: what the energy plot shows: the energy error, or the energy breakdown
ENERGY_MODES = ("error", "breakdown")
ENERGY_HEIGHT = 230
#: px the energy plot grows by in breakdown mode, for the legend of its line styles (below
#: the plot, inside its height), so that the plot itself keeps its size
BREAKDOWN_EXTRA_HEIGHT = 56
#: the tools of the energy and the phase plot
PLOT_TOOLS = "pan,wheel_zoom,box_zoom,reset,save"

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

#: glyph properties of every per-integrator line of the energy plot, by kind ("error" and
#: the breakdown parts); the colour is the integrator's. The error line's ``y`` is
#: :data:`ERROR_COLUMNS`' linear column; on the signed-log axis it is switched to the
#: signed-log one. In the breakdown, the total (what the error plot measures) is a bold line
#: and its parts are thin and faint, so that an integrator's total stays readable over the
#: parts of the others.
ENERGY_LINE_STYLES: dict[str, dict[str, Any]] = {
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
#: the energy plot's axes, each a (ticker, formatter) pair it switches to
AXIS_MODES = ("log", "linear", "breakdown")


@dataclass
class EnergyPlot:
    """One panel's energy plot: the figure, the source of the clipped methods' marks
    (:func:`energy_figures.add_energy_view`), the legend of the breakdown's line styles
    (empty until :func:`breakdown_style_items` fills it), and the y axis's
    ``(ticker, formatter)`` of each of :data:`AXIS_MODES`."""

    fig: figure
    clipped: ColumnDataSource
    legend: Legend
    axes: dict[str, tuple[Any, Any]]


def finish_plot(fig: figure) -> None:
    """What the energy and the phase plot share: no logo, room for the y axis's labels, and
    every point drawn while the plot is panned or zoomed (no level of detail)."""
    fig.toolbar.logo = None
    fig.min_border_left = 60
    # BokehJS draws a plot with more points than `lod_threshold` (2,000) from every tenth
    # while it is panned, from a copy of each line it keeps for that; a line holds up to
    # ROLLOVER (3,000) points, which a canvas draws in a frame, and the copy would take a
    # line's new data at every frame (static/js/bokehpaint.js feeds a glyph alone otherwise)
    fig.lod_threshold = None


def energy_figure(n: Namer) -> figure:
    """The figure, its guides named (``energy:xaxis``, ``energy:yaxis``, ``energy:ygrid``)."""
    fig = figure(
        name=n("energy"),
        height=ENERGY_HEIGHT,
        width=SCENE_WIDTH,
        sizing_mode="stretch_width",
        tools=PLOT_TOOLS,
        toolbar_location="right",
        x_axis_label="t (s)",
        x_range=DataRange1d(range_padding=0.0, only_visible=True, name=n("energy:x")),
        y_range=energy_figures.energy_range(n("energy:y")),
    )
    fig.yaxis[0].name = n("energy:yaxis")
    # its label says how to read the lines ("max |ΔE/E₀| (%), dashed: loss"): at Bokeh's
    # 13 px it was longer than a first-screen plot is tall, and cut
    fig.yaxis[0].axis_label_text_font_size = "11px"
    fig.xaxis[0].name = n("energy:xaxis")
    fig.ygrid[0].name = n("energy:ygrid")
    return fig


def zero_line(n: Namer) -> Span:
    """No error: the line a gain rises from and a loss sinks from."""
    return Span(
        location=0.0,
        dimension="width",
        line_color="#333333",
        line_width=1.2,
        name=n("energy:zero"),
    )


def style_legend(n: Namer) -> Legend:
    """The plot's legend, which only explains the breakdown's line styles.

    One legend for the whole page, outside the figures (the static page's HTML chips, the
    Panel dashboard's toggle buttons): a legend in each energy plot took its data area, more
    with every integrator."""
    return Legend(
        items=[],
        location="top_left",
        orientation="horizontal",
        click_policy="none",
        label_text_font_size="11px",
        spacing=8,
        padding=2,  # type: ignore[arg-type]  # (Bokeh's hint: a Property, not its value)
        margin=2,
        glyph_width=18,
        glyph_height=12,
        label_height=12,
        background_fill_alpha=0.0,
        border_line_alpha=0.0,
        name=n("energy:legend"),
    )


def sample_hover(n: Namer) -> HoverTool:
    """A sample's time, energy error (signed, said as a gain or a loss) and breakdown."""
    return HoverTool(
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


def build_energy_plot(n: Namer) -> EnergyPlot:
    """The energy plot of the panel whose models ``n`` names, without lines."""
    fig = energy_figure(n)
    axes = {mode: energy_figures.axis_models(mode) for mode in AXIS_MODES}
    clipped = energy_figures.add_energy_view(fig, n)
    fig.add_layout(zero_line(n))
    finish_plot(fig)
    legend = style_legend(n)
    fig.add_layout(legend, "below")
    fig.add_tools(sample_hover(n))
    return EnergyPlot(fig=fig, clipped=clipped, legend=legend, axes=axes)


def breakdown_style_items(fig: figure, n: Namer) -> list[LegendItem]:
    """Legend entries explaining the breakdown's line styles (:data:`BREAKDOWN_KINDS`), each
    with a grey swatch: a line of that style on ``fig``, of no visible point."""
    nan = float("nan")
    empty = ColumnDataSource({"t": [nan], "y": [nan]}, name=n("energy:style-source"))
    items = []
    for kind in BREAKDOWN_KINDS:
        swatch: GlyphRenderer[Any] = fig.add_glyph(
            empty,
            Line(
                x="t",
                y="y",
                line_color="#666666",
                line_width=ENERGY_LINE_STYLES[kind]["line_width"],
                line_dash=ENERGY_LINE_STYLES[kind]["line_dash"],
            ),
        )
        items.append(
            LegendItem(
                label=BREAKDOWN_LABELS[kind],
                renderers=[swatch],
                name=n(f"legend-style:{kind}"),
            )
        )
    return items
