"""What the dashboard is asked to change, checked, and carried out by the next update.

:class:`ChangesMixin`, a part of :class:`~integrator_lab.server.app.Dashboard`, owns the way
from a request to a run: the controls, a lesson or a link ask for a change (a system's
settings, the integrators, Step, Reset, the user's method, a view setting); a watcher notes
it (``_rebuild_requested``, ``_reset_requested``, ``_steps_requested``, ``_view_requested``,
``_method_requested``), and the next update carries it out (:meth:`~ChangesMixin._apply_requests`,
called by the tick: :class:`~integrator_lab.server.flow.FlowMixin`). A value the core refuses
keeps the running simulation unchanged, sets the fields back to what runs, and says why in
the message line, in the dashboard's language (:meth:`~ChangesMixin._rebuild`); a list of
shown systems that makes no sense is refused the same way. Also the view a lesson or a link
describes (:meth:`~ChangesMixin._apply_settings`, :meth:`~ChangesMixin.apply_link`) and the
message line itself (:meth:`~ChangesMixin.tell`).

Its state (:meth:`~ChangesMixin._init_changes`): the requests above, ``_reverting``,
``_notes`` and ``message``. It also uses the dashboard's declared parameters and
``systems``, ``settings``, ``panels``, ``runs``, ``live``, ``geometries``,
``method_editor``, ``_columns``, ``_picker``, ``_drag`` and ``_method_hidden``, and its
``_text``, ``_attempt``, ``_show_run``, ``_show_legend``, ``_show_systems`` and
``_set_picker``.
"""

from __future__ import annotations

import functools
import html

import panel as pn

from integrator_lab.core import SYSTEMS
from integrator_lab.server import links
from integrator_lab.server.flow import FAILED
from integrator_lab.views import i18n
from integrator_lab.views.live import method_label


class ChangesMixin:
    """Requests, checked and carried out (see the module's docstring)."""

    def _init_changes(self) -> None:
        """Nothing asked for yet, nothing to say."""
        self._reverting = False  # settings are being set back to the ones in force
        self._method_requested: tuple[dict | None] | None = None
        # what the controls asked for; the next update carries it out (see _tick)
        self._rebuild_requested: set[str] = set()
        self._reset_requested = False
        self._steps_requested = 0
        self._view_requested = False
        self._notes: list[str] = []  # said with the next rebuild's messages
        self.message = pn.pane.Alert(
            "",
            alert_type="danger",
            visible=False,
            sizing_mode="stretch_width",
            name="message",
            css_classes=["il-message"],
        )

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
                if self._attempt(name, "restarting it", run.reset) is not FAILED:
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

    def _request_rebuild(self, name: str) -> None:
        if not self._reverting:
            self._rebuild_requested.add(name)

    # -- what the message line says -------------------------------------------------------
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

    # -- a view described: a lesson's or a link's settings --------------------------------
    def apply_link(self, link: dict) -> None:
        """Show what a link set (:func:`links.read_link`): its lesson first, then its own
        settings over the lesson's, then the integrators it hides."""
        if link.get("lesson"):
            self.lesson = link["lesson"]
        self._apply_settings(link, reset=False)
        if "hide" in link:
            self.hidden = [n for n in link["hide"] if n in self.integrators]

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
