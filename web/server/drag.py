"""Direct manipulation: a body dragged in a scene sets its system's initial state (the
static page's ``static/js/drag.js`` does the same).

:class:`DragMixin`, a part of :class:`~integrator_lab.server.app.Dashboard`, owns the
scenes' pan events (:meth:`~DragMixin._init_drag`) and the drag they make: the press picks
the body under the pointer (of a lane drawn, where the page drew it: the last updates'
states, ``FlowMixin._shown_states``), holds its system, and each move sets the
system's settings to where the body is, clamped to the core's bounds (each new value
rebuilds the run at t = 0: the preview); the release lets the system go and asks for a
rebuild whose view fits the new state, with a note of any value clamped.

Its state: ``_drag`` (``{system, lane, ball, clamped}`` while a body is held, else None).
It uses the dashboard's ``systems``, ``panels``, ``runs``, ``live``, ``settings``,
``hidden``, ``lang``, ``_notes`` and ``_rebuild_requested``.
"""

from __future__ import annotations

import functools

from bokeh import events
from bokeh.core.property.descriptors import UnsetValueError

from integrator_lab.core import SYSTEMS
from integrator_lab.views import i18n
from integrator_lab.views.drag import DRAGGABLE, drag_values, grabbed

#: the scene's width in pixels assumed before the browser has said it (``inner_width``)
ASSUMED_WIDTH_PX = 600


class DragMixin:
    """The scenes' drags (see the module's docstring)."""

    def _init_drag(self) -> None:
        """Listen to the pan events of every draggable system's scene."""
        self._drag: dict | None = None  # {system, lane, ball, clamped} while one is held
        for name in set(self.systems) & set(DRAGGABLE):
            fig = self.panels[name].scene_fig
            fig.on_event(events.PanStart, functools.partial(self._drag_start, name))
            fig.on_event(events.Pan, functools.partial(self._drag_move, name))
            fig.on_event(events.PanEnd, functools.partial(self._drag_end, name))
            # the browser reports the plot's width in pixels to a server that listens for it
            fig.on_change("inner_width", _width_known)

    def _drag_start(self, name: str, event) -> None:
        run = self.runs.get(name)
        if run is None or event.x is None or event.y is None:
            return
        # the body under the pointer where the page drew it: the page shows an update a
        # round trip and a paint old, and a swinging bob has moved on since in the run
        hidden = set(self.hidden)
        found = None
        for shown in self._shown_states(name):
            states = [
                None if lane_name in hidden else q for lane_name, q in zip(run.integrators, shown)
            ]
            found = grabbed(run.scene, states, event.x, event.y, self._drag_pixel(name))
            if found is not None:
                break
        if found is None:
            return
        self._drag = {"system": name, "lane": found[0], "ball": found[1], "clamped": {}}
        self.live.hold(name, True)
        self._drag_move(name, event)

    def _drag_move(self, name: str, event) -> None:
        drag = self._drag
        if drag is None or drag["system"] != name or event.x is None or event.y is None:
            return
        run = self.runs[name]
        values, drag["clamped"] = drag_values(
            run.scene,
            SYSTEMS[name].PARAMS,
            run.system.params,
            drag["lane"],
            drag["ball"],
            event.x,
            event.y,
            self._drag_pixel(name),
        )
        # each new value rebuilds the run (at t = 0, paused while held): the preview
        self.settings[name].param.update(**values)

    def _drag_pixel(self, name: str) -> float:
        """One screen pixel of system ``name``'s scene, in view units (its x range over the
        plot's inner width, which the browser reports)."""
        run, fig = self.runs[name], self.panels[name].scene_fig
        try:
            width = fig.inner_width or ASSUMED_WIDTH_PX
        except UnsetValueError:  # not reported yet
            width = ASSUMED_WIDTH_PX
        return abs(run.scene.x_range[1] - run.scene.x_range[0]) / width

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


def _width_known(_attr: str, _old: object, _new: object) -> None:
    """Nothing to do: listening makes the browser send the plot's inner width."""
