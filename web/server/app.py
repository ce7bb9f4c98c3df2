"""The dashboard served from Python: Panel on a Bokeh server, the core running in CPython.

Each browser session gets its own :class:`Dashboard` (a ``param`` Viewer: its state is its
declared parameters): its own runners (one per system, from :mod:`integrator_lab.views.live`),
its own Bokeh models (from :mod:`integrator_lab.views.figures`, the same ones the static page
shows) and its own periodic callback, stopped and released when the session ends.
``Dashboard()`` also displays inside a Jupyter notebook.

Serve it with ``integrator-lab serve`` (:func:`integrator_lab.server.server.make_server`) or
``panel serve`` on :mod:`~integrator_lab.server.panel_app`. The rest of the server is in the
package's other modules:
:mod:`~integrator_lab.server.controls` (declared state, checked widgets),
:mod:`~integrator_lab.server.sessions` (live sessions, load sharing),
:mod:`~integrator_lab.server.server` (the Bokeh server, ``/status``, private sessions) and
:mod:`~integrator_lab.server.transport` (every use of private Bokeh/Panel API).

The dashboard itself is built of parts, one module each, mixed into :class:`Dashboard`
(which keeps its declared parameters, their watchers, its construction and its life
cycle): :mod:`~integrator_lab.server.layout` (the widgets and the layout, kept in step
with the state), :mod:`~integrator_lab.server.page` (the page's scripts, the link that
follows the view, the disconnected banner), :mod:`~integrator_lab.server.changes` (what the
controls, a lesson or a link ask for: checked, refused or carried out by the next update),
:mod:`~integrator_lab.server.flow` (the periodic tick: advance, send, pace by the page's
acknowledgements) and :mod:`~integrator_lab.server.drag` (bodies dragged in a scene).

Pacing: every session's tick covers the wall time since its last tick. The steps that takes
are capped by the session's share of one CPU core
(:class:`~integrator_lab.server.sessions.ServerLoad`): the server's event loop is one
thread, so the sessions split what is left of it after the measured cost of sending updates.
When the server cannot keep up, every simulation clock slows down smoothly. Updates never
pile up: Bokeh starts a session's next tick only when the last one is done, each tick waits
for its websocket writes, and a page that falls behind in acknowledging updates gets none
until it catches up (the simulation goes on; the next update carries everything since).

One update is one message: the new samples and positions of every system travel as one
flat array (:meth:`SystemRun.frame`, the buffer the static page's worker posts too) that a
few lines of JavaScript (``js/apply_frames.js``) unpack into the plots.
"""

from __future__ import annotations

import csv
import functools
import html
import io
import logging
import time

import panel as pn
import param

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS
from integrator_lab.server import transport
from integrator_lab.server.changes import ChangesMixin
from integrator_lab.server.controls import settings_class
from integrator_lab.server.drag import DRAGGABLE as DRAGGABLE
from integrator_lab.server.drag import DragMixin
from integrator_lab.server.flow import MAX_TICK_WALL, TICK_MS, FlowMixin
from integrator_lab.server.flow import STATUS_PERIOD as STATUS_PERIOD
from integrator_lab.server.geometry import GeometryView
from integrator_lab.server.layout import LayoutMixin
from integrator_lab.server.methods import MethodEditor
from integrator_lab.server.page import DISCONNECTED_TEXT as DISCONNECTED_TEXT
from integrator_lab.server.page import PageMixin
from integrator_lab.server.page import page_script as page_script
from integrator_lab.server.page import script_source as script_source
from integrator_lab.server.page import widget_names_source as widget_names_source
from integrator_lab.server.sandbox import SandboxLive
from integrator_lab.server.sessions import LOAD, REGISTRY, session_label
from integrator_lab.server.study import StudyView
from integrator_lab.views import figures, i18n
from integrator_lab.views.figures import ENERGY_MODES
from integrator_lab.views.live import SystemRun
from integrator_lab.views.scenarios import SCENARIOS, get_scenario
from integrator_lab.views.shared import PANEL_SYSTEMS, SPEED_RANGE, csv_columns

TITLE = "Integrator Lab"
ENERGY_LABELS = dict(zip(figures.ENERGY_MODE_LABELS, ENERGY_MODES))
#: the Lessons menu: its label -> lesson id ("" for none)
NO_LESSON = "Choose a lesson…"
LESSON_LABELS = {NO_LESSON: "", **{s.title: s.id for s in SCENARIOS}}

