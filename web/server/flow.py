"""The per-tick flow of a dashboard: advance the simulations, send one update, pace by the
page's acknowledgements.

:class:`FlowMixin`, a part of :class:`~integrator_lab.server.app.Dashboard`, owns the
periodic callback's work (:meth:`~FlowMixin._tick`): carry out what the controls asked for
(:class:`~integrator_lab.server.changes.ChangesMixin`), advance every system by the wall time
since the last tick within this session's share of the server
(:class:`~integrator_lab.server.sessions.ServerLoad`), and send everything new as one flat
array on the carrier (:meth:`~FlowMixin._send_frames`), which ``js/apply_frames.js``
unpacks into the plots and acknowledges on the echo. Flow control: a page that falls behind
in acknowledging gets no update until it catches up (:meth:`~FlowMixin._browser_ready`).
Also what a system's failure does to its panel, and the showing of a new or reset run.

Its state (:meth:`~FlowMixin._init_flow`): ``ticks``, ``updates``, ``_acked``, ``_ack_due``,
``_last_tick``, ``_last_update``, ``_next_status``, ``_status_due``, ``_served``,
``_fresh``, ``_fresh_since``, ``_moved``, ``_diverged``, ``_carrier`` and ``_echo``; set
when first needed, ``_tick_failure`` and ``_method_stops_told`` (what was said once). It
also uses the dashboard's ``playing``, ``speed``, ``lang``, ``systems``, ``runs``,
``live``, ``panels``, ``studies``, ``geometries``, ``system_messages``, ``method_editor``,
``session_id``, ``_layout``, ``_method_requested`` and ``_steps_requested`` (which it
takes), and its ``_apply_requests``, ``_show_error`` and ``_label_dt``.
"""

from __future__ import annotations

import html
import json
import logging
import time
from collections import deque

import numpy as np
import panel as pn
from bokeh.core.property.validation import validate
from bokeh.models import ColumnDataSource

from integrator_lab.core import INTEGRATORS
from integrator_lab.server import transport
from integrator_lab.server.page import page_script
from integrator_lab.server.sandbox import off_loop
from integrator_lab.server.sessions import ACK_EVERY, LOAD, browser_ready, session_label
from integrator_lab.views import i18n
from integrator_lab.views.energy_figures import MARKS
from integrator_lab.views.live import SystemRun
from integrator_lab.views.scene import exact_curve
from integrator_lab.views.shared import (
    ROLLOVER,
    STREAM_INTERVAL_MS,
    describe_error,
    frame_layout,
)

#: period of each session's callback (ms): a little over 20 updates per second
TICK_MS = 45
#: the time and real-time factor above each panel change this often (s): a new text
#: re-lays out the whole page in the browser, far costlier than moving the plots
STATUS_PERIOD = 0.5
#: updates whose bodies' places are kept, per system, for a press to be hit-tested against
#: what the page shows (a page is at most a few updates behind: see sessions.browser_ready)
SENT_STATES_KEPT = 8
#: longest wall time one tick covers (s): after a stall the clock skips the rest
MAX_TICK_WALL = 0.25
# the dashboard's log, by the name it has always had (its module's, app)
log = logging.getLogger("integrator_lab.server.app")
#: what ``Dashboard._attempt`` returns when the action raised (the changes mixin checks for it)
FAILED = object()


