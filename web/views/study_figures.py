"""Bokeh models of the study view (both diagrams of one system), built once for the page's
data.

``StudyFigures(system)`` holds two log–log figures, ``convergence`` (error at T against dt)
and ``work`` (error against force evaluations: a work–precision diagram), drawing the same
sources: fitted points (filled circles), excluded points (crosses; the hover says why),
one line per integrator labelled with its fitted slope at its finest point, and dashed grey
reference slopes 1, 2 and 4. The page's JavaScript fills them with the columns of
:func:`integrator_lab.views.study.diagram_columns` its engine sends. Every model has a stable
name ``"<system>:study-<role>"``.
"""

from __future__ import annotations

from typing import Any

from bokeh.models import ColumnDataSource, HoverTool
from bokeh.plotting import figure

from integrator_lab.views import i18n
from integrator_lab.views.scene import GHOST_COLOR

#: the sources of one system's diagrams, by role (the keys of ``diagram_columns``)
SOURCE_COLUMNS = {
    "points": ("integrator", "dt", "evaluations", "y", "value", "reason", "color"),
    "excluded": ("integrator", "dt", "evaluations", "y", "value", "reason", "color"),
    "lines": ("integrator", "dt", "evaluations", "y", "color", "label"),
    "refs": (
        "dt",
        "evaluations",
        "y",
        "y_cost",
        "text",
        "label_dt",
        "label_ev",
        "label_y",
        "label_y_cost",
    ),
}
DIAGRAM_HEIGHT = 300
#: the x axis of each diagram: (role, column); its label is the catalog's study.axis.COLUMN
DIAGRAMS = (("convergence", "dt"), ("work", "evaluations"))


def study_name(system: str, role: str) -> str:
    return f"{system}:study-{role}"


class StudyFigures:
    """The two diagrams of ``system``'s study and their sources."""

    def __init__(self, system: str, measure: str = "error", lang: str = "en") -> None:
        self.system = system
        self.lang = lang
        self.sources = {
            role: ColumnDataSource(
                data={c: [] for c in cols}, name=study_name(system, f"source-{role}")
            )
            for role, cols in SOURCE_COLUMNS.items()
        }
        self.figures: dict[str, figure] = {}
        for role, x in DIAGRAMS:
            self.figures[role] = self._diagram(role, x, measure)

    def _text(self, key: str, **values: Any) -> str:
        return i18n.text(key, self.lang, **values)

    def _diagram(self, role: str, x: str, measure: str) -> figure:
        fig = figure(
            name=study_name(self.system, role),
            title=self._text(f"study.title.{role}"),
            x_axis_type="log",
            y_axis_type="log",
            height=DIAGRAM_HEIGHT,
            sizing_mode="stretch_width",
            min_width=260,
            tools="pan,wheel_zoom,box_zoom,reset,save",
            toolbar_location="above",
            x_axis_label=self._text(f"study.axis.{x}"),
            y_axis_label=self._text(f"study.measure.{measure}"),
        )
        fig.toolbar.logo = None
        s = self.sources
        refs = fig.multi_line(
            xs=x,
            ys="y" if role == "convergence" else "y_cost",
            source=s["refs"],
            line_color=GHOST_COLOR,
            line_dash="dashed",
            line_width=1.2,
            name=study_name(self.system, f"{role}-refs"),
        )
        fig.text(
            x="label_dt" if role == "convergence" else "label_ev",
            y="label_y" if role == "convergence" else "label_y_cost",
            text="text",
            source=s["refs"],
            text_color=GHOST_COLOR,
            text_font_size="10px",
            text_baseline="bottom",
        )
        fig.multi_line(
            xs=x,
            ys="y",
            source=s["lines"],
            line_color="color",
            line_width=1.5,
            line_alpha=0.8,
            legend_field="label",
        )
        # errors fall towards small dt (lower left) and towards high cost (lower right)
        fig.legend.location = "bottom_right" if role == "convergence" else "bottom_left"
        fig.legend.label_text_font_size = "10px"
        fig.legend.spacing = 0
        # (ignored: Bokeh's hint for padding is a Property, not its value)
        fig.legend.padding = 4  # type: ignore[assignment]
        fig.legend.background_fill_alpha = 0.8
        fitted = fig.scatter(
            x=x,
            y="y",
            source=s["points"],
            color="color",
            size=7,
            name=study_name(self.system, f"{role}-points"),
        )
        excluded = fig.scatter(
            x=x,
            y="y",
            source=s["excluded"],
            marker="x",
            line_color="color",
            size=10,
            line_width=2,
            name=study_name(self.system, f"{role}-excluded"),
        )
        fig.add_tools(
            HoverTool(
                renderers=[fitted, excluded],
                tooltips=[
                    (self._text("study.hover.integrator"), "@integrator"),
                    ("dt", "@dt{0.000e} s"),
                    (self._text("study.hover.evaluations"), "@evaluations"),
                    (self._text("study.hover.error"), "@value"),
                    ("", "@reason"),
                ],
            )
        )
        del refs
        return fig

    def roots(self) -> dict[str, Any]:
        return dict(self.figures)