log = logging.getLogger(__name__)


# -- the dashboard ----------------------------------------------------------------------------
class Dashboard(LayoutMixin, PageMixin, ChangesMixin, FlowMixin, DragMixin, pn.viewable.Viewer):
    """Pendulum, Newton's cradle and spring under several integrators, live.

    One instance is one independent simulation; display it once: one server session per
    instance (:func:`~integrator_lab.server.server.create_app`), or a notebook cell
    (``pn.extension()`` first, then ``Dashboard()``). The state is the declared parameters
    below and, per system, ``settings[name]`` (time step and the system's own parameters,
    with the core's bounds).
    """

    integrators = param.ListSelector(
        default=list(DEFAULT_INTEGRATORS),
        objects=list(INTEGRATORS),
        doc="Integrators run in lockstep on every system",
    )
    playing = param.Boolean(default=True, doc="Run the simulations in real time (× speed)")
    step = param.Event(doc="Advance every system by one time step")
    reset = param.Event(doc="Back to t = 0")
    speed = param.Number(
        default=1.0,
        bounds=SPEED_RANGE,
        step=0.1,
        label="Speed (× real time)",
        doc="Simulated seconds per wall-clock second",
    )
    energy_mode = param.Selector(
        default="error",
        objects=ENERGY_LABELS,
        doc="Energy plots: relative error of the total energy, or "
        "kinetic, potential and dissipated energy",
    )
    log_scale = param.Boolean(
        default=False,
        label="Log scale",
        doc="For experts: the largest energy error so far on a log axis (solid gain, dashed "
        "loss); unchecked (the default), the signed error in percent on a linear axis",
    )
    show_exact = param.Boolean(
        default=True,
        label="Exact solution",
        doc="Draw the exact solution as a dashed ghost, where one exists",
    )
    show_phase = param.Boolean(
        default=False,
        label="Phase space",
        doc="Show the phase-space plot (coordinate against velocity)",
    )
    lesson = param.Selector(
        default="",
        objects=LESSON_LABELS,
        label="Lessons",
        doc="A one-click view that shows one thing an integrator does, with a note of what "
        "to look for (the static page's Lessons)",
    )
    lang = param.Selector(
        default=i18n.DEFAULT_LANGUAGE,
        objects=list(i18n.LANGUAGES),
        doc="Language of the labels (views.i18n): en or ja",
    )

    shown = param.List(
        default=[],
        item_type=str,
        doc="Systems shown, in this order (at least one; empty: every system, in the "
        "dashboard's order): the static page's systems=. A system not shown waits; shown "
        "again, it starts from its settings at t = 0",
    )
    hidden = param.ListSelector(
        default=[],
        objects=list(INTEGRATORS),
        doc="Integrators toggled off in the legend: they go on running, but are not drawn",
    )

    def __init__(self, systems=PANEL_SYSTEMS, allow_code=False, **params):
        super().__init__(**params)
        self.systems = tuple(systems)
        unknown = [name for name in self.shown if name not in self.systems]
        if unknown or len(set(self.shown)) != len(self.shown):
            raise ValueError(
                f"shown: got {list(self.shown)!r}, expected distinct names among "
                f"{', '.join(self.systems)}"
            )
        self.shown = list(self.shown) or list(self.systems)
        self.settings = {name: settings_class(name)() for name in self.systems}
        config = figures.DashboardConfig(
            systems=self.systems,
            integrators=list(self.integrators),
            speed=self.speed,
            playing=self.playing,
            show_exact=self.show_exact,
            energy_mode=self.energy_mode,
            log_scale=self.log_scale,
            show_phase=self.show_phase,
            hidden=list(self.hidden),
            lang=self.lang,
        )
        self.panels = {name: figures.PanelModels(name, config) for name in self.systems}
        # the figures' texts in the dashboard's language (the catalog's table, as on the page)
        # (every named model indexed once: a search of the models per text took 8 s a session)
        named = {
            model.name: model
            for models in self.panels.values()
            for model in models.layout.references()
            if model.name
        }
        i18n.localize(named.get, self.systems, self.lang)
        if self.lang != i18n.DEFAULT_LANGUAGE:  # this instance's copy of the parameter
            self.param.energy_mode.objects = {
                self._text(f"control.energy.{mode}"): mode for mode in ENERGY_MODES
            }
        # the simulation: pacing (this session's share of the server), the bad-settings
        # policy and failures, as on the static page (views.live.Live)
        # a visitor's Python code runs only when the operator allowed it (--allow-code), and
        # then in a child process of this session's, as the checks of definitions do (sandbox)
        self.live = SandboxLive(
            budget=LOAD.share,
            max_wall=MAX_TICK_WALL,
            on_failure=self._failed,
            allow_code=allow_code,
        )
        # the energy plot's marks name the integrators in the dashboard's language
        self.live.set_shown_names({n: i18n.integrator_name(n, self.lang) for n in INTEGRATORS})
        self.method_editor = MethodEditor(allow_code, self._request_method, self.lang)
        for name in self.systems:
            self.live.configure(name, {}, None, self.integrators)
        self._method_hidden: set[str] = set()  # the user's method, toggled off in the legend
        self.system_messages = {
            name: pn.pane.Alert(
                "",
                alert_type="danger",
                visible=False,
                sizing_mode="stretch_width",
                css_classes=[f"il-{name}-error"],
            )
            for name in self.systems
        }
        self._callback = None
        self._doc = None  # the served session's document (see attach)
        self.session_id = None  # the Bokeh session's id, when served
        self._init_flow()  # the ticks' state, the carrier and its echo (flow)
        self._init_changes()  # nothing asked for yet, the message line (changes)
        self._dt_widgets = {}  # system -> its dt widget, once the layout is built
        self._dt_sliders = {}  # system -> its log-scale dt slider, once the layout is built
        for name, settings in self.settings.items():
            settings.param.watch(
                lambda *events, name=name: self._request_rebuild(name),
                [key for key in settings.param if key != "name"],
            )
        for name, models in self.panels.items():
            models.clear()  # the first frame brings the samples, from t = 0
            self._show_run(name)
        # direct manipulation: a body dragged in a scene sets its system's initial state
        self._init_drag()
        # each system's study view: the live run's parameters and integrators, on Run
        self.studies = {
            name: StudyView(name, functools.partial(self._study_input, name), self.lang)
            for name in self.systems
        }
        # each system's geometry view: stability regions and rings, following the live run
        self.geometries = {
            name: GeometryView(name, lambda name=name: self.runs.get(name), self.lang)
            for name in self.systems
        }
        self.lesson_note = pn.pane.Alert(
            "",
            alert_type="info",
            visible=False,
            sizing_mode="stretch_width",
            css_classes=["il-lesson"],
            # Panel's info text (#087990 on #cff4fc) is 4.3:1; WCAG AA asks 4.5:1
            stylesheets=[":host { color: #055160 !important; }"],
        )
        # the lesson again from t = 0, in its own view (as the static page's Replay)
        self.lesson_replay = pn.widgets.Button(
            label=f"↻ {self._text('lesson.replay')}",
            description=self._text("lesson.replay.tip"),
            visible=False,
            width=110,
            css_classes=["il-lesson-replay"],
        )
        self.lesson_replay.on_click(lambda _: self._lesson_changed())
        self._columns: dict = {}  # system -> its column in the layout
        self._layout = self._build_layout()
        for widget in self._layout.select(pn.widgets.Widget):  # every value a client sends
            transport.guard_events(widget, self._show_error)
        self.param.watch(self._shown_changed, "shown")
        if self.lesson:
            self._lesson_changed()

    def _text(self, key: str, **values) -> str:
        """The catalog's text ``key`` in this dashboard's language."""
        return i18n.text(key, self.lang, **values)

    @property
    def runs(self) -> dict[str, SystemRun]:
        """``{system name: SystemRun}``, what runs (:class:`~integrator_lab.views.live.Live`)."""
        return self.live.runs

    @property
    def failed(self) -> dict[str, str]:
        """Systems whose computation raised: stopped, with a message on their panel, until a
        new setting or Reset starts them again (the others go on): ``{name: why}``."""
        return {name: run.failure for name, run in self.runs.items() if run.failure}

    def _study_input(self, name: str) -> tuple[dict, list[str]]:
        """What a study of system ``name`` runs: the live run's parameters and integrators."""
        run = self.runs.get(name)
        params = dict(run.system.params) if run is not None else {}
        return params, list(self.integrators)

    def __panel__(self):
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            # served: its simulation starts once its page has loaded (BokehJS says so,
            # ``document_ready``): a page request whose page never loads (a crawler, a
            # script fetching the page) costs the server the page and no simulation
            pn.state.onload(self.start)
        else:
            self.start()  # a notebook
        return self._layout

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Start this dashboard's periodic callback (idempotent)."""
        if self._callback is not None:
            return
        self._last_tick = time.perf_counter()
        # background: no "busy" indicator churn; log=False: no log line per tick
        self._callback = pn.io.PeriodicCallback(
            callback=self._tick, period=TICK_MS, log=False, background=True
        )
        self._callback.start()
        REGISTRY.started(self)

    def stop(self) -> None:
        """Stop the periodic callback and drop the simulations (the session is over)."""
        if self._callback is not None:
            self._callback.stop()
            self._callback = None
        REGISTRY.stopped(self)
        self.runs.clear()
        self.live.close()  # this session's child process, if it has one

    def session_destroyed(self, session_context) -> None:
        """Bokeh ended the session: stop (:meth:`stop`)."""
        self.stop()

    def end(self, reason: str) -> None:
        """End this served session now: stop its simulation and close its connections
        (the page shows that it lost the server); one log line says why."""
        log.warning("session %s ended: %s", session_label(self.session_id), reason)
        self.stop()
        transport.close_connections(self._doc)

    def stats(self) -> dict:
        """Numbers for ``/status`` and the load benchmark."""
        return {
            "session": session_label(self.session_id),
            "ticks": self.ticks,
            "updates": self.updates,
            "acked": self._acked,
            "playing": self.playing,
            "speed": self.speed,
            "integrators": list(self.integrators),
            "systems": {
                name: {
                    "time": run.runner.time,
                    "rtf": run.rtf,
                    "dt": run.dt,
                    "params": dict(run.system.params),
                    "failed": self.failed.get(name),
                }
                for name, run in self.runs.items()
            },
        }

    # -- the declared parameters' watchers (param's watch=True: they must be declared on
    # this class itself, which is why they are here, not in the parts) -------------------
    @param.depends("lesson", watch=True)
    def _lesson_changed(self):
        """Show the chosen lesson: its systems, integrators, steps, parameters and view
        settings (the rest back at their defaults, as its link on the static page does),
        and its note; no lesson: every system again, no note."""
        if not self.lesson:
            self.lesson_note.visible = self.lesson_replay.visible = False
            self.shown = list(self.systems)
            return
        scenario = get_scenario(self.lesson)
        self._apply_settings(scenario.settings(), reset=True)
        self._rebuild_requested.update(self.runs)  # from t = 0, even where nothing changed
        title = self._text("lesson.note", title=self._text(f"lesson.{scenario.id}.title"))
        look_for = self._text(f"lesson.{scenario.id}.text")
        self.lesson_note.object = f"**{html.escape(title.strip())}** {html.escape(look_for)}"
        self.lesson_note.visible = self.lesson_replay.visible = True

    @param.depends("integrators", watch=True)
    def _integrators_changed(self):
        names = list(self.integrators)
        if len(set(names)) != len(names):  # a client can send any list: once each
            kept = list(dict.fromkeys(names))
            self._show_error(
                f"integrators: got {names!r}, expected distinct names; running {', '.join(kept)}."
            )
            self.integrators = kept  # (this runs again, with the list in force)
            return
        self._rebuild_requested.update(self.runs)
        kept = [n for n in self.hidden if n in self.integrators]
        if kept != list(self.hidden):
            self.hidden = kept  # shows the legend again
        elif hasattr(self, "legend"):
            self._show_legend()

    @param.depends("playing", watch=True)
    def _playing_changed(self):
        if hasattr(self, "_play_button"):
            self._play_button.name = self._text("control.pause" if self.playing else "control.play")

    @param.depends("step", watch=True)
    def _step(self):
        self.playing = False
        self._steps_requested += 1

    @param.depends("reset", watch=True)
    def _reset(self):
        self._reset_requested = True

    @param.depends("hidden", watch=True)
    def _hidden_changed(self):
        self._view_requested = True
        if hasattr(self, "legend"):
            self._show_legend()

    @param.depends("energy_mode", "log_scale", "show_exact", "show_phase", watch=True)
    def _view_changed(self):
        self._view_requested = True
        self._grey_log_scale()

    # -- download -------------------------------------------------------------------------
    def csv(self, name: str) -> io.StringIO:
        """The samples of system ``name`` kept so far, in the CLI's CSV columns."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        run = self.runs.get(name)
        if run is None:
            return out
        writer.writerow(csv_columns(run.system.ndof))
        for lane in run.runner.lanes:
            for sample in lane.history:
                writer.writerow([lane.name, *map(repr, sample)])
        out.seek(0)
        return out
