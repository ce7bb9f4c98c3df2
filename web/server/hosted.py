"""The page's own front end, hosted by the Panel server: one front end for every host.

The static page draws in the browser from the messages of a Python engine
(:class:`~integrator_lab.views.engine.Engine`) that runs in its Web Worker. Here the same
page (:func:`~integrator_lab.site.build.build_served_page`: the page's files, no Pyodide) is
shown in a frame of a :class:`Lab`, a Panel ESM component, and its engine runs in the Panel
session, in CPython: the page's protocol messages go to the frame's parent (static/start.js),
which carries them over the component's messages to :meth:`Lab._handle_msg`; the engine's
answers come back the same way. Every view, control, lesson, editor, language, link and
accessibility name is the page's by construction; the server holds one engine per viewer
and no Bokeh document of the dashboard.

A frame keeps the page's document its own: its element ids, its stylesheet (rules on
``html`` and ``body``) and its BokehJS documents, as on the static page. (A component's
shadow root would need every one of the page's ~150 lookups of ``document`` rewritten.)
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import functools
import http.server
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import panel as pn
import param
from panel.custom import JSComponent
from tornado.web import StaticFileHandler

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS
from integrator_lab.server.sessions import LOAD
from integrator_lab.views.engine import TICK, Engine, last_line
from integrator_lab.views.i18n import DEFAULT_LANGUAGE, LANGUAGES
from integrator_lab.views.live import Live
from integrator_lab.views.scenarios import SCENARIOS
from integrator_lab.views.shared import PANEL_SYSTEMS

#: the page's title
TITLE = "Integrator Lab"
#: where the server serves the page's files (the frame's address, relative to the app's)
ROUTE = "lab"

#: the component's JavaScript: the page in a frame, and the messages between the two
ESM = """
export function render({ model, el }) {
  const frame = document.createElement("iframe");
  frame.title = "Integrator Lab";
  // the address bar's view (served), else the component's own (a notebook)
  const served = model.follow_address;
  const url = new URL(model.src, location.href);
  const view = served ? location.search + location.hash : model.query;
  url.search = view.split("#")[0];
  url.hash = view.includes("#") ? view.slice(view.indexOf("#")) : "";
  if (model.lang && !url.searchParams.has("lang")) url.searchParams.set("lang", model.lang);
  frame.src = url.href;
  frame.style.cssText = "border:0;width:100%;height:100%;display:block;min-height:" +
    model.min_height_px + "px";
  const hear = (event) => {
    if (event.source !== frame.contentWindow || event.origin !== url.origin) return;
    const msg = event.data && event.data.integratorLab === "page" ? event.data.msg : null;
    if (!msg) return;
    if (msg.type === "location") {
      if (served) history.replaceState(history.state, "", msg.search + msg.hash);
      model.query = msg.search + msg.hash;
      return;
    }
    model.send_msg(msg);
  };
  window.addEventListener("message", hear);
  model.on("msg:custom", (msg) => {
    // the engine's answers, and the host's own word (a view set from Python: "apply")
    const kind = msg.type === "apply" ? "host" : "engine";
    frame.contentWindow?.postMessage({ integratorLab: kind, msg }, url.origin);
  });
  model.on("remove", () => window.removeEventListener("message", hear));
  return frame;
}
"""


#: every live :class:`Lab` of this process (for ``/status`` and the server's load)
LABS: weakref.WeakSet[Lab] = weakref.WeakSet()


def _playing() -> int:
    return sum(1 for lab in list(LABS) if lab.engine is not None and lab.engine.live.playing)


LOAD.playing = _playing  # each playing session's share of the server (sessions.ServerLoad)


class Lab(JSComponent):
    """The page's front end in a frame, its engine (``make_engine()``) in this session."""

    src = param.String(default=f"{ROUTE}/index.html", doc="the page's address")
    query = param.String(
        default="", doc="the page's view: its address's query and hash (kept in step)"
    )
    follow_address = param.Boolean(
        default=True, doc="open the address bar's view and keep the address bar in step"
    )
    min_height_px = param.Integer(default=600, bounds=(200, None))
    lang = param.String(default="", doc="the page's language unless its view names one")

    _esm = ESM

    def __init__(self, make_engine: Callable[[], Engine], **params: Any) -> None:
        params.setdefault("sizing_mode", "stretch_both")
        super().__init__(**params)
        self._make_engine = make_engine
        self.engine: Engine | None = None
        self._callback: Any = None
        self.started = time.monotonic()
        self.frames = 0  # frames sent to the page
        self.session = ""  # its session's name in /status (sessions.session_label)
        self._thread: ThreadPoolExecutor | None = None  # (see _run)
        self._queued = 0  # calls submitted to that thread and not answered yet
        LABS.add(self)

    # -- the page's messages ----------------------------------------------------------------
    def _handle_msg(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        if msg.get("type") == "spawn":  # the page started (or renewed) its engine
            self._new_engine()
            return
        if self.engine is None:
            self._new_engine()
        engine = self.engine
        check = getattr(engine.live, "check", None)  # (a sandbox's: server.sandbox.SandboxLive)
        if msg.get("type") == "method" and check is not None and msg.get("definition"):
            # a visitor's definition is checked in its sandbox, which can take seconds
            def checked() -> list[dict[str, Any]]:
                check(msg["definition"])
                return engine.handle(msg)

            self._run(checked, off_loop=True)
            return
        self._run(engine.handle, msg)

    # -- off the event loop -------------------------------------------------------------------
    # Every session shares the server's one event loop. While a visitor's Python method runs
    # (in its sandbox: each block of steps waits for the child, up to its time limit) or its
    # definition is checked, this session's engine is called on a thread of its own, one call
    # at a time and in order, so that no other session waits for it; its answers are sent from
    # the loop. The built-ins are called on the loop itself (a thread hop per tick costs more
    # than it saves).
    def _runs_code(self) -> bool:
        runs_code = getattr(self.engine.live, "runs_code", None) if self.engine else None
        return bool(runs_code and runs_code())

    def _run(self, call: Callable[..., list[dict[str, Any]]], *args: Any,
             off_loop: bool = False) -> None:  # fmt: skip
        """``call(*args)``'s answers, sent: at once on the loop, or from this session's thread
        (``off_loop``, a method running, or calls queued there: their order is kept)."""
        if not (off_loop or self._queued or self._runs_code()):
            self._send(call(*args))
            return
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="il-engine")
        engine = self.engine
        self._queued += 1
        future = self._thread.submit(call, *args)

        async def deliver() -> None:
            try:
                answers = await asyncio.wrap_future(future)
            except Exception as exc:  # noqa: BLE001 - said on the page
                answers = [{"type": "error", "text": last_line(exc)}]
            finally:
                self._queued -= 1
            if engine is self.engine:
                self._send(answers)

        pn.state.execute(deliver)

    def send_host(self, message: dict[str, Any]) -> None:
        """The host's own word to the page (``{"type": "apply", "query": ...}``)."""
        self._send_msg(message)

    def _new_engine(self) -> None:
        self.close()
        self.engine = self._make_engine()
        # background: no busy indicator churn (Panel's, over 40 % of a loaded server's time
        # with 30 sessions: bench_serve --profile), no log line per tick
        self._callback = pn.io.PeriodicCallback(
            callback=self._tick, period=round(TICK * 1000), log=False, background=True
        )
        self._callback.start()

    def _tick(self) -> None:
        if self.engine is None or (self._queued and self._runs_code()):
            return  # (a tick still under way on this session's thread: none piles up)
        self._run(self.engine.tick)

    def _send(self, answers: list[dict[str, Any]]) -> None:
        for answer in answers:
            if answer.get("type") == "frame":
                self.frames += 1
                for frame in answer["systems"].values():
                    frame["data"] = base64.b64encode(frame["data"].tobytes()).decode("ascii")
            self._send_msg(answer)

    def stats(self) -> dict[str, Any]:
        """What ``/status`` says of this viewer: its systems' simulated times and steps."""
        live = self.engine.live if self.engine is not None else None
        runs = live.runs if live is not None else {}
        return {
            "session": self.session,
            "frames": self.frames,
            "age": round(time.monotonic() - self.started, 3),
            "playing": bool(live and live.playing),
            "systems": {
                name: {"t": run.runner.time, "dt": run.dt, "rtf": run.rtf}
                for name, run in runs.items()
            },
        }

    def close(self) -> None:
        """Stop this viewer's engine (its session ended, or the page renewed it)."""
        if self._callback is not None:
            self._callback.stop()
            self._callback = None
        if self.engine is not None:
            close = getattr(self.engine.live, "close", None)
            if close is not None:
                close()  # a sandbox's child process
            self.engine = None
        if self._thread is not None:
            self._thread.shutdown(wait=False)  # (a call under way ends with its child)
            self._thread = None


