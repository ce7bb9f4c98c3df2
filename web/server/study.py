"""The study view of the Panel dashboard: per system, a convergence and work–precision study
(:mod:`integrator_lab.views.study`) run in slices by the session's periodic callback beside the
live simulation, drawn into the same Bokeh diagrams as the static page's
(:mod:`integrator_lab.views.study_figures`), with a progress bar, the fitted slopes, CSV (the
CLI's columns) and PNG (the diagrams' own save tool).
"""

from __future__ import annotations

import html
import io

import panel as pn

from integrator_lab.core.study import POINTS_RANGE
from integrator_lab.views import i18n
from integrator_lab.views.shared import DT_RANGE
from integrator_lab.views.study import (
    DURATION_RANGE,
    ERROR_MEASURES,
    StudySession,
    default_settings,
)
from integrator_lab.views.study_figures import StudyFigures

#: seconds of study per periodic callback, after the live view's share: the animation stays
#: smooth, and a default study still finishes in seconds
STUDY_SLICE_S = 0.01


class StudyView:
    """One system's study: settings widgets, Run/Stop, progress, diagrams and downloads.

    ``start(params, integrators)`` begins a study (a refused setting is shown, naming it);
    ``advance()`` runs a slice and redraws when points finished; ``layout`` is the Panel
    object under the system's panel (a button that opens the study's card).
    """

    def __init__(self, system: str, get_run, lang: str = i18n.DEFAULT_LANGUAGE) -> None:
        self.system = system
        self.lang = lang  # the dashboard's: texts from the catalog (views.i18n)
        self._get_run = get_run  # () -> (params, integrators) of the live run
        self.session: StudySession | None = None
        self.last: dict | None = None  # the last update shown
        self.error: str | None = None
        self.figures: StudyFigures | None = None  # made with the first study (see _show_diagrams)
        self.card: pn.Card | None = None  # made when opened (see _build)
        css = f"il-{system}-study"
        # a session starts with one button: the study's widgets are made when it is opened,
        # since every model made here holds the server's one thread at each page load
        self.open_button = pn.widgets.Button(
            label=self._text("study.open"),
            color="light",
            css_classes=[f"{css}-open"],
            description=self._text("study.open.tip"),
        )
        self.open_button.on_click(lambda _: self._build())
        self.layout = pn.Column(self.open_button, sizing_mode="stretch_width")

    def _build(self) -> None:
        if self.card is not None:
            return
        system = self.system
        d = default_settings(system)
        lo, hi = POINTS_RANGE
        css = f"il-{system}-study"
        self.duration = pn.widgets.FloatInput(
            label=self._text("study.duration"),
            value=d["duration"],
            start=DURATION_RANGE[0],
            end=DURATION_RANGE[1],
            width=100,
        )
        self.dt_max = pn.widgets.FloatInput(
            label=self._text("study.dt_max"),
            value=d["dt_max"],
            start=DT_RANGE[0],
            end=DT_RANGE[1],
            width=100,
            placeholder="auto",
        )
        self.dt_min = pn.widgets.FloatInput(
            label=self._text("study.dt_min"),
            value=d["dt_min"],
            start=DT_RANGE[0],
            end=DT_RANGE[1],
            width=100,
            placeholder="auto",
        )
        self.points = pn.widgets.IntInput(
            label=self._text("study.points"), value=d["points"], start=lo, end=hi, width=80
        )
        self.measure = pn.widgets.Select(
            label=self._text("study.error"),
            options={self._text(f"study.measure.{m}"): m for m in ERROR_MEASURES},
            value="error",
            width=190,
            css_classes=[f"{css}-measure"],
        )
        self.run_button = pn.widgets.Button(
            label=self._text("study.run"), color="primary", width=100, css_classes=[f"{css}-run"]
        )
        self.stop_button = pn.widgets.Button(label=self._text("study.stop"), width=70)
        self.run_button.on_click(lambda _: self.start())
        self.stop_button.on_click(lambda _: self.stop())
        self.progress = pn.indicators.Progress(
            value=0, max=1000, sizing_mode="stretch_width", height=12, bar_color="primary"
        )
        self.status = pn.pane.HTML("", css_classes=[f"{css}-status"], sizing_mode="stretch_width")
        self.alert = pn.pane.Alert("", alert_type="danger", visible=False)
        self.figures: StudyFigures | None = None  # made with the first study (see _show_diagrams)
        self.download = pn.widgets.FileDownload(
            callback=self.csv,
            filename=f"{system}-study.csv",
            label=self._text("control.download_csv"),
            color="light",
            width=140,
            disabled=True,
            css_classes=[f"{css}-download"],
            description=self._text("study.csv.tip"),
        )
        self.card = pn.Card(
            pn.pane.Markdown(self._text("study.intro"), sizing_mode="stretch_width"),
            pn.FlexBox(
                self.duration,
                self.dt_max,
                self.dt_min,
                self.points,
                self.measure,
                self.run_button,
                self.stop_button,
                align_items="flex-end",
                gap="6px",
            ),
            self.progress,
            self.status,
            self.alert,
            title=self._text("study.open"),
            sizing_mode="stretch_width",
            css_classes=[css],
        )
        self.layout.objects = [self.card]

    def _show_diagrams(self, measure: str) -> None:
        # the diagrams are made with the first study, not before: building six figures per
        # session would hold the server's one thread at every page load, and a page that
        # never studies would get figures to lay out for nothing
        if self.figures is not None:
            self.figures.set_measure(measure)
            return
        self.figures = StudyFigures(self.system, lang=self.lang)
        # labelled before they are shown: a change made to new models within the callback
        # that shows them can be lost on the way to the page (as the geometry view's were)
        self.figures.set_measure(measure)
        self.card.extend(
            [
                pn.pane.Bokeh(self.figures.figures["convergence"], sizing_mode="stretch_width"),
                pn.pane.Bokeh(self.figures.figures["work"], sizing_mode="stretch_width"),
                self.download,
            ]
        )

    @property
    def running(self) -> bool:
        return self.session is not None and not self.session.done

    def settings(self) -> dict:
        return {
            "duration": self.duration.value,
            "dt_max": self.dt_max.value,
            "dt_min": self.dt_min.value,
            "points": self.points.value,
            "error": self.measure.value,
        }

    def start(self) -> None:
        self._build()
        params, integrators = self._get_run()
        self.session = None
        self.last = None
        if self.figures is not None:
            self.figures.clear()
        self.download.disabled = True
        try:
            self.session = StudySession(self.system, params, integrators, self.settings())
        except ValueError as exc:
            error = i18n.core_error(exc, self.lang)
            self._show_error(self._text("study.of", system=self._title(), error=error))
            return
        self._show_error(None)
        self._show_diagrams(self.session.measure)
        self.progress.value = 0
        self._say(self._text("study.starting"))

    def stop(self) -> None:
        if self.running:
            done = self.last["points"] if self.last else 0
            total = len(self.session.study.points())
            self._say(self._text("study.stopped", points=done, total=total))
        self.session = None

    def advance(self, budget: float = STUDY_SLICE_S) -> None:
        """A slice of the running study; the diagrams redraw when points finished."""
        if not self.running:
            return
        try:
            finished = self.session.advance(budget)
        except Exception as exc:  # a failing study stops alone and says why
            self.session = None
            error = f"{type(exc).__name__}: {exc}"
            self._show_error(self._text("study.of.stopped", system=self._title(), error=error))
            return
        self.progress.value = int(1000 * self.session.study.progress)
        if not finished and not self.session.done:
            return
        update = self.session.update()
        self.last = update
        self.figures.apply(update["columns"])
        slopes = ", ".join(
            f"{name} {'–' if s is None else f'{s:.2f}'}" for name, s in update["slopes"].items()
        )
        if update["done"]:
            self.progress.value = 1000
            self.download.disabled = False
            seconds = f"{update['seconds']:.1f}"
            self._say(
                self._text("study.done", points=update["points"], seconds=seconds, slopes=slopes)
            )
        else:
            self.status.object = self._text(
                "study.running", points=update["points"], total=update["total"], slopes=slopes
            )

    def _text(self, key: str, **values) -> str:
        return i18n.text(key, self.lang, **values)

    def _title(self) -> str:
        return self._text(f"system.{self.system}")

    def csv(self) -> io.StringIO:
        """The finished study in the CLI's CSV columns (empty until it is done)."""
        return io.StringIO(self.last.get("csv", "") if self.last else "")

    def _say(self, text: str) -> None:
        # integrator names may be users' own: text, never markup
        self.status.object = f"<p>{html.escape(text)}</p>"

    def _show_error(self, text: str | None) -> None:
        self.error = text
        self.alert.object = html.escape(text or "")
        self.alert.visible = bool(text)
