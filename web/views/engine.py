"""The dashboard's engine: the Python end of the page's message protocol, for every host.

The page's front end (``static/js``) talks to an engine through one protocol
(``static/types/protocol.d.ts``: ``PageMessage`` in, ``WorkerMessage`` out). :class:`Engine`
takes the page's messages (:meth:`Engine.handle`) and answers with the protocol's messages; on
its host's clock (:meth:`Engine.tick`, about 60 times a second) it advances the live runs,
the studies and the geometry views and says what changed. A host only moves messages: the
static page's Web Worker (Pyodide) posts them, a Panel session sends them over its component;
neither decides anything the engine decides (what runs, its pacing, the baked hand-off).

Pure Python (standard library and the core): it runs in the page's worker.

**Pacing.** At most one frame is in flight: until the page acknowledges a frame (``ack``),
ticks go on simulating and their samples wait in the runners' bounded buffers, so a slow page
never queues work; a frame unacknowledged for :data:`STALL` seconds (a hidden tab) stops the
simulation until the page draws again.

**The baked start.** The page animates the default view's first seconds, computed at build
time by the same Python (:meth:`Live.baked_tick`), while Python boots. ``init`` with
``baked`` builds the runs without a word and holds; :meth:`Engine.catch_up` computes those
frames again without sending them (:meth:`Live.forward`); ``handoff`` goes back to the frame the
page showed last if that was earlier, and from there ticks on the host's clock: the first
frame's samples follow the last baked sample, with no seam.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from integrator_lab.views.live import Live

#: the host's clock ticks this often (s)
TICK = 1.0 / 60.0
#: a running study (views.study) takes this much of each tick, after the live view's share: the
#: live view stays smooth and the study still finishes in seconds
STUDY_SLICE = 0.006
#: a frame unacknowledged this long (s): the page is hidden, the simulation waits for it
STALL = 1.0
#: the open geometry views are redrawn this often (s)
GEOMETRY_PERIOD = 0.1

Message = dict[str, Any]


def last_line(error: BaseException) -> str:
    """What the page shows of an error: its type and message, not a traceback."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[-1]}" if text else type(error).__name__


