"""The energy plot's Bokeh parts that :mod:`integrator_lab.views.energy` decides: its y-range
(a ``Range1d`` the frames set), the axis formats of its modes, and the marks of the methods
clipped at its edge. Both front ends build their energy plot through
:class:`integrator_lab.views.figures.SystemFigures`, through
:func:`integrator_lab.views.energy_plot.build_energy_plot`, which calls :func:`add_energy_view`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bokeh.models import (
    BasicTicker,
    BasicTickFormatter,
    ColumnDataSource,
    CustomJSTickFormatter,
    Quad,
    Range1d,
    Scatter,
    Segment,
    Text,
    TickFormatter,
)
from bokeh.models.annotations import Label
from bokeh.plotting import figure

from integrator_lab.views import i18n
from integrator_lab.views.dashboard_config import Namer
from integrator_lab.views.energy import BAR_COLUMNS, LOG_FLOOR, MARK_COLUMNS, MODES, EnergyView

#: the level of every renderer a frame moves (a scene's bodies, links and energy bars):
#: BokehJS paints a plot's "overlay" level on a canvas layer of its own, and when only
#: renderers of that level changed it repaints that layer alone, the rest (the lanes'
#: fixtures and labels, the scale bar, the marks) kept as painted. On the default level,
#: every frame repainted the whole scene, its texts measured and drawn again.
MOVING: Final = "overlay"

#: the linear view's ticks: the relative error in percent, signed ("+1.5", "−0.5", "0")
PERCENT_TICK_CODE = """
const pct = Number((tick * 100).toPrecision(6));
if (pct === 0) return "0";
return (pct > 0 ? "+" : "\u2212") + String(Math.abs(pct));
"""
#: the log view's ticks: y is log10 of the relative error, shown as a percentage (10^k %)
LOG_TICK_CODE = """
const k = Math.round(tick) + 2;
const digits = "⁻⁰¹²³⁴⁵⁶⁷⁸⁹";
const power = [...String(k)].map((c) => digits["-0123456789".indexOf(c)]).join("");
return k === 0 ? "1" : k === 1 ? "10" : k === 2 ? "100" : "10" + power;
"""
#: y-axis labels of the energy plot, by view mode
AXIS_LABELS = {mode: i18n.text(f"energy.axis.{mode}", "en") for mode in MODES}
#: the clipped marks' source always holds this many rows (the marks, then blank rows): a
#: Text glyph whose colour is a column fails in BokehJS 3.9 when its source changes length
#: while its previous change is still being drawn ("Offset is outside the bounds of the
#: DataView": its labels and colours counted for different lengths), which happens when marks
#: come and go at the frame rate
MARK_ROWS = 16
#: a blank row's values (``None``: NaN in the page; a blank row draws nothing)
MARK_BLANK = {
    "t": None,
    "label_t": None,
    "y": None,
    "name": "",
    "text": "",
    "color": "#555555",
    "marker": "triangle",
    "baseline": "top",
    "offset": 0,
}
#: the clipped marks' source's shape, as the pages' ``static/js/energyview.js`` pads the marks
#: of every frame (the static page has it in its build-time data, the Panel page as an argument
#: of its script: server/flow.py)
MARKS = {"rows": MARK_ROWS, "blank": MARK_BLANK}
#: the page's build-time data of the energy view (web/site/build.py embeds it)
PAGE_DATA = {
    "tickCodes": {"linear": PERCENT_TICK_CODE, "log": LOG_TICK_CODE},
    "axisLabels": AXIS_LABELS,
    "logFloor": LOG_FLOOR,
    "marks": MARKS,
}


def padded_marks(columns: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """The clipped marks' ``columns`` filled up with blank rows to :data:`MARK_ROWS` (more
    marks than that stay as they are), NaN where a blank row has no number.

    For the models Python builds or changes: the source as built (both front ends' documents)
    and a mode changed on the Panel server. The marks of every frame are padded in the page
    instead, by ``static/js/energyview.js`` (paddedMarks), for both front ends: the baked frames
    are JSON (no NaN), every frame would carry the blank rows, and the static page, which
    clips in its own mode, needs blank rows alone after a mode change."""
    rows = len(columns.get("t", ()))
    out: dict[str, list[Any]] = {}
    for c in MARK_COLUMNS:
        blank = MARK_BLANK[c]
        fill = float("nan") if blank is None else blank
        out[c] = list(columns.get(c, ())) + [fill] * max(0, MARK_ROWS - rows)
    return out


def axis_models(mode: str) -> tuple[BasicTicker, TickFormatter]:
    """A fresh (ticker, formatter) pair for the energy plot's y axis in ``mode``."""
    if mode == "log":
        return (
            BasicTicker(min_interval=1.0, desired_num_ticks=6),
            CustomJSTickFormatter(code=LOG_TICK_CODE),
        )
    if mode == "linear":
        return BasicTicker(), CustomJSTickFormatter(code=PERCENT_TICK_CODE)
    return BasicTicker(), BasicTickFormatter()


def energy_range(name: str) -> Range1d:
    """The energy plot's y-range: set by every frame (``frame["energy"]``), so it starts as
    a fresh view says."""
    low, high = EnergyView().view()["linear"]
    return Range1d(name=name, start=low, end=high)


def add_energy_view(fig: figure, n: Namer) -> ColumnDataSource:
    """The clipped methods' marks on energy figure ``fig`` (``n`` names models: ``n("x")`` is
    ``"<system>:x"``): an arrow at the edge and a label in the method's colour saying how far
    it went; returns their source (``energy:clipped``, columns
    :data:`~integrator_lab.views.energy.MARK_COLUMNS`)."""
    source = ColumnDataSource(padded_marks({}), name=n("energy:clipped"))
    fig.add_glyph(
        source,
        Scatter(
            x="t",
            y="y",
            marker={"field": "marker"},
            size=11,
            fill_color="color",
            line_color="white",
        ),
        name=n("energy:clipped-arrows"),
    )
    fig.add_glyph(
        source,
        Text(
            x="label_t",
            y="y",
            text="text",
            text_color="color",
            text_align="right",
            text_baseline={"field": "baseline"},
            x_offset=-10,
            y_offset={"field": "offset"},
            text_font_size="12px",
            text_font_style="bold",
            background_fill_color="white",
            background_fill_alpha=0.8,
        ),
        name=n("energy:clipped-labels"),
    )
    # the zero line is where the exact motion's books stay (its error is 0): said on it
    fig.add_layout(
        Label(
            x=4,
            y=0.0,
            x_units="screen",
            y_offset=2,
            text=i18n.text("energy.exact.zero", "en"),
            text_font_size="10px",
            text_color="#333333",
            background_fill_color="white",
            background_fill_alpha=0.7,
            name=n("energy:exact-label"),
        )
    )
    return source


def add_energy_bars(fig: figure, n: Namer) -> ColumnDataSource:
    """Beside each lane of scene figure ``fig``, a small bar of its integrator's energy
    against the start's (:func:`integrator_lab.views.energy.bars_columns`): a grey track with
    a tick at the start's energy, filled from it rightwards for a gain and leftwards for a
    loss (a log scale of the deviation), ▲ or ▼ and the size printed beside it; returns the
    source (``scene:energy-bars``) every frame sets."""
    source = ColumnDataSource({c: [] for c in BAR_COLUMNS}, name=n("scene:energy-bars"))
    fig.add_glyph(
        source,
        Quad(
            left="x0", right="x1", bottom="y0", top="y1", fill_color="#f2f2f2", line_color="#b0b0b0"
        ),
        level=MOVING,
        name=n("scene:energy-bar-tracks"),
    )
    fig.add_glyph(
        source,
        Quad(
            left="fl",
            right="fr",
            bottom="y0",
            top="y1",
            fill_color="fill",
            fill_alpha=0.75,
            line_color=None,
        ),
        level=MOVING,
        name=n("scene:energy-bar-fills"),
    )
    # the 100 % tick: E = E0
    fig.add_glyph(
        source,
        Segment(x0="xm", y0="y0", x1="xm", y1="y1", line_color="#222222", line_width=2),
        level=MOVING,
        name=n("scene:energy-bar-ticks"),
    )
    # the signed percentage: under the bar at its right end, or after it (views.energy.bar_layout)
    fig.add_glyph(
        source,
        Text(
            x="tx",
            y="ty",
            text="text",
            text_align={"field": "talign"},
            text_baseline={"field": "tbaseline"},
            y_offset=1,
            text_font_size="10px",
            text_font_style="bold",
            text_color="fill",
            background_fill_color="white",
            background_fill_alpha=0.8,
        ),
        level=MOVING,
        name=n("scene:energy-bar-texts"),
    )
    return source


def view_for_mode(view: Mapping[str, Any], mode: str) -> dict[str, Any]:
    """Of an energy view (:meth:`EnergyView.view`), what a plot in ``mode`` shows: its
    y-range and the clipped marks (only the linear view clips)."""
    empty: dict[str, list[Any]] = {c: [] for c in MARK_COLUMNS}
    return {
        "mode": mode,
        "range": list(view[mode]),
        "clipped": view["clipped"] if mode == "linear" else empty,
        "bars": view.get("bars"),
        "followed": view["followed"],
    }