def served_page_dir(code: str = "refused", host_origin: str | None = None) -> Path:
    """The page's files for this process (one folder per ``code`` and ``host_origin``), built
    once into a temporary folder that goes with the process; the arguments are
    :func:`~integrator_lab.site.build.build_served_page`'s."""
    key = (code, host_origin)
    if key not in _SERVED:
        from integrator_lab.site.build import build_served_page

        folder = Path(tempfile.mkdtemp(prefix="integrator-lab-page-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SERVED[key] = build_served_page(folder, code=code, host_origin=host_origin)
    return _SERVED[key]


_SERVED: dict[tuple[str, str | None], Path] = {}
_LOCAL: list[str] = []  # the loopback server's address, once started


def local_page_url() -> str:
    """The page's address on a loopback HTTP server of this process, started at the first
    call (a thread): for a dashboard shown where no server route serves the page (a
    notebook, whose browser runs on this machine). It serves the page's files only; the
    page talks to its engine through the component, as when served."""
    if not _LOCAL:
        folder = served_page_dir("refused", host_origin="*")
        handler = functools.partial(_QuietFiles, directory=str(folder))
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, daemon=True, name="il-page").start()
        _LOCAL.append(f"http://127.0.0.1:{httpd.server_address[1]}/index.html")
    return _LOCAL[0]


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    """The page's files, with no log line per request (a notebook's output)."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass


def page_route(code: str = "refused") -> tuple[str, type, dict[str, Any]]:
    """The server's route to the page's files (``extra_patterns`` of ``pn.serve``)."""
    return (
        rf"/{ROUTE}/(.*)",
        StaticFileHandler,
        {"path": str(served_page_dir(code)), "default_filename": "index.html"},
    )


#: the page's query keys a :class:`Dashboard`'s parameters write
QUERY_KEYS = ("systems", "integrators", "lesson", "lang", "play")


class Dashboard(pn.viewable.Viewer):
    """The Integrator Lab dashboard as a Panel object: the page's front end (:class:`Lab`),
    its engine in this Python process. Its declared parameters are the view, kept in step
    with the page both ways (and with the address bar, served); ``query`` is the whole view
    as the page's link query (``?systems=spring&integrators=rk4``)."""

    systems = param.ListSelector(
        default=list(PANEL_SYSTEMS), objects=list(PANEL_SYSTEMS), doc="the systems shown"
    )
    integrators = param.ListSelector(
        default=list(DEFAULT_INTEGRATORS),
        objects=list(INTEGRATORS),
        doc="the integrators that run on every system",
    )
    lesson = param.Selector(
        default=None, objects=[None, *(s.id for s in SCENARIOS)], doc="a lesson's view"
    )
    lang = param.Selector(
        default=DEFAULT_LANGUAGE, objects=list(LANGUAGES), doc="the language of the page"
    )
    playing = param.Boolean(default=True, doc="run the simulations (False: paused)")
    query = param.String(default="", doc="the whole view, as the page's link query")

    def __init__(
        self,
        make_engine: Callable[[], Engine] | None = None,
        follow_address: bool = False,
        **params: Any,
    ) -> None:
        super().__init__(**params)
        self._syncing = False
        if not self.query:
            self.query = self._query_from_params("")
        else:
            self._params_from_query(self.query)
        self.lab = Lab(
            make_engine or (lambda: Engine(Live(allow_code=False))),
            query=self._with_question(self.query),
            follow_address=follow_address,
        )
        if not follow_address:  # a notebook: the page comes from this process
            self.lab.src = local_page_url()
        self.lab.param.watch(self._page_moved, "query")
        self.param.watch(self._params_set, [*("systems", "integrators", "lesson", "lang"),
                                            "playing"])  # fmt: skip
        self.param.watch(self._query_set, "query")

    def __panel__(self) -> Lab:
        return self.lab

    @staticmethod
    def _with_question(query: str) -> str:
        return "?" + query.lstrip("?") if query and not query.startswith("#") else query

    def _query_from_params(self, query: str) -> str:
        """``query`` with this dashboard's parameters written in (the rest kept)."""
        kept = [(k, v) for k, v in parse_qsl(query.lstrip("?")) if k not in QUERY_KEYS]
        ours: list[tuple[str, str]] = []
        if self.lesson:
            ours.append(("lesson", self.lesson))
        if list(self.systems) != list(PANEL_SYSTEMS):
            ours.append(("systems", ",".join(self.systems)))
        if list(self.integrators) != list(DEFAULT_INTEGRATORS):
            ours.append(("integrators", ",".join(self.integrators)))
        if not self.playing:
            ours.append(("play", "0"))
        if self.lang != DEFAULT_LANGUAGE:
            ours.append(("lang", self.lang))
        return urlencode(ours + kept, safe=",")

    def _params_from_query(self, query: str) -> None:
        """Set the parameters from a query the page (or a link) holds; a value the page
        would refuse leaves its parameter as it was (the page says why)."""
        pairs = dict(parse_qsl(query.split("#")[0].lstrip("?")))
        values: dict[str, Any] = {
            "systems": list(PANEL_SYSTEMS),
            "integrators": list(DEFAULT_INTEGRATORS),
            "lesson": None,
            "lang": DEFAULT_LANGUAGE,
            "playing": True,
        }
        for key, name in (("systems", "systems"), ("integrators", "integrators")):
            if key in pairs:
                values[name] = [n for n in pairs[key].split(",") if n]
        if "lesson" in pairs:
            values["lesson"] = pairs["lesson"]
        if "lang" in pairs:
            values["lang"] = pairs["lang"]
        if "play" in pairs:
            values["playing"] = pairs["play"] != "0"
        valid = {}
        for name, value in values.items():
            if isinstance(value, list) and not value:
                continue  # (the page shows every system, or the defaults, and says why)
            try:
                self.param[name]._validate(value)
            except ValueError:
                continue
            valid[name] = value
        self._syncing = True
        try:
            self.param.update(valid)
        finally:
            self._syncing = False

    def _page_moved(self, event: param.parameterized.Event) -> None:
        """The page's view changed (its address): the parameters follow."""
        self._syncing = True
        try:
            self.query = event.new.lstrip("?")
        finally:
            self._syncing = False
        self._params_from_query(event.new)

    def _params_set(self, *_events: param.parameterized.Event) -> None:
        """A parameter set from Python: the page shows the new view."""
        if self._syncing:
            return
        self._syncing = True
        try:
            self.query = self._query_from_params(self.query)
        finally:
            self._syncing = False
        self.lab.send_host({"type": "apply", "query": self.query})

    def _query_set(self, event: param.parameterized.Event) -> None:
        """``query`` set from Python (a link's view): the parameters follow, the page shows
        it."""
        if self._syncing:
            return
        self._params_from_query(event.new)
        self.lab.send_host({"type": "apply", "query": event.new.lstrip("?")})

    def stop(self) -> None:
        """Stop this dashboard's engine."""
        self.lab.close()
