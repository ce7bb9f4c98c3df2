"""The dashboard's widgets and layout: what :class:`~integrator_lab.server.app.Dashboard`
shows, built once per session, and the widgets that follow its state.

:class:`LayoutMixin` builds the page's layout (:meth:`~LayoutMixin._build_layout`): the
header of controls (each from its declared parameter), the Lessons menu, the system picker,
the legend, and per system its column (plots, time step row, settings, download, study and
geometry views). It then keeps those widgets in step with the state: which systems show and
in what order, the legend's entries, the time step's label and slider mark, Log scale greyed
out for the energy breakdown.

It uses the dashboard's declared parameters and ``systems``, ``settings``, ``panels``,
``live``, ``runs``, ``system_messages``, ``studies``, ``geometries``, ``message``,
``method_editor``, ``lesson_note``, ``lesson_replay``, ``_notes``, the flow's ``_carrier``
and ``_echo`` (they ride along on the layout), and its ``_text``, ``_show_error``, ``csv``
and the page's parts (:class:`~integrator_lab.server.page.PageMixin`). It fills
``_columns``, ``_dt_widgets`` and ``_dt_sliders``, sets ``_method_hidden`` and
``_view_requested`` from the legend, and sets ``legend``, ``_picker``, ``_picking``,
``_play_button``, ``_log_checkbox`` and ``_log_tip``, which exist only once the layout is
built (the dashboard's watchers test for them).
"""

from __future__ import annotations

import panel as pn
import param
from bokeh.models import Column, Spacer, Tooltip

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.server.controls import CHECKED_KINDS, checked_widget, settings_widgets
from integrator_lab.views import figures, i18n
from integrator_lab.views.live import method_label
from integrator_lab.views.scenarios import SCENARIOS
from integrator_lab.views.scene import color_of
from integrator_lab.views.shared import DT_RANGE, dt_at, dt_position, dt_scaled


class LayoutMixin:
    """The widgets and the layout of the dashboard (see the module's docstring)."""

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

    # -- the legend: a toggle per integrator drawn ---------------------------------------
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

    # -- labels that follow the state -----------------------------------------------------
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

    def _grey_log_scale(self) -> None:
        if hasattr(self, "_log_checkbox"):
            breakdown = self.energy_mode == "breakdown"
            self._log_checkbox.disabled = breakdown
            self._log_tip.visible = breakdown
