"""The animation of a system's panel: the scene figure and its sources.

One lane per integrator (:class:`integrator_lab.views.scene.Scene` lays them out): its
fixtures (pivots or wall) and label, its bodies and links in the integrator's colour, the
exact solution's ghost, a diverged integrator's bodies greyed where it stopped with its
"diverged at" text over its label, arrows at the edge for bodies beyond their lane, each
lane's energy bar (:func:`integrator_lab.views.energy_figures.add_energy_bars`) and a scale
bar. Also what fills those sources with the initial state at build time (the page's
JavaScript updates them from there): a scene's static rows (:func:`show_scene`), a frame
(:func:`show_frame`), and the filter that hides the lanes of integrators toggled off
(:func:`lane_filter`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from bokeh.models import (
    AllIndices,
    Circle,
    ColumnDataSource,
    CustomJS,
    Filter,
    GroupFilter,
    HoverTool,
    IntersectionFilter,
    InversionFilter,
    Range1d,
    Rect,
    Scatter,
    Segment,
    Text,
)
from bokeh.models.annotations import LabelSet, ScaleBar
from bokeh.models.annotations.dimensional import MetricLength
from bokeh.models.renderers import GlyphRenderer
from bokeh.plotting import figure

from integrator_lab.core import INTEGRATORS
from integrator_lab.views import energy_figures, i18n
from integrator_lab.views.dashboard_config import Namer
from integrator_lab.views.energy_figures import MOVING
from integrator_lab.views.scene import GHOST_COLOR, SCENE_ASPECT, Scene
from integrator_lab.views.shared import FRAME_SCENE

SCENE_WIDTH = 480  # px; figures scale to the width they get, these set proportions
#: the scene's sources (``scene:<role>``): the rows of bodies and links, the exact ghost's,
#: the lanes' fixtures and labels, the "diverged at" texts
SCENE_ROLES = ("bodies", "links", "ghost_bodies", "ghost_links", "fixtures", "status")
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


@dataclass
class SceneFigure:
    """One panel's animation: the figure, its sources by :data:`SCENE_ROLES`, the exact
    ghost's renderers (shown with the exact solution), the renderers with a row per
    integrator's body or link (filtered by :func:`lane_filter`) and the energy bars'
    source."""

    fig: figure
    sources: dict[str, ColumnDataSource]
    ghost_renderers: list[GlyphRenderer[Any]]
    lane_renderers: list[GlyphRenderer[Any]]
    energy_bars: ColumnDataSource


def scene_canvas(n: Namer, scene: Scene) -> figure:
    """The bare figure: no axes, grid or tools, in the scene's ranges and aspect."""
    fig = figure(
        name=n("scene"),
        x_range=Range1d(start=scene.x_range[0], end=scene.x_range[1], name=n("scene:x_range")),
        y_range=Range1d(start=scene.y_range[0], end=scene.y_range[1], name=n("scene:y_range")),
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
    return fig


def scale_bar(n: Namer) -> ScaleBar:
    """The view fits the motion: a scale bar says how big it is (a 0.17 m swing and a 3 m
    one would look alike), its length a round number of metres that follows the range."""
    return ScaleBar(
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


def add_fixtures(fig: figure, fixtures: ColumnDataSource, n: Namer) -> None:
    """Each lane's pivots or wall, and its integrator, in its colour, at the lane's top
    left."""
    fig.add_glyph(
        fixtures,
        Segment(x0="x0", y0="y0", x1="x1", y1="y1", line_color="#555555", line_width=4),
        name=n("scene:fixtures-renderer"),
    )
    fig.add_glyph(
        fixtures,
        Text(
            x="lx",
            y="ly",
            text="label",
            text_color="color",
            text_font_size="11px",
            text_font_style="bold",
            text_baseline="middle",
        ),
        name=n("scene:lane-labels"),
    )


def body_glyph(
    fig: figure,
    source: ColumnDataSource,
    shape: str,
    *,
    ghost: bool,
    rname: str,
    diverged: bool = False,
) -> GlyphRenderer[Any]:
    """The bodies of ``source`` as rectangles or circles (``shape``): an integrator's in its
    colour, the exact ghost's dashed, a diverged integrator's greyed where it stopped."""
    style: dict[str, Any]
    if ghost:
        style = dict(fill_alpha=0.0, line_color=GHOST_COLOR, line_width=2, line_dash="dashed")
    elif diverged:
        style = dict(fill_color=DIVERGED_COLOR, fill_alpha=0.8, line_color="color", line_width=2)
    else:
        style = dict(fill_color="color", fill_alpha=0.55, line_color="color", line_width=1.5)
    x, y = ("fx", "fy") if diverged else ("x", "y")
    glyph = (
        Rect(x=x, y=y, width="w", height="h", **style)
        if shape == "rect"
        else Circle(x=x, y=y, radius="r", **style)
    )
    return fig.add_glyph(source, glyph, name=rname, level=MOVING)


def add_ghost(
    fig: figure, src: Mapping[str, ColumnDataSource], shape: str, n: Namer
) -> list[GlyphRenderer[Any]]:
    """The exact solution's links and bodies, dashed; returns their renderers."""
    return [
        fig.add_glyph(
            src["ghost_links"],
            Segment(
                x0="x0",
                y0="y0",
                x1="x1",
                y1="y1",
                line_color=GHOST_COLOR,
                line_width=2,
                line_dash="dashed",
                line_alpha=0.7,
            ),
            level=MOVING,
            name=n("scene:ghost-links-renderer"),
        ),
        body_glyph(
            fig,
            src["ghost_bodies"],
            shape,
            ghost=True,
            rname=n("scene:ghost-bodies-renderer"),
        ),
    ]


def add_lanes(
    fig: figure, src: Mapping[str, ColumnDataSource], shape: str, n: Namer
) -> list[GlyphRenderer[Any]]:
    """The integrators' links and bodies (a hover on a body says what its integrator is),
    greyed once diverged, and the arrows of bodies pinned at their lane's edge; returns the
    renderers: links, bodies, diverged links, diverged bodies, arrows."""
    # a diverged integrator's bodies stay where it stopped, greyed, outlined in its colour
    diverged_links = fig.add_glyph(
        src["links"],
        Segment(x0="fx0", y0="fy0", x1="fx1", y1="fy1", line_color=DIVERGED_COLOR, line_width=2),
        level=MOVING,
        name=n("scene:diverged-links-renderer"),
    )
    diverged_bodies = body_glyph(
        fig,
        src["bodies"],
        shape,
        ghost=False,
        diverged=True,
        rname=n("scene:diverged-bodies-renderer"),
    )
    links = fig.add_glyph(
        src["links"],
        Segment(
            x0="x0", y0="y0", x1="x1", y1="y1", line_color="color", line_width=2, line_alpha=0.8
        ),
        level=MOVING,
        name=n("scene:links-renderer"),
    )
    bodies = body_glyph(fig, src["bodies"], shape, ghost=False, rname=n("scene:bodies-renderer"))
    # a body beyond its lane is pinned at the edge, with an arrow pointing the way it went
    arrows = fig.add_glyph(
        src["bodies"],
        Scatter(
            x="ax",
            y="ay",
            marker="triangle",
            angle="angle",
            size=14,
            fill_color="color",
            line_color="white",
            line_width=1.5,
        ),
        level=MOVING,
        name=n("scene:edge-arrows-renderer"),
    )
    fig.add_tools(HoverTool(renderers=[bodies], tooltips=[("", "@about")]))
    return [links, bodies, diverged_links, diverged_bodies, arrows]


def add_diverged_marks(fig: figure, src: Mapping[str, ColumnDataSource], n: Namer) -> None:
    """The "diverged at t = ..." texts (the status source, filled by the page or the server),
    shown over the diverged integrator's lane label, next to its bodies (:data:`MARKS_JS`)."""
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
            level=MOVING,  # over the bodies (which moved to that level), painted after them
            background_fill_color="white",
            background_fill_alpha=0.85,
        )
    )


