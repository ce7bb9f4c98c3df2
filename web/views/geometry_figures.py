"""The geometry view's Bokeh figures (:mod:`integrator_lab.views.geometry`): the stability
regions with the system's points, the rings in the phase plane, and the area ratios over
time. The Panel dashboard shows them; :meth:`GeometryFigures.update` takes a
:class:`~integrator_lab.views.geometry.GeometrySession`'s columns."""

from __future__ import annotations

from bokeh.models import ColumnDataSource, Range1d
from bokeh.models.annotations import Span
from bokeh.plotting import figure

from integrator_lab.views.geometry import WINDOW, GeometrySession, color_of, text


class GeometryFigures:
    def __init__(self, lang: str = "en", width: int = 340, height: int = 320) -> None:
        x0, x1, y0, y1 = WINDOW
        self.regions = ColumnDataSource({"xs": [], "ys": [], "color": [], "name": []})
        self.points = ColumnDataSource({"x": [], "y": [], "color": [], "size": [], "name": []})
        self.rings = ColumnDataSource({"xs": [], "ys": [], "color": [], "name": []})
        self.areas = ColumnDataSource({"xs": [], "ys": [], "color": [], "name": []})
        region = figure(
            title=text("region.title", lang),
            x_range=Range1d(start=x0, end=x1),
            y_range=Range1d(start=y0, end=y1),
            width=width,
            height=height,
            match_aspect=True,
            tools="",
            toolbar_location=None,
            x_axis_label=text("region.x", lang),
            y_axis_label=text("region.y", lang),
            name="geometry-region",
        )
        for dimension in ("width", "height"):
            region.add_layout(Span(location=0, dimension=dimension, line_color="#888"))
        region.multi_line(
            "xs", "ys", source=self.regions, line_color="color", line_width=2, legend_field="name"
        )
        region.scatter(
            "x",
            "y",
            source=self.points,
            size="size",
            fill_color=None,
            line_color="color",
            line_width=2.5,
        )
        region.legend.location = "top_left"
        region.legend.label_text_font_size = "10px"
        phase = figure(
            title=text("phase.title", lang),
            # (framed by GeometrySession.ring_window, as the page frames them: a runaway ring
            # would otherwise shrink the others to dots)
            x_range=Range1d(start=-1.0, end=1.0),
            y_range=Range1d(start=-1.0, end=1.0),
            width=width,
            height=height,
            tools="",
            toolbar_location=None,
            name="geometry-phase",
        )
        phase.multi_line("xs", "ys", source=self.rings, line_color="color", line_width=2)
        area = figure(
            title=text("area.title", lang),
            width=width,
            height=180,
            y_axis_type="log",
            tools="",
            toolbar_location=None,
            x_axis_label=text("time", lang),
            name="geometry-area",
        )
        area.multi_line("xs", "ys", source=self.areas, line_color="color", line_width=2)
        self.figures = {"region": region, "phase": phase, "area": area}

    def show_regions(self, session: GeometrySession) -> None:
        names = list(session.regions)
        self.regions.data = {
            "xs": [session.regions[n][0] for n in names],
            "ys": [session.regions[n][1] for n in names],
            "color": [color_of(n) for n in names],
            "name": names,
        }

    def update(self, session: GeometrySession, points: bool = True) -> None:
        if points:
            self.points.data = session.point_columns()
        self.rings.data = session.ring_columns()
        window = session.ring_window()
        if window is not None:
            phase = self.figures["phase"]
            phase.x_range.update(start=window[0], end=window[1])
            phase.y_range.update(start=window[2], end=window[3])
        self.areas.data = session.area_columns()