class FlowMixin:
    """The per-tick flow of the dashboard (see the module's docstring)."""

    def _init_flow(self) -> None:
        """The flow's state, before the first tick: nothing sent, every system fresh."""
        # the oldest update that asked for an acknowledgement not received yet: its
        # sequence number and when it was sent (see stalled_for)
        self._ack_due: tuple[int, float] | None = None
        self._last_tick = None
        self._next_status = 0.0
        self._status_due = True
        self.ticks = 0
        # each update travels as one array on the carrier; the page applies it and echoes
        # its sequence number back (flow control: see _browser_ready and _on_echo)
        self.updates = 0
        self._acked = 0
        self._last_update = 0.0
        self._last_ack = 0.0  # when the last acknowledgement came (perf_counter s)
        self._fresh: set[str] = set(self.systems)  # systems whose next frame replaces all
        # a system stays fresh until the page acknowledges a frame that carried it so: a
        # frame sent while the page is still loading its document is lost (see _on_echo)
        self._fresh_since: dict[str, int] = {}
        self._served = False  # ticking in a server session (not a notebook)
        # a page is connected (as of the last tick): a session waiting for its page (which
        # may never come: transport.FIRST_CONNECT_GRACE) takes no share of the server's CPU
        self.connected = False
        self._carrier = ColumnDataSource(data={"buf": np.zeros(1)}, name="flow:carrier")
        self._echo = ColumnDataSource(name="flow:echo")
        self._carrier.js_on_change(
            "tags",
            page_script(
                "apply_frames",
                echo=self._echo,
                rollover=ROLLOVER,
                interval=STREAM_INTERVAL_MS,
                layout=frame_layout(),
                integrators=list(INTEGRATORS),
                marks=MARKS,
            ),
        )
        self._echo.on_change("tags", self._on_echo)
        # where each of the last updates left every lane's bodies, per system: (sequence
        # number, run, states); the page shows one of these, not the run as it is now
        self._sent_states: dict[str, deque] = {}
        self._moved: set[str] = set()  # systems that moved since the last update
        self._diverged = {name: {} for name in self.systems}  # as last shown in the plots

    @property
    def acknowledged(self) -> int:
        """The sequence number of the last update the page acknowledged (0: none yet)."""
        return self._acked

    def stalled_for(self, now: float) -> float:
        """How long (s) the page has owed an acknowledgement (0 when it owes none)."""
        return 0.0 if self._ack_due is None else now - self._ack_due[1]

    # -- the periodic callback ------------------------------------------------------------
    async def _tick(self) -> None:
        """Carry out what the controls asked for, advance, and send every change of this
        tick to the browser in one message, waiting until it is written."""
        now = time.perf_counter()
        wall = min(max(now - self._last_tick, 0.0), MAX_TICK_WALL)
        self._last_tick = now
        doc = pn.state.curdoc
        session = transport.server_session(doc)
        self.connected = session is None or session.connection_count > 0
        if not self.runs or not self.connected:
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
        return browser_ready(
            self.updates - self._acked,
            acknowledged=self._acked > 0,
            since_update=now - self._last_update,
            since_ack=now - self._last_ack,
        )

    def _on_echo(self, attr, old, new) -> None:
        if new:
            self._acked = max(self._acked, int(new[0]))
            self._last_ack = time.perf_counter()
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

    # -- a system that fails stops alone, with why on its panel ----------------------------
    def _working(self) -> list:
        """(name, run) of the systems that have not failed."""
        return self.live.live_items()

    def _attempt(self, name: str, what: str, action, *args):
        """``action(*args)``, this view's own work on system ``name``. Should it raise, that
        system stops (as when its computation raises): returns :data:`FAILED`."""
        try:
            return action(*args)
        except Exception as exc:  # noqa: BLE001 - whatever a system's computation raises
            self.live.fail(name, what, exc)
            return FAILED

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

    # -- the update: one frame of every system, as one message ----------------------------
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
            if frame is FAILED:
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
            self._tell_method_stopped(name, frame["diverged"], frame.get("reasons") or {})
            self._show_alerts(name, frame.get("alerts") or [])
            if self._status_due:
                self.panels[name].status.text = i18n.status_text(
                    self.lang, frame["time"], run.rtf, paused=not self.playing
                )
        self._moved.clear()
        self.updates += 1
        for entry in systems:
            run = self.runs[entry["name"]]
            states = [list(lane.q) for lane in run.runner.lanes]
            kept = self._sent_states.setdefault(entry["name"], deque(maxlen=SENT_STATES_KEPT))
            kept.append((self.updates, run, states))
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
            "playing": self.playing,  # paused (a step): the plots take the samples at once
            "systems": systems,
        }
        if meta["ack"] and self._ack_due is None:
            self._ack_due = (self.updates, time.perf_counter())
        self._carrier.tags = [json.dumps(meta, allow_nan=False)]

    def _shown_states(self, name: str) -> list[list[list[float]]]:
        """The states of system ``name``'s lanes the page may be showing, the likeliest
        first: as of the last update it acknowledged (painted), then as sent since (under
        way, or painted and not acknowledged yet), then the run's as it is now."""
        run = self.runs[name]
        sent = [(seq, states) for seq, r, states in self._sent_states.get(name, ()) if r is run]
        painted = [i for i, (seq, _) in enumerate(sent) if seq <= self._acked]
        start = painted[-1] if painted else 0
        now = [list(lane.q) for lane in run.runner.lanes]
        return [states for _, states in sent[start:]] + [now]

    def _tell_method_stopped(self, name: str, diverged: dict, reasons: dict) -> None:
        """The user's method stopped on system ``name`` (its step raised, its process was
        ended, or it diverged): when and why, under the editor's status (its order), in the page's
        language (the static page's words, ``editor.stopped``)."""
        method = self.live.method
        reason = reasons.get(method.name) if method is not None else None
        told = getattr(self, "_method_stops_told", None)
        if told is None or told[0] is not method:
            told = self._method_stops_told = (method, set())
        if method is not None and reason and reason not in told[1]:
            told[1].add(reason)
            at = diverged[method.name]  # (reasons and times come from the same lanes)
            self.method_editor.tell_stopped(
                i18n.text(
                    "editor.stopped",
                    self.lang,
                    system=i18n.text(f"system.{name}", self.lang),
                    name=method.name,
                    at=f"{at:.4g}",
                    why=reason,
                )
            )

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

        if self._attempt(name, "drawing its new run", show) is FAILED:
            return
        if self.system_messages[name].visible:
            self.system_messages[name].visible = False
        self._mark_diverged(name, {})
        self._fresh.add(name)
        self._fresh_since.pop(name, None)  # an acknowledgement must be of the new run
        self._label_dt(name)
