"""The geometry view of the Panel dashboard: per system, the stability regions of the
selected integrators with the system's points ``dt lambda`` (moving as the dt slider moves,
grey outside a region), and each integrator's ring of states in the phase plane with its area
ratio, advancing with the live run (:mod:`integrator_lab.views.geometry`).

Like the study view it starts as one button under the system's panel: the figures are made
when it is opened, so a page that never opens it pays nothing.
"""

from __future__ import annotations

import html
import time

import panel as pn

from integrator_lab.views import i18n
from integrator_lab.views.geometry import GeometryFollower, text
from integrator_lab.views.geometry_figures import GeometryFigures

#: seconds between two redraws of the figures (the rings advance every tick regardless)
REDRAW_PERIOD = 0.1


class GeometryView:
    """One system's geometry view. ``get_run()`` gives the live
    :class:`~integrator_lab.views.system_run.SystemRun` (or None); :meth:`advance` follows it."""

    def __init__(self, system: str, get_run, lang: str = i18n.DEFAULT_LANGUAGE) -> None:
        self.system = system
        self.lang = lang
        self._get_run = get_run
        self.follower = GeometryFollower(system)
        self.figures: GeometryFigures | None = None
        self.card: pn.Card | None = None
        self._next_redraw = 0.0
        css = f"il-{system}-geometry"
        self.open_button = pn.widgets.Button(
            label=text("open", lang),
            color="light",
            css_classes=[f"{css}-open"],
            description=text("open.tip", lang),
        )
        self.open_button.on_click(lambda _: self.open())
        self.layout = pn.Column(self.open_button, sizing_mode="stretch_width")

    def open(self) -> None:
        if self.card is not None:
            return
        css = f"il-{self.system}-geometry"
        self.figures = GeometryFigures(self.lang)
        self.verdicts = pn.pane.HTML(
            "", css_classes=[f"{css}-verdicts"], sizing_mode="stretch_width"
        )
        self.alert = pn.pane.Alert("", alert_type="danger", visible=False)
        figures = self.figures.figures
        self.card = pn.Card(
            pn.pane.Markdown(text("intro", self.lang), sizing_mode="stretch_width"),
            self.alert,
            self.verdicts,
            pn.FlexBox(
                pn.pane.Bokeh(figures["region"]),
                pn.Column(pn.pane.Bokeh(figures["phase"]), pn.pane.Bokeh(figures["area"])),
                gap="6px",
            ),
            title=text("open", self.lang),
            sizing_mode="stretch_width",
            css_classes=[css],
        )
        # drawn before the card is shown: the models go to the page with their data. Set
        # after, within this callback, the regions' data (set once) never reached the page
        self.advance(force=True)
        self.layout.objects = [self.card]

    def advance(self, force: bool = False) -> None:
        """Follow the live run (:class:`~integrator_lab.views.geometry.GeometryFollower`);
        redraw now and then."""
        if self.card is None:
            return
        changed = self.follower.follow(self._get_run())
        if changed["regions"]:
            if self.follower.error is not None:
                self.alert.object = html.escape(i18n.core_error(self.follower.error, self.lang))
                self.alert.visible = True
                return
            self.alert.visible = False
            self.figures.show_regions(self.follower.session)
            force = True
        session = self.follower.session
        if session is None:
            return
        now = time.perf_counter()
        if not force and now < self._next_redraw:
            return
        self._next_redraw = now + REDRAW_PERIOD
        self.figures.update(session, points=changed["points"])
        if changed["points"]:
            self.follower.shown()
            self.verdicts.object = html.escape(session.verdict_text(self.lang))