class Engine:
    """One viewer's engine (a page's worker, or a Panel session): a :class:`Live` and, once
    asked for, the studies and geometry views, driven by the page's messages.

    ``clock``: seconds, monotonic (the host's; tests pass their own)."""

    def __init__(
        self, live: Live | None = None, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.live = live if live is not None else Live()
        self.clock = clock
        self.studies: Any = None  # views.study.Studies, made at the first study
        self.geometries: Any = None  # views.geometry.Geometries, made at the first view
        self.geometry_due = 0.0
        self.in_flight = False  # a frame was sent and not yet acknowledged
        self.sent_at = 0.0
        self.force_next = True  # send every system in the next frame (after a change)
        self.last: float | None = None  # the previous tick's time
        #: the baked start while the page plays it: ``{ticks, systems, integrators}``
        self.bake: dict[str, Any] | None = None
        self.forwarded = -1  # the last baked frame computed here (-1: the runs are fresh)
        self.holding = False  # the page plays baked frames: no tick until its "handoff"

    # -- the page's messages ----------------------------------------------------------------
    def handle(self, message: Message) -> list[Message]:
        """The answers to one of the page's messages (an error is an answer too)."""
        out: list[Message] = []
        try:
            self._handle(message, out)
        except Exception as exc:  # noqa: BLE001 - the page says it; the engine goes on
            out.append({"type": "error", "text": last_line(exc)})
        return out

    def handle_json(self, text: str) -> list[Message]:
        """:meth:`handle` of a message as JSON text: the worker's way in (JavaScript's null
        arrives as None, and nothing is a proxy to release)."""
        try:
            message = json.loads(text)
        except ValueError as exc:
            return [{"type": "error", "text": f"a message that is not JSON: {exc}"}]
        if not isinstance(message, dict):
            return [{"type": "error", "text": "a message that is not an object"}]
        return self.handle(message)

    def _handle(self, message: Message, out: list[Message]) -> None:
        kind = message.get("type")
        live = self.live
        if kind == "init":
            if message.get("names"):
                live.set_shown_names(message["names"])
            live.set_speed(message.get("speed", 1.0))
            live.set_playing(message.get("playing", True))
            baked = message.get("baked")
            if baked:
                # the page shows the baked layouts: the runs are built without a word
                self.bake = {
                    "ticks": baked,
                    "systems": message["systems"],
                    "integrators": message["integrators"],
                }
                self.holding, self.forwarded = True, -1
            for name, settings in message["systems"].items():
                self._configure(
                    out,
                    name,
                    settings.get("params"),
                    settings.get("dt"),
                    message.get("integrators"),
                    silent=bool(baked),
                )
            out.append({"type": "ready"})
        elif kind == "handoff":
            if self.holding:
                self._forward_to(message["frame"])
                self.holding, self.bake = False, None
            if message.get("then"):
                self._handle(message["then"], out)  # before any tick: a pause stops here
            # the first tick covers one frame's wall time, as the baked frames did; its frame
            # goes in any case: the page waits for it
            now = self.clock()
            self.last, self.force_next, self.in_flight = now - TICK, True, False
            out.extend(self.tick(now))
        elif kind == "configure":
            # with integrators: a system the page shows again (else it keeps its own)
            self._configure(
                out,
                message["system"],
                message.get("params"),
                message.get("dt"),
                message.get("integrators"),
                request=message.get("request"),
            )
        elif kind == "remove":
            live.remove(message["system"])
        elif kind == "integrators":
            for result in live.set_integrators(message["names"]):
                out.append({"type": "layout", **result})
            self.force_next = True
        elif kind == "method":
            self._method(message, out)
        elif kind == "names":
            live.set_shown_names(message["names"])
        elif kind == "speed":
            live.set_speed(message["value"])
        elif kind == "play":
            live.set_playing(message["value"])
        elif kind == "hold":
            live.hold(message["system"], bool(message.get("value")))
        elif kind == "step":
            live.set_playing(False)
            live.step()
        elif kind == "reset":
            for result in live.reset():
                out.append({"type": "layout", **result})
            self.force_next = True
        elif kind == "study":
            self._study(message, out)
        elif kind == "study-stop":
            if self.studies is not None:
                self.studies.stop(message["system"])
        elif kind == "geometry":
            if self.geometries is None:
                from integrator_lab.views.geometry import Geometries

                self.geometries = Geometries()
            self.geometries.set_open(
                message["system"], bool(message.get("open")), message.get("lang") or "en"
            )
        elif kind == "ack":
            # the page is ready for more: answer now rather than at the next tick, so that
            # every animation frame can show new data
            self.in_flight = False
            out.extend(self.tick(self.clock()))
        else:
            out.append({"type": "error", "text": f"unknown message type {kind!r}"})

    def _configure(
        self,
        out: list[Message],
        name: str,
        params: dict[str, Any] | None,
        dt: float | None,
        integrators: list[str] | None,
        silent: bool = False,
        request: int | None = None,
    ) -> None:
        result = self.live.configure(name, params, dt, integrators)
        if not silent:
            # (request: the page's number for it, echoed: static/js/worker.js configureSystem)
            answer = {"type": "layout", **result}
            if request is not None:
                answer["request"] = request
            out.append(answer)
        self.force_next = True

    def _method(self, message: Message, out: list[Message]) -> None:
        try:
            result = self.live.set_method(message.get("definition"))
        except Exception as exc:  # noqa: BLE001 - a definition the core cannot read
            out.append(
                {"type": "method", "id": message.get("id"), "method": None,
                 "problems": [last_line(exc)]}
            )  # fmt: skip
            return
        for layout in result["results"]:
            out.append({"type": "layout", **layout})
        out.append(
            {"type": "method", "id": message.get("id"), "method": result["method"],
             "problems": result["problems"]}
        )  # fmt: skip
        self.force_next = True

    def _study(self, message: Message, out: list[Message]) -> None:
        system = message["system"]
        try:
            if self.studies is None:
                from integrator_lab.views.study import Studies

                self.studies = Studies()
            started = self.studies.start(
                system,
                message.get("params") or {},
                message.get("integrators") or [],
                message.get("settings") or {},
            )
        except Exception as exc:  # noqa: BLE001 - said in the study view
            out.append({"type": "study", "system": system, "error": last_line(exc)})
            return
        out.append({"type": "study", **started})

    # -- the baked start --------------------------------------------------------------------
    def _forward_to(self, frame: int) -> None:
        """Compute the baked frames up to ``frame`` (from t = 0 again if this engine went
        past it), sending nothing."""
        bake = self.bake
        if bake is None:
            return
        if self.forwarded > frame:
            for name, settings in bake["systems"].items():
                self.live.configure(
                    name, settings.get("params"), settings.get("dt"), bake["integrators"]
                )
            self.forwarded = -1
        if frame > self.forwarded:
            self.live.forward(self.forwarded + 1, frame + 1)
        self.forwarded = frame

    def catch_up(self) -> None:
        """While the page plays the baked frames: compute them all now (the host calls this
        as soon as Python is up), so that the hand-off costs nothing when it comes."""
        if self.holding and self.bake is not None and self.forwarded < self.bake["ticks"] - 1:
            self._forward_to(self.bake["ticks"] - 1)

    # -- the host's clock -------------------------------------------------------------------
    def tick(self, now: float | None = None) -> list[Message]:
        """What the host's clock brings at ``now`` (default: the engine's clock): a frame of
        the systems that moved (unless one is in flight), studies' and geometry views'
        updates. Errors are answers (``error``), and the rest goes on."""
        now = self.clock() if now is None else now
        wall = 0.0 if self.last is None else now - self.last
        self.last = now
        out: list[Message] = []
        if not self.holding:
            try:
                if not self.in_flight:
                    frames = self.live.tick(wall, self.force_next)
                    self.force_next = False
                    if frames:
                        self.in_flight, self.sent_at = True, now
                        out.append({"type": "frame", "systems": frames})
                elif now - self.sent_at < STALL:
                    # the page is busy: keep simulating, the samples wait in the runners
                    self.live.advance(wall)
                # else the page draws nothing (a hidden tab): the simulation waits for it
            except Exception as exc:  # noqa: BLE001
                out.append({"type": "error", "text": last_line(exc)})
        if self.studies is not None and self.studies.running:
            try:
                out.extend({"type": "study", **u} for u in self.studies.step(STUDY_SLICE))
            except Exception as exc:  # noqa: BLE001
                out.append({"type": "error", "text": f"Study: {last_line(exc)}"})
        if self.geometries is not None and self.geometries.running and now >= self.geometry_due:
            self.geometry_due = now + GEOMETRY_PERIOD
            try:
                out.extend({"type": "geometry", **u} for u in self.geometries.step(self.live))
            except Exception as exc:  # noqa: BLE001
                out.append({"type": "error", "text": f"Geometry: {last_line(exc)}"})
        return out