def add_status_labels(fig: figure, status: ColumnDataSource, n: Namer) -> None:
    """The texts as the page and the server set them (in the corner, in screen units):
    hidden, the diverged marks show them; the renderer keeps the source in the document."""
    fig.add_layout(
        LabelSet(
            x="x",
            y="y",
            x_units="screen",
            y_units="screen",
            text="text",
            source=status,
            name=n("scene:status-labels"),
            visible=False,
        )
    )


def build_scene_figure(n: Namer, scene: Scene) -> SceneFigure:
    """The animation of the panel whose models ``n`` names, laid out for ``scene``'s shape
    and ranges; its sources empty (:func:`show_scene` and :func:`show_frame` fill them)."""
    src = {role: ColumnDataSource(name=n(f"scene:{role}")) for role in SCENE_ROLES}
    fig = scene_canvas(n, scene)
    fig.add_layout(scale_bar(n))
    add_fixtures(fig, src["fixtures"], n)
    ghost_renderers = add_ghost(fig, src, scene.shape, n)
    lane_renderers = add_lanes(fig, src, scene.shape, n)
    #: each lane's energy bar, E/E0 (views.energy_figures.add_energy_bars)
    energy_bars = energy_figures.add_energy_bars(fig, n)
    add_diverged_marks(fig, src, n)
    add_status_labels(fig, src["status"], n)
    return SceneFigure(
        fig=fig,
        sources=src,
        ghost_renderers=ghost_renderers,
        lane_renderers=lane_renderers,
        energy_bars=energy_bars,
    )


# -- setting the sources ---------------------------------------------------------------------
def empty_status() -> dict[str, list[Any]]:
    """The status source's columns with no integrator diverged."""
    return {"x": [], "y": [], "text": [], "color": [], "integrator": []}


def show_scene(
    fig: figure, src: Mapping[str, ColumnDataSource], scene: Scene, lang: str = "en"
) -> None:
    """Set ``scene``'s static layout on the scene figure ``fig`` and its sources ``src``:
    rows of bodies and links (coordinates NaN until :func:`show_frame`), the lanes' labels
    and the bodies' hover texts in ``lang`` (views.i18n), no status, the view ranges."""
    nan = float("nan")
    bodies = dict(scene.bodies)
    if lang != i18n.DEFAULT_LANGUAGE and "about" in bodies:
        bodies["about"] = [
            i18n.text(f"about.{name}", lang) if name in INTEGRATORS else about
            for name, about in zip(bodies["integrator"], bodies["about"])
        ]
    statics: dict[str, Mapping[str, Sequence[Any]]] = {
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
    src["status"].data = empty_status()
    x_range, y_range = cast(Range1d, fig.x_range), cast(Range1d, fig.y_range)
    x_range.start, x_range.end = scene.x_range
    y_range.start, y_range.end = scene.y_range


def show_frame(src: Mapping[str, ColumnDataSource], frame: Mapping[str, Any]) -> None:
    """Move bodies and links to a :meth:`Scene.frame` result."""
    for role, columns in frame.items():
        source = src[role]
        source.data.update({c: list(v) for c, v in columns.items()})


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
