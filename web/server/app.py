"""The dashboard served from Python: Panel on a Bokeh server, the core running in CPython.

Each browser session gets its own :class:`Dashboard` (a ``param`` Viewer: its state is its
declared parameters): its own runners (one per system, from :mod:`integrator_lab.views.live`),
its own Bokeh models (from :mod:`integrator_lab.views.figures`, the same ones the static page
shows) and its own periodic callback, stopped and released when the session ends.
``Dashboard()`` also displays inside a Jupyter notebook.

Serve it with ``integrator-lab serve`` (:func:`integrator_lab.server.server.make_server`) or
``panel serve`` on this file. The rest of the server is in the package's other modules:
:mod:`~integrator_lab.server.controls` (declared state, checked widgets),
:mod:`~integrator_lab.server.sessions` (live sessions, load sharing),
:mod:`~integrator_lab.server.server` (the Bokeh server, ``/status``, private sessions) and
:mod:`~integrator_lab.server.transport` (every use of private Bokeh/Panel API).

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
import json
import logging
import math
import time
from importlib import resources

import numpy as np
import panel as pn
import param
from bokeh import events
from bokeh.core.property.validation import validate
from bokeh.models import (
    Button,
    Column,
    ColumnDataSource,
    CustomJS,
    Div,
    RadioButtonGroup,
    Spacer,
    Toggle,
    Tooltip,
)

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, SYSTEMS
from integrator_lab.server import links, transport
from integrator_lab.server.controls import (
    CHECKED_KINDS,
    checked_widget,
    settings_class,
    settings_widgets,
)
from integrator_lab.server.geometry import GeometryView
from integrator_lab.server.methods import MethodEditor
from integrator_lab.server.sandbox import SandboxLive, off_loop
from integrator_lab.server.sessions import LOAD, REGISTRY, session_label
from integrator_lab.server.study import StudyView
from integrator_lab.views import figures, i18n
from integrator_lab.views.energy_figures import MARK_BLANK, MARK_ROWS
from integrator_lab.views.figures import ENERGY_MODES
from integrator_lab.views.layout import FIRST_SCREEN
from integrator_lab.views.live import SystemRun, method_label
from integrator_lab.views.scenarios import SCENARIOS, get_scenario
from integrator_lab.views.scene import clamp_to, color_of, exact_curve
from integrator_lab.views.shared import (
    DT_RANGE,
    PANEL_SYSTEMS,
    ROLLOVER,
    SPEED_RANGE,
    csv_columns,
    describe_error,
    dt_at,
    dt_position,
    dt_scaled,
    frame_layout,
)

TITLE = "Integrator Lab"
#: period of each session's callback (ms): a little over 20 updates per second
TICK_MS = 45
#: the time and real-time factor above each panel change this often (s): a new text
#: re-lays out the whole page in the browser, far costlier than moving the plots
STATUS_PERIOD = 0.5
#: the page acknowledges every this many updates (each acknowledgement costs the server
#: a full patch decode, a millisecond or two)
ACK_EVERY = 4
#: updates a browser may be behind before its session skips updates (the simulation
#: goes on; the next update carries everything since)
MAX_UNACKED = 2 * ACK_EVERY
#: a client that never acknowledges (one that runs no JavaScript) still gets an update
#: this often (s)
ACK_TIMEOUT = 1.0
#: longest wall time one tick covers (s): after a stall the clock skips the rest
MAX_TICK_WALL = 0.25
#: systems whose bodies can be dragged in the scene to set the initial state
DRAGGABLE = ("pendulum", "cradle", "spring")
ENERGY_LABELS = dict(zip(figures.ENERGY_MODE_LABELS, ENERGY_MODES))
#: the Lessons menu: its label -> lesson id ("" for none)
NO_LESSON = "Choose a lesson…"
LESSON_LABELS = {NO_LESSON: "", **{s.title: s.id for s in SCENARIOS}}
DISCONNECTED_TEXT = "Connection to the server lost \u2014 reload the page to start again."

log = logging.getLogger(__name__)
_FAILED = object()  # what Dashboard._attempt returns when the action raised


@functools.cache
def script_source(name: str) -> str:
    """The text of ``js/<name>.js``, package data of this package (read once)."""
    return resources.files("integrator_lab.server").joinpath("js", f"{name}.js").read_text("utf-8")


@functools.cache
def widget_names_source() -> str:
    """The static page's widget names (``static/js/widgetnames.js``), run on this page too:
    that module, then ``js/widget_names.js`` (its default export)."""
    shared = resources.files("integrator_lab.static").joinpath("js", "widgetnames.js")
    return shared.read_text("utf-8") + "\n" + script_source("widget_names")


def page_script(name: str, **args) -> CustomJS:
    """A callback that runs in the page: the ES module ``js/<name>.js`` of this package
    (its default export gets ``args``)."""
    return CustomJS(code=script_source(name), args=args, module=True)


# -- the dashboard ----------------------------------------------------------------------------
class Dashboard(pn.viewable.Viewer):
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
        self._method_requested: tuple[dict | None] | None = None
        for name in self.systems:
            self.live.configure(name, {}, None, self.integrators)
        self._reverting = False  # settings are being set back to the ones in force
        self._method_hidden: set[str] = set()  # the user's method, toggled off in the legend
        self._diverged = {name: {} for name in self.systems}
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
        # the oldest update that asked for an acknowledgement not received yet: its
        # sequence number and when it was sent (see stalled_for)
        self._ack_due: tuple[int, float] | None = None
        self.session_id = None  # the Bokeh session's id, when served
        self._last_tick = None
        self._next_status = 0.0
        self._status_due = True
        self.ticks = 0
        # each update travels as one array on the carrier; the page applies it and echoes
        # its sequence number back (flow control: see _browser_ready and _on_echo)
        self.updates = 0
        self._acked = 0
        self._last_update = 0.0
        self._fresh: set[str] = set(self.systems)  # systems whose next frame replaces all
        # a system stays fresh until the page acknowledges a frame that carried it so: a
        # frame sent while the page is still loading its document is lost (see _on_echo)
        self._fresh_since: dict[str, int] = {}
        self._served = False  # ticking in a server session (not a notebook)
        self._carrier = ColumnDataSource(data={"buf": np.zeros(1)}, name="flow:carrier")
        self._echo = ColumnDataSource(name="flow:echo")
        self._carrier.js_on_change(
            "tags",
            page_script(
                "apply_frames",
                echo=self._echo,
                rollover=ROLLOVER,
                layout=frame_layout(),
                integrators=list(INTEGRATORS),
                marks={"rows": MARK_ROWS, "blank": MARK_BLANK},
            ),
        )
        self._echo.on_change("tags", self._on_echo)
        # what the controls asked for; the next update carries it out (see _tick)
        self._rebuild_requested: set[str] = set()
        self._reset_requested = False
        self._steps_requested = 0
        self._view_requested = False
        self._moved: set[str] = set()  # systems that moved since the last update
        self._dt_widgets = {}  # system -> its dt widget, once the layout is built
        self._dt_sliders = {}  # system -> its log-scale dt slider, once the layout is built
        self._notes: list[str] = []  # said with the next rebuild's messages
        self.message = pn.pane.Alert(
            "",
            alert_type="danger",
            visible=False,
            sizing_mode="stretch_width",
            name="message",
            css_classes=["il-message"],
        )
        for name, settings in self.settings.items():
            settings.param.watch(
                lambda *events, name=name: self._request_rebuild(name),
                [key for key in settings.param if key != "name"],
            )
        for name, models in self.panels.items():
            models.clear()  # the first frame brings the samples, from t = 0
            self._show_run(name)
        # direct manipulation: a body dragged in a scene sets its system's initial state
        self._drag: dict | None = None  # {system, lane, ball, clamped} while one is held
        for name in set(self.systems) & set(DRAGGABLE):
            fig = self.panels[name].scene_fig
            fig.on_event(events.PanStart, functools.partial(self._drag_start, name))
            fig.on_event(events.Pan, functools.partial(self._drag_move, name))
            fig.on_event(events.PanEnd, functools.partial(self._drag_end, name))
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

    def _lesson_menu(self, control):
        """The Lessons menu, its title and lessons in the dashboard's language (the values,
        the lessons' ids, are the parameter's)."""
        menu = control(pn.widgets.Select, "lesson", max_width=300, sizing_mode="stretch_width")
        if self.lang != i18n.DEFAULT_LANGUAGE:
            menu.name = self._text("lesson.menu")
            menu.options = {
                self._text("lesson.choose"): "",
                **{self._text(f"lesson.{s.id}.title"): s.id for s in SCENARIOS},
            }
            if isinstance(menu.description, Tooltip):
                menu.description.content = self._text("lesson.menu.tip")
        return menu

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

    # -- layout ---------------------------------------------------------------------------
    def _build_layout(self):
        def control(kind, key, **options):
            doc = self.param[key].doc
            if doc and isinstance(kind.param.objects().get("description"), param.ClassSelector):
                # a button (Panel's widgets that take a Tooltip) shows its description while
                # the pointer rests on it; Panel puts it to the right, where it covers the
                # next controls of the row: below instead
                options["description"] = Tooltip(
                    content=doc,
                    position="bottom",
                    stylesheets=[":host { white-space: initial; max-width: 300px; }"],
                )
            # the css class names each control for tests and for custom styling
            options["css_classes"] = [f"il-{key}"]
            if kind in CHECKED_KINDS:
                return checked_widget(kind, self.param[key], self._show_error, **options)
            return kind.from_param(self.param[key], **options)

        # "Log scale" does nothing to the breakdown (joules, linear): greyed out there, with
        # an icon beside it saying why (hover, or tap on a touch screen)
        self._log_checkbox = control(
            pn.widgets.Checkbox, "log_scale", name=self._text("control.log")
        )
        self._log_tip = pn.widgets.TooltipIcon(
            value=self._text("control.log.tip"), css_classes=["il-log_scale-tip"], margin=(5, 0)
        )
        self._grey_log_scale()
        header = pn.FlexBox(
            control(
                pn.widgets.MultiChoice,
                "integrators",
                name=self._text("control.integrators"),
                # each by its name in the dashboard's language; the values stay code names
                options={i18n.integrator_name(n, self.lang): n for n in INTEGRATORS},
                placeholder=self._text("control.integrators.add"),
                min_width=280,
                width=360,
            ),
            self._system_picker(),
            control(
                pn.widgets.Toggle,
                "playing",
                name=self._text("control.pause" if self.playing else "control.play"),
                color="primary",
                width=80,
            ),
            control(pn.widgets.Button, "step", name=self._text("control.step"), width=70),
            control(pn.widgets.Button, "reset", name=self._text("control.reset"), width=70),
            control(
                pn.widgets.FloatSlider,
                "speed",
                name=self._text("control.speed"),
                width=200,
                format="0.0",
            ),
            control(pn.widgets.RadioButtonGroup, "energy_mode"),
            self._log_checkbox,
            self._log_tip,
            control(pn.widgets.Checkbox, "show_exact", name=self._text("control.exact")),
            control(pn.widgets.Checkbox, "show_phase", name=self._text("control.phase")),
            self._copy_link_button(),
            align_items="flex-end",
            gap="8px",
            sizing_mode="stretch_width",
        )
        self._play_button = header[2]
        # the one legend (the static page has the same): a toggle per selected integrator,
        # in its colour; off = not drawn in any panel, the run goes on
        self.legend = pn.widgets.CheckButtonGroup(
            options={},
            value=[],
            color="light",
            css_classes=["il-legend"],
            sizing_mode="stretch_width",
            margin=(10, 10, 4, 10),
        )
        self._show_legend()
        self.legend.param.watch(self._legend_toggled, "value")
        columns = []
        for name, models in self.panels.items():
            download = pn.widgets.FileDownload(
                callback=lambda name=name: self.csv(name),
                filename=f"{name}.csv",
                label=self._text("control.download_csv"),
                color="light",
                width=140,
                css_classes=[f"il-{name}-download"],
                description="The samples kept so far (integrator,t,q0..,v0..,kinetic,"
                "potential,dissipated,total), as `integrator-lab run` writes them",
            )
            widgets = settings_widgets(name, self.settings[name], self._show_error)
            for widget in widgets:  # long titles wrap in their cell, as on the static page
                widget.stylesheets = [*widget.stylesheets, figures.WRAP_TITLE]
            self._dt_widgets[name] = widgets[0]  # dt is declared first
            # the parameters' titles in the dashboard's language (the core's stay English)
            declared = [key for key in self.settings[name].param if key != "name"]
            for key, widget in zip(declared, widgets):
                if key != "dt":
                    widget.name = self._text(f"paramtitle.{name}.{key}")
                    widget.description = self._text(f"paramhelp.{name}.{key}")
            dt_row = self._dt_row(name)
            self._label_dt(name)
            settings = pn.GridBox(*widgets, ncols=3, sizing_mode="stretch_width")
            # the panel's own figures, without its Bokeh widgets: Panel widgets replace them
            models.layout.children = [
                child for child in models.layout.children if child is not models.param_grid
            ]
            plots = pn.pane.Bokeh(models.layout, sizing_mode="stretch_width")
            self._columns[name] = pn.Column(
                self.system_messages[name],
                plots,
                dt_row,
                settings,
                download,
                self.studies[name].layout,
                self.geometries[name].layout,
                sizing_mode="stretch_width",
                min_width=300,
                styles={"flex": "1 1 320px"},
            )
            columns.append(self._columns[name])
        self._show_systems()
        # the flow-control models ride along on an invisible spacer
        flow = pn.pane.Bokeh(
            Spacer(width=0, height=0, visible=False, tags=[self._carrier, self._echo]),
            visible=False,
        )
        return pn.Column(
            pn.Row(
                pn.pane.Markdown(f"## {self._text('page.heading')}", margin=(0, 10)),
                pn.layout.HSpacer(),
                pn.pane.Bokeh(self._language_switch()),
                sizing_mode="stretch_width",
            ),
            pn.pane.Bokeh(self.banner),
            pn.pane.Bokeh(self._controls_toggle),
            self._phone_folds(self._lesson_menu(control)),
            self._phone_folds(header),
            self.lesson_note,
            self.lesson_replay,
            self.method_editor.banner,
            self.legend,
            self.message,
            pn.pane.Bokeh(Column(self._link, self._link_note, sizing_mode="stretch_width")),
            flow,
            # side by side where they fit, stacked on a phone (a Row overflowed it)
            pn.FlexBox(*columns, flex_wrap="wrap", gap="10px", sizing_mode="stretch_width"),
            self.method_editor.panel(),
            sizing_mode="stretch_width",
        )

    # -- on a phone: the lessons and controls folded behind one button ----------------------
    @staticmethod
    def _phone_folds(row):
        """``row`` (the lessons' menu, the controls) folds behind :attr:`_controls_toggle` on
        a phone: the page script (``js/first_screen.js``) hides what has the class
        ``il-controls`` below the phone width, so that the first screen shows a scene and its
        energy plot (the static page folds them into one bar)."""
        row.css_classes = [*row.css_classes, "il-controls"]
        return row

    @functools.cached_property
    def _controls_toggle(self):
        """The button that shows or hides the lessons and controls on a phone (hidden
        elsewhere; the page script shows it)."""
        toggle = Toggle(
            label=f"{self._text('layout.controls')} ▾",
            active=False,
            visible=False,
            css_classes=["il-controls-toggle"],
            sizing_mode="stretch_width",
            margin=(4, 10, 4, 10),
        )
        toggle.js_on_change(
            "active",
            CustomJS(
                code="""
for (const doc of Bokeh.documents) {
  for (const model of doc.all_models) {
    if (model.css_classes?.includes("il-controls")) {
      model.setv({visible: cb_obj.active}, {sync: false});
    }
  }
}"""
            ),
        )
        return toggle

    # -- the link: the static page's query keys (links) -----------------------------------
    @functools.cached_property
    def _link(self) -> Div:
        """The query of this dashboard's view (hidden; the page's address follows it:
        js/link.js)."""
        return Div(text="", visible=False, name="link:query")

    @functools.cached_property
    def _link_note(self) -> Div:
        """What Copy link says (copied, or the link to copy by hand)."""
        return Div(
            text="",
            visible=False,
            name="link:note",
            css_classes=["il-link-note"],
            styles={
                "background": "#eef5fc",
                "border-left": "4px solid #3c78b4",
                "padding": "4px 10px",
                "font-size": "0.9rem",
            },
        )

    def _language_switch(self) -> RadioButtonGroup:
        """EN | 日本語, as on the static page: the page opens again in that language, its
        address (the view, links.py) kept, so the view is the same."""
        switch = RadioButtonGroup(
            labels=[i18n.LANGUAGE_NAMES[lang] for lang in i18n.LANGUAGES],
            active=i18n.LANGUAGES.index(self.lang),
            name="controls:lang",
            css_classes=["il-lang"],
            margin=(10, 10, 0, 0),
        )
        switch.js_on_change(
            "active", page_script("language", languages=list(i18n.LANGUAGES), query=self._link)
        )
        return switch

    def _copy_link_button(self):
        """Copy link, as on the static page: this view's address to the clipboard (or shown,
        to copy by hand, where the browser refuses)."""
        button = Button(
            label=self._text("control.copy"),
            width=100,
            name="controls:copy_link",
            css_classes=["il-copy_link"],
        )
        button.js_on_event(
            "button_click",
            page_script(
                "copy_link",
                query=self._link,
                note=self._link_note,
                copied=self._text("msg.copied"),
                shown=self._text("msg.link"),
            ),
        )
        return pn.pane.Bokeh(button)

    def link_query(self) -> str:
        """This dashboard's view as the static page's query (what Copy link gives)."""
        state = {key: getattr(self, key) for key in links.DASHBOARD_KEYS}
        state["geometry"] = [n for n in self.systems if self.geometries[n].card is not None]
        defaults = {key: self.param[key].default for key in links.DASHBOARD_KEYS}
        settings, setting_defaults = {}, {}
        for name in self.systems:
            declared = self.settings[name].param
            keys = [key for key in declared if key != "name"]
            settings[name] = {key: getattr(self.settings[name], key) for key in keys}
            setting_defaults[name] = {key: declared[key].default for key in keys}
        return links.link_query(state, self.systems, defaults, settings, setting_defaults)

    def _update_link(self, *_events) -> None:
        query = self.link_query()
        if self._link.text != query:
            self._link.text = query

    def apply_link(self, link: dict) -> None:
        """Show what a link set (:func:`links.read_link`): its lesson first, then its own
        settings over the lesson's, then the integrators it hides."""
        if link.get("lesson"):
            self.lesson = link["lesson"]
        self._apply_settings(link, reset=False)
        if "hide" in link:
            self.hidden = [n for n in link["hide"] if n in self.integrators]

    def _system_picker(self):
        """The system picker (the static page's): a toggle per system, in the dashboard's
        order; the panels shown keep their order, a system ticked again comes last."""
        self._picker = pn.widgets.CheckButtonGroup(
            options={self._text(f"system.{name}"): name for name in self.systems},
            value=list(self.shown),
            color="primary",
            variant="outline",  # a system not shown: an outline only
            # below, as the other controls' (to the right it covers Play)
            description=Tooltip(
                content=self._text("control.systems.tip"),
                position="bottom",
                stylesheets=[":host { white-space: initial; max-width: 300px; }"],
            ),
            css_classes=["il-systems"],
            align="end",
        )

        def chosen(event):
            if self._picking:
                return
            if not event.new:
                self._show_error(self._text("msg.choose_system"))
                self._set_picker(self.shown)
                return
            kept = [name for name in self.shown if name in event.new]
            self.shown = kept + [name for name in event.new if name not in kept]

        self._picking = False  # the picker is being set to what is shown
        self._picker.param.watch(chosen, "value")
        return self._picker

    def _set_picker(self, names) -> None:
        self._picking = True
        try:
            self._picker.value = list(names)
        finally:
            self._picking = False

    def _show_systems(self) -> None:
        """Show the systems of :attr:`shown`, in its order (a flex item's CSS ``order``);
        the others are hidden and wait (held: no steps, nothing sent)."""
        for name, column in self._columns.items():
            shown = name in self.shown
            column.visible = shown
            order = self.shown.index(name) if shown else len(self.shown)
            column.styles = {**column.styles, "order": str(order)}
            self.live.hold(name, not shown)

    def _shown_changed(self, event) -> None:
        unknown = [name for name in self.shown if name not in self.systems]
        if unknown or not self.shown or len(set(self.shown)) != len(self.shown):
            self._show_error(
                f"shown: got {list(self.shown)!r}, expected distinct names among "
                f"{', '.join(self.systems)} (at least one); kept {', '.join(event.old)}."
            )
            self.shown = event.old
            return
        was = [name for name in self.systems if self._columns[name].visible]
        # a system shown again starts from its settings at t = 0, as on the static page
        self._rebuild_requested.update(name for name in self.shown if name not in was)
        self._show_systems()
        if list(self._picker.value) != list(self.shown):
            self._set_picker(self.shown)

    def _dt_row(self, name: str):
        """System ``name``'s time step on a log scale, with ÷2 and ×2 (as on the static page:
        :func:`figures.dt_slider_options`); the field beside the other settings stays for
        typing. A drag sets dt when released; ×2 / ÷2 past an end of the accepted range stop
        at that end, and say so."""
        settings = self.settings[name]
        recommended = self.runs[name].system.recommended_dt
        slider = pn.widgets.FloatSlider(
            label=self._text("dt.slider", **i18n.range_values()),
            value=dt_position(settings.dt),
            sizing_mode="stretch_width",
            min_width=120,
            css_classes=[f"il-{name}-dt-slider"],
            **figures.dt_slider_options(recommended),
        )
        self._dt_sliders[name] = slider

        def dragged(event):
            dt = dt_at(event.new)
            if dt != settings.dt:
                settings.dt = dt

        slider.param.watch(dragged, "value_throttled")

        def follow(event):  # the field, a button or a refused value set dt: the slider shows it
            if event.new is not None and abs(slider.value - dt_position(event.new)) > 1e-9:
                slider.value = dt_position(event.new)

        settings.param.watch(follow, "dt")

        def scale(factor):
            dt, clamped = dt_scaled(settings.dt, factor)
            note = ""
            if clamped:
                which = "smallest" if dt == DT_RANGE[0] else "largest"
                note = (
                    f"{SYSTEMS[name].title}, time step dt: {settings.dt * factor:g} s is "
                    f"outside [{DT_RANGE[0]:g}, {DT_RANGE[1]:g}] s; {dt:g} s is the {which} "
                    "accepted."
                )
            if dt != settings.dt:
                # the rebuild this asks for shows its messages: the note goes with them
                if note:
                    self._notes.append(note)
                settings.dt = dt
            elif note:
                self._show_error(note)

        buttons = [
            pn.widgets.Button(
                label=label,
                width=44,
                align="center",
                description=tip,
                css_classes=[f"il-{name}-dt-{role}"],
            )
            for label, role, tip in (
                ("÷2", "half", self._text("dt.half")),
                ("×2", "double", self._text("dt.double")),
            )
        ]
        buttons[0].on_click(lambda _: scale(0.5))
        buttons[1].on_click(lambda _: scale(2.0))
        return pn.Row(buttons[0], slider, buttons[1], sizing_mode="stretch_width")

    @functools.cached_property
    def banner(self) -> Column:
        """Shown by the page itself when it loses its server (``connection_lost``): the
        page can no longer change anything, a reload starts a new session."""
        reload = Button(label="Reload", button_type="primary", width=90, name="disconnected:reload")
        reload.js_on_event("button_click", page_script("reload"))
        text = Div(
            text=html.escape(DISCONNECTED_TEXT),
            name="disconnected:text",
            styles={"font-weight": "bold", "font-size": "15px", "white-space": "normal"},
        )
        return Column(
            text,
            reload,
            name="disconnected",
            visible=False,
            sizing_mode="stretch_width",
            css_classes=["il-disconnected"],
            styles={
                "background": "#f8d7da",
                "color": "#721c24",
                "border": "1px solid #f5c6cb",
                "border-radius": "4px",
                "padding": "10px",
                "box-sizing": "border-box",
                # within the window even where the dashboard is wider
                "max-width": "100vw",
            },
        )

    def __panel__(self):
        self.start()
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

    def attach(self, doc) -> None:
        """Serve this dashboard in ``doc``, a Bokeh server session's document: its page
        shows a banner when it loses the server, and the session's end stops it."""
        self.session_id = doc.session_context.id
        self._doc = doc
        # BokehJS announces a lost websocket only in the console; the page says it
        doc.js_on_event("connection_lost", page_script("connection_lost", banner=self.banner))
        # on a touch screen a swipe over a plot scrolls the page (as on the static page)
        plots = [
            fig for models in self.panels.values() for fig in (models.energy_fig, models.phase_fig)
        ]
        doc.js_on_event("document_ready", page_script("touch", plots=plots))
        # each panel's scene and energy plot on the first screen (the static page's rule)
        panels = {
            name: {
                "box": m.scene_box,
                "scene": m.scene_fig,
                "energy": m.energy_fig,
                "legend": m.legend,
            }
            for name, m in self.panels.items()
        }
        doc.js_on_event(
            "document_ready",
            page_script(
                "first_screen",
                rule=FIRST_SCREEN,
                panels=panels,
                extra=figures.BREAKDOWN_EXTRA_HEIGHT,
            ),
        )
        # names and labels its widgets draw without, and focus rings (the page's own code)
        doc.js_on_event(
            "document_ready",
            CustomJS(
                code=widget_names_source(),
                args={
                    "increase": self._text("a11y.increase"),
                    "decrease": self._text("a11y.decrease"),
                },
                module=True,
            ),
        )
        # the page's address follows the view (the static page's query keys)
        follow = page_script("link", query=self._link)
        doc.js_on_event("document_ready", follow)
        self._link.js_on_change("text", follow)
        self.param.watch(self._update_link, list(links.DASHBOARD_KEYS))
        for settings in self.settings.values():
            settings.param.watch(self._update_link, [k for k in settings.param if k != "name"])
        self._update_link()
        pn.state.on_session_destroyed(self.session_destroyed)

    def session_destroyed(self, session_context) -> None:
        """Bokeh ended the session: stop (:meth:`stop`)."""
        self.stop()

    @property
    def acknowledged(self) -> int:
        """The sequence number of the last update the page acknowledged (0: none yet)."""
        return self._acked

    def stalled_for(self, now: float) -> float:
        """How long (s) the page has owed an acknowledgement (0 when it owes none)."""
        return 0.0 if self._ack_due is None else now - self._ack_due[1]

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

    # -- the periodic callback ------------------------------------------------------------
    async def _tick(self) -> None:
        """Carry out what the controls asked for, advance, and send every change of this
        tick to the browser in one message, waiting until it is written."""
        now = time.perf_counter()
        wall = min(max(now - self._last_tick, 0.0), MAX_TICK_WALL)
        self._last_tick = now
        doc = pn.state.curdoc
        session = transport.server_session(doc)
        if not self.runs or (session is not None and session.connection_count == 0):
            return  # stopped, or no browser to show it to (page loading, tab closed)
        self.ticks += 1
        self._served = session is not None
        show = session is None or self._browser_ready(now)
        self._status_due = show and now >= self._next_status
        if self._status_due:
            self._next_status = now + STATUS_PERIOD
        batch = transport.TickBatch(doc)
        try:
            try:
                await self._update_async(wall, show)
            except Exception as exc:  # noqa: BLE001 - this session says so, the others go on
                self._tick_failed(exc)
            if show:
                self._last_update = now
        finally:
            writes = batch.send()
        if session is None:  # a notebook: Bokeh models changed directly need a push
            pn.io.push_notebook(self._layout)
        await transport.written(writes)

    def _browser_ready(self, now: float) -> bool:
        """Whether the browser has shown (nearly) all we sent: a slow browser gets fewer
        updates, never a growing queue of them."""
        return self.updates - self._acked <= MAX_UNACKED or now - self._last_update > ACK_TIMEOUT

    def _on_echo(self, attr, old, new) -> None:
        if new:
            self._acked = max(self._acked, int(new[0]))
            if self._ack_due is not None and self._acked >= self._ack_due[0]:
                self._ack_due = None
            # every frame from _fresh_since on replaced the system's data: one applied is enough
            for name, since in list(self._fresh_since.items()):
                if self._acked >= since:
                    self._fresh.discard(name)
                    del self._fresh_since[name]

    def _update(self, wall: float, show: bool = True) -> None:
        """Advance by ``wall`` seconds; with ``show``, also update the page (otherwise
        the samples wait in the runners for the next update)."""
        if show:
            self._apply_requests()
        self._moved |= self._advance(wall, self._take_steps())
        if show:
            self._send_frames()

    async def _update_async(self, wall: float, show: bool) -> None:
        """:meth:`_update` and the studies' slices, in the served tick: what calls the
        session's child process (a definition's check, a Python method's steps) runs in a
        worker thread while the event loop serves the other sessions (sandbox)."""
        requested = self._method_requested
        if show and requested is not None and requested[0] is not None:
            await off_loop(self.live, self.live.check, requested[0])
        with validate(False):  # the values come from the core and the scene: valid
            if show:
                self._apply_requests()
        if self.live.runs_code():  # (the request just applied may have started one)
            moved = await off_loop(self.live, self._advance, wall, self._take_steps())
            notice = self.live.sandbox.take_notice()
            if notice:
                log.warning("session %s: %s", session_label(self.session_id), notice)
                self.method_editor.say(notice, "danger")
        else:
            moved = self._advance(wall, self._take_steps())
        self._moved |= moved
        with validate(False):
            if show:
                self._send_frames()
        with validate(False):
            for study in self.studies.values():  # a slice of each running study
                study.advance()
            for geometry in self.geometries.values():  # the open geometry views
                geometry.advance()

    def _take_steps(self) -> int:
        steps, self._steps_requested = self._steps_requested, 0
        return steps

    def _advance(self, wall: float, steps: int = 0) -> set[str]:
        """The systems' steps for ``wall`` seconds, then ``steps`` single steps (Step):
        pure Python, no Bokeh model touched. Returns the systems that moved."""
        started = time.perf_counter()
        # a body held in a scene: its system waits for the release (the others go on)
        self.live.speed, self.live.playing = self.speed, self.playing
        moved = self.live.advance(wall)
        LOAD.record(time.perf_counter() - started)
        if steps:
            moved |= self.live.step(steps)
        return moved

    def _tick_failed(self, exc: Exception) -> None:
        """Whatever a tick raised: one log line (once per different message), no traceback,
        and the message in the page."""
        text = f"The server could not update this page: {describe_error(exc)}"
        if text != getattr(self, "_tick_failure", None):
            self._tick_failure = text
            log.warning("session %s: %s", session_label(self.session_id), text)
        try:
            self._show_error(text)
        except Exception:  # noqa: BLE001 - the message is a courtesy
            pass

    def _working(self) -> list:
        """(name, run) of the systems that have not failed."""
        return self.live.live_items()

    def _attempt(self, name: str, what: str, action, *args):
        """``action(*args)``, this view's own work on system ``name``. Should it raise, that
        system stops (as when its computation raises): returns :data:`_FAILED`."""
        try:
            return action(*args)
        except Exception as exc:  # noqa: BLE001 - whatever a system's computation raises
            self.live.fail(name, what, exc)
            return _FAILED

    def _failed(self, name: str, run: SystemRun, what: str, exc: BaseException) -> None:
        """System ``name`` stopped (``Live.on_failure``): one log line, no traceback, and
        why on its panel, in the static page's words."""
        log.warning(
            "%s stopped at t = %s s: %s raised %s", name, run.runner.time, what, describe_error(exc)
        )
        pane = self.system_messages[name]
        pane.object = html.escape(run.failure or "")
        pane.visible = True

    def _show_alerts(self, name: str, alerts: list[str]) -> None:
        """What of a running system's view failed (e.g. its exact solution), on its panel, in
        the words the static page uses (:meth:`SystemRun.alerts`)."""
        pane = self.system_messages[name]
        text = html.escape(" ".join(alerts))
        if alerts and (pane.object != text or not pane.visible):
            pane.object = text
            pane.visible = True
        elif not alerts and pane.visible:
            pane.visible = False

    def _send_frames(self) -> None:
        """Everything new of every system, as one flat array and a little metadata on
        the carrier; the page unpacks it into the plots (``js/apply_frames.js``).

        The array is :meth:`SystemRun.frame`, the very buffer the static page's worker
        posts: positions of bodies and links, then each integrator's new samples. Sent as
        one binary buffer it costs the server a fraction of what a hundred small column
        updates cost to serialise.
        """
        if not (self.playing or self._moved or self._fresh):
            if self._status_due:  # paused: the status says so
                for name, run in self.runs.items():
                    self.panels[name].status.text = i18n.status_text(
                        self.lang, run.runner.time, run.rtf, paused=True
                    )
            return
        parts, systems, offset, sent_fresh = [], [], 1, set()
        for name, run in self._working():
            fresh = name in self._fresh
            # a fresh frame carries every kept sample
            frame = self._attempt(name, "computing its frame", run.frame, fresh)
            if frame is _FAILED:
                continue  # the page keeps its last good frame: nothing half-made reaches it
            if fresh:
                sent_fresh.add(name)
            systems.append(
                {
                    "name": name,
                    "offset": offset,
                    "time": frame["time"],
                    "lanes": frame["lanes"],
                    "moved": name in self._moved or fresh,
                    "fresh": fresh,
                    "counts": run.scene.counts(),
                    # the energy plot's y-range and clipped marks (views.energy)
                    "energy": self.panels[name].energy_view_for_page(frame.get("energy")),
                }
            )
            parts.append(np.frombuffer(frame["data"], dtype=np.float64))
            offset += len(frame["data"])
            self._mark_diverged(name, frame["diverged"])
            self._tell_method_stopped(name, frame.get("reasons") or {})
            self._show_alerts(name, frame.get("alerts") or [])
            if self._status_due:
                self.panels[name].status.text = i18n.status_text(
                    self.lang, frame["time"], run.rtf, paused=not self.playing
                )
        self._moved.clear()
        self.updates += 1
        carries_fresh = bool(sent_fresh)
        if self._served:
            for name in sent_fresh:
                self._fresh_since.setdefault(name, self.updates)
        else:  # a notebook: no lost first frame to make up for
            self._fresh -= sent_fresh
        # the sequence number leads the buffer, so the page never applies a stale one
        self._carrier.data = {"buf": np.concatenate([[float(self.updates)], *parts])}
        # JSON text: a dict would arrive in the page as a Map
        meta = {
            "seq": self.updates,
            "ack": carries_fresh or self.updates % ACK_EVERY == 0,
            "systems": systems,
        }
        if meta["ack"] and self._ack_due is None:
            self._ack_due = (self.updates, time.perf_counter())
        self._carrier.tags = [json.dumps(meta, allow_nan=False)]

    def _tell_method_stopped(self, name: str, reasons: dict) -> None:
        """The user's method stopped on system ``name`` (its step raised, its process was
        ended, or it diverged): why, in the editor's status (the scene says only when)."""
        method = self.live.method
        reason = reasons.get(method.name) if method is not None else None
        told = getattr(self, "_method_stops_told", None)
        if told is None or told[0] is not method:
            told = self._method_stops_told = (method, set())
        if reason and reason not in told[1]:
            told[1].add(reason)
            title = self.runs[name].title
            self.method_editor.say(f"{method.name} stopped on {title}: {reason}", "danger")

    def _mark_diverged(self, name: str, diverged: dict) -> None:
        if diverged != self._diverged[name]:
            self._diverged[name] = dict(diverged)
            self.panels[name].set_diverged(diverged, self.lang)

    def _show_run(self, name: str) -> None:
        """Show system ``name``'s new (or reset) run: layout now, samples and positions
        with the next frame, which replaces what the plots held."""
        run, models = self.runs[name], self.panels[name]

        def show():
            models.apply_scene(run.scene, self.lang)
            models.set_integrators(run.integrators)
            models.set_exact_curve(exact_curve(run.system))

        if self._attempt(name, "drawing its new run", show) is _FAILED:
            return
        if self.system_messages[name].visible:
            self.system_messages[name].visible = False
        self._mark_diverged(name, {})
        self._fresh.add(name)
        self._fresh_since.pop(name, None)  # an acknowledgement must be of the new run
        self._label_dt(name)

    def _legend_names(self) -> list[str]:
        """The legend's entries: the selected integrators, then the user's method if one runs."""
        method = self.live.method
        return [*self.integrators, *([method.name] if method is not None else [])]

    def _show_legend(self) -> None:
        """The legend's toggles: the selected integrators and the user's method, pressed
        unless hidden."""
        names = self._legend_names()
        method = self.live.method
        colors = "".join(
            f".bk-btn-group > .bk-btn:nth-child({k}) {{ border-left: 14px solid {color_of(n)}; }}"
            for k, n in enumerate(names, start=1)
        )
        self.legend.stylesheets = [
            colors + ".bk-btn:not(.bk-active) { text-decoration: line-through; opacity: 0.65; }"
            ".bk-btn-group { flex-wrap: wrap; gap: 4px; } .bk-btn { flex: 0 0 auto; }"
        ]
        labels = {
            n: method_label(method)
            if method is not None and n == method.name
            else i18n.text(f"label.{n}", self.lang)
            for n in names
        }
        hidden = {*self.hidden, *self._method_hidden}
        self.legend.param.update(
            options={labels[n]: n for n in names},
            value=[n for n in names if n not in hidden],
        )

    def _legend_toggled(self, event) -> None:
        shown = set(event.new)
        method = self.live.method
        method_hidden = {method.name} - shown if method is not None else set()
        if method_hidden != self._method_hidden:
            self._method_hidden = method_hidden
            self._view_requested = True
        hidden = [n for n in self.integrators if n not in shown]
        if hidden != list(self.hidden):
            self.hidden = hidden

    def _label_dt(self, name: str) -> None:
        """The step a system recommends depends on its parameters (a stiffer cradle contact
        is shorter): the dt field names it when dt is much coarser."""
        widget = self._dt_widgets.get(name)
        if widget is None:
            return
        run = self.runs[name]
        recommended = run.system.recommended_dt
        slider = self._dt_sliders.get(name)
        if slider is not None:  # the mark on the slider moves to the new recommendation
            css = figures.dt_slider_css(recommended)
            if slider.stylesheets != [css]:
                slider.stylesheets = [css]
        label = self._text("dt.title")
        if run.dt > 1.5 * recommended:
            label = self._text("dt.title.coarse", recommended=f"{recommended:g}")
        if widget.name != label:
            widget.name = label

    # -- requests from the controls, carried out by the next tick ------------------------
    def _apply_requests(self) -> None:
        """Rebuild, reset and re-style what the controls asked for."""
        rebuilt = set()
        errors, self._notes = self._notes, []
        if self._rebuild_requested:
            names = list(self.integrators)
            if not names:
                errors.append(self._text("msg.choose_integrator"))
            for name in sorted(self._rebuild_requested) if names else ():
                before = self.runs[name]
                error = self._rebuild(name, names)
                if error:
                    errors.append(error)
                if self.runs[name] is not before:
                    rebuilt.add(name)
            self._rebuild_requested.clear()
            self._show_error(" ".join(errors))
        if self._method_requested is not None:
            (definition,) = self._method_requested
            self._method_requested = None
            result = self.live.set_method(definition)
            self.method_editor.show_result(result)
            method = self.live.method
            self._show_legend()  # the user's method has an entry of its own, last
            for name, models in self.panels.items():
                if method is not None:
                    models.user_labels[method.name] = method_label(method)
                if result["results"]:
                    rebuilt.add(name)
        if self._reset_requested:
            self._reset_requested = False
            for name, run in self.runs.items():
                if self._attempt(name, "restarting it", run.reset) is not _FAILED:
                    rebuilt.add(name)
        for name in rebuilt:
            self._show_run(name)
        if self._view_requested:
            self._view_requested = False
            for name, models in self.panels.items():
                self._attempt(
                    name,
                    "switching its plots",
                    functools.partial(
                        models.set_view,
                        energy_mode=self.energy_mode,
                        log_scale=self.log_scale,
                        show_exact=self.show_exact,
                        show_phase=self.show_phase,
                    ),
                )
                self._attempt(
                    name,
                    "hiding integrators",
                    models.set_hidden,
                    [*self.hidden, *self._method_hidden],
                )

    def _rebuild(self, name: str, integrators) -> str | None:
        """A new run of system ``name`` from its settings, or the core's objection: then
        the running simulation goes on unchanged and the fields show its settings again
        (the policy of :meth:`Live.configure`, the static page's too)."""
        settings = self.settings[name]
        params = {p.name: getattr(settings, p.name) for p in SYSTEMS[name].PARAMS}
        # while one of its bodies is dragged, the scene keeps its layout (the pointer is
        # mapped against it: _drag_move); the release fits the view to the new state
        dragged = self._drag is not None and self._drag["system"] == name
        result = self.live.configure(name, params, settings.dt, integrators, keep_view=dragged)
        if result["errors"]:  # the fields show what runs
            run = self.runs[name]
            self._reverting = True
            try:
                settings.param.update(dt=run.dt, **run.system.params)
            finally:
                self._reverting = False
        # a refused value in the dashboard's language (from its parts); anything else as
        # the core said it
        said = result.get("refused") and self.lang != i18n.DEFAULT_LANGUAGE
        said = said and i18n.refusal_text(result["refused"], self.lang)
        return said or " ".join(result["errors"]) or None

    def _request_method(self, definition: dict | None) -> None:
        """Run the user's method ``definition`` (None: remove it) from the next update."""
        self._method_requested = (definition,)

    # -- direct manipulation (the static page's static/js/drag.js does the same) ----------
    def _drag_start(self, name: str, event) -> None:
        run = self.runs.get(name)
        if run is None or event.x is None or event.y is None:
            return
        scene = run.scene
        # a fingertip's margin: 3 % of the view's width
        grab = 0.03 * abs(scene.x_range[1] - scene.x_range[0])
        hidden = set(self.hidden)
        states = [
            None if lane_name in hidden else lane.q
            for lane_name, lane in zip(run.integrators, run.runner.lanes)
        ]
        found = scene.body_at(states, event.x, event.y, grab)
        if found is None or run.integrators[found[0]] in hidden:
            return
        self._drag = {"system": name, "lane": found[0], "ball": found[1], "clamped": {}}
        self.live.hold(name, True)
        self._drag_move(name, event)

    def _drag_move(self, name: str, event) -> None:
        drag = self._drag
        if drag is None or drag["system"] != name or event.x is None or event.y is None:
            return
        run = self.runs[name]
        wanted = run.scene.dragged_params(drag["lane"], drag["ball"], event.x, event.y)
        declared = {p.name: p for p in SYSTEMS[name].PARAMS}
        # a millionth of the view: finer than any pixel, and a short number in the fields
        digits = max(0, 6 - math.ceil(math.log10(abs(run.scene.x_range[1]))))
        values, drag["clamped"] = {}, {}
        for key, value in wanted.items():
            if declared[key].kind == "float":
                value = round(value, 3 if key != "x0" else digits)
            kept, clamped = clamp_to(declared[key], value)
            if clamped:
                drag["clamped"][key] = (value, kept)
            values[key] = kept
        # each new value rebuilds the run (at t = 0, paused while held): the preview
        self.settings[name].param.update(**values)

    def _drag_end(self, name: str, event) -> None:
        drag = self._drag
        if drag is None or drag["system"] != name:
            return
        self._drag_move(name, event)
        self._drag = None
        self.live.hold(name, False)
        declared = {p.name: p for p in SYSTEMS[name].PARAMS}
        clamped = [(declared[key], value, kept) for key, (value, kept) in drag["clamped"].items()]
        if clamped:  # in the dashboard's language, as the static page says it (drag.js)
            self._notes.append(i18n.drag_note(name, clamped, self.lang))
        # a run whose view fits the new state (while held it kept the old one's layout); the
        # notes go with it
        self._rebuild_requested.add(name)

    def tell(self, text: str) -> None:
        """Say ``text`` in the message line, now or, when changes wait for the next tick
        (a link's settings), with what they say (which would otherwise clear it)."""
        if self._rebuild_requested:
            self._notes.append(text)
        else:
            self._show_error(text)

    def _show_error(self, text: str) -> None:
        if text:
            self.message.object = html.escape(text)  # it may quote what the user typed
            self.message.visible = True
        elif self.message.visible:
            self.message.visible = False

    def _request_rebuild(self, name: str) -> None:
        if not self._reverting:
            self._rebuild_requested.add(name)

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

    def _apply_settings(self, settings: dict, reset: bool) -> None:
        """Show the view ``settings`` describe (``scenarios.parse_query``'s keys): with
        ``reset`` what they leave out goes back to its default (a lesson), else it stays (a
        link's own keys over its lesson)."""
        if "systems" in settings:  # in the order of its link (as on the static page)
            shown = [name for name in settings["systems"] if name in self.systems]
            self.shown = shown or list(self.systems)
        elif reset:
            self.shown = list(self.systems)
        keys = links.SETTING_PARAMS
        values = {keys[k]: v for k, v in settings.items() if k in keys}
        if reset:
            defaults = {key: self.param[key].default for key in keys.values()}
            values = {**defaults, **values}
        self.param.update(**values)
        for name in self.systems:
            declared = self.settings[name].param
            values = (
                {key: declared[key].default for key in declared if key != "name"} if reset else {}
            )
            values.update(settings.get("params", {}).get(name, {}))
            if name in settings.get("dt", {}):
                values["dt"] = settings["dt"][name]
            if values:
                self.settings[name].param.update(**values)
        for name in settings.get("geometry", []):  # the geometry views it opens
            if name in self.geometries:
                self.geometries[name].open()

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

    def _grey_log_scale(self) -> None:
        if hasattr(self, "_log_checkbox"):
            breakdown = self.energy_mode == "breakdown"
            self._log_checkbox.disabled = breakdown
            self._log_tip.visible = breakdown

    def _study_input(self, name: str) -> tuple[dict, list[str]]:
        """What a study of system ``name`` runs: the live run's parameters and integrators."""
        run = self.runs.get(name)
        params = dict(run.system.params) if run is not None else {}
        return params, list(self.integrators)

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


if __name__.startswith("bokeh_app"):  # `panel serve` on this file
    from integrator_lab.server.server import create_app

    create_app().servable(title=TITLE)
