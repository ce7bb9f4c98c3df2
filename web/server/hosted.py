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

import base64
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import panel as pn
import param
from panel.custom import JSComponent
from tornado.web import StaticFileHandler

from integrator_lab.views.engine import TICK, Engine

#: where the server serves the page's files (the frame's address, relative to the app's)
ROUTE = "lab"

#: the component's JavaScript: the page in a frame, and the messages between the two
ESM = """
export function render({ model, el }) {
  const frame = document.createElement("iframe");
  frame.title = "Integrator Lab";
  // the address bar's view (served), else the component's own (a notebook)
  const served = model.follow_address;
  frame.src = model.src + (served ? location.search + location.hash : model.query);
  frame.style.cssText = "border:0;width:100%;height:100%;display:block;min-height:" +
    model.min_height_px + "px";
  const hear = (event) => {
    if (event.source !== frame.contentWindow || event.origin !== location.origin) return;
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
    frame.contentWindow?.postMessage({ integratorLab: "engine", msg }, location.origin);
  });
  model.on("remove", () => window.removeEventListener("message", hear));
  return frame;
}
"""


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

    _esm = ESM

    def __init__(self, make_engine: Callable[[], Engine], **params: Any) -> None:
        params.setdefault("sizing_mode", "stretch_both")
        super().__init__(**params)
        self._make_engine = make_engine
        self.engine: Engine | None = None
        self._callback: Any = None

    # -- the page's messages ----------------------------------------------------------------
    def _handle_msg(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        if msg.get("type") == "spawn":  # the page started (or renewed) its engine
            self._new_engine()
            return
        if self.engine is None:
            self._new_engine()
        self._send(self.engine.handle(msg))  # type: ignore[union-attr]

    def _new_engine(self) -> None:
        self.close()
        self.engine = self._make_engine()
        self._callback = pn.state.add_periodic_callback(
            self._tick, period=round(TICK * 1000), start=True
        )

    def _tick(self) -> None:
        if self.engine is not None:
            self._send(self.engine.tick())

    def _send(self, answers: list[dict[str, Any]]) -> None:
        for answer in answers:
            if answer.get("type") == "frame":
                for frame in answer["systems"].values():
                    frame["data"] = base64.b64encode(frame["data"].tobytes()).decode("ascii")
            self._send_msg(answer)

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


def served_page_dir() -> Path:
    """The page's files for this server process, built once (into a temporary folder that
    goes with the process)."""
    global _SERVED
    if _SERVED is None:
        from integrator_lab.site.build import build_served_page

        folder = Path(tempfile.mkdtemp(prefix="integrator-lab-page-"))
        import atexit

        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SERVED = build_served_page(folder)
    return _SERVED


_SERVED: Path | None = None


def page_route() -> tuple[str, type, dict[str, Any]]:
    """The server's route to the page's files (``extra_patterns`` of ``pn.serve``)."""
    return (
        rf"/{ROUTE}/(.*)",
        StaticFileHandler,
        {"path": str(served_page_dir()), "default_filename": "index.html"},
    )
