"""A real dashboard server on 127.0.0.1 and a headless Chromium driven by Playwright, and the
helpers the server tests share (reading the page's Bokeh models, typing into its widgets,
finding a page's own session in ``/status``).

Every test gets its own request log (``requests_seen``) and finds its own sessions by their
ids, so that any test passes when run alone and in any order.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.parse import urlsplit

import pytest

from integrator_lab.server.sessions import session_label

#: a closed tab's session ends this long after its websocket closed (ms)
SESSION_LIFETIME_MS = 1000
SERVER_START_TIMEOUT = 60.0  # s
#: loading a page, clicking, typing: a loaded machine takes longer than Playwright's 30 s (a
#: page of the dashboard took over 60 s to load with 24 processes running on two cores)
ACTION_TIMEOUT_MS = 60_000
LOAD_TIMEOUT_MS = 180_000
#: true once the dashboard's document is in the page
LOADED_JS = (
    "() => window.Bokeh && Bokeh.documents.length > 0 && "
    "Bokeh.documents[0].get_model_by_name('spring:scene') != null"
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``integrator-lab serve`` in a subprocess; its output goes to ``log_path``."""

    def __init__(self, log_path, extra_args=()):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "integrator_lab.cli.main",
                "serve",
                "--port",
                str(self.port),
                "--address",
                "127.0.0.1",
                "--no-show",
                "--unused-session-lifetime",
                str(SESSION_LIFETIME_MS),
                *extra_args,
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            try:
                self.status()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        "the dashboard server did not start:\n" + self.log()
                    ) from None
                time.sleep(0.2)  # a poll: until the server answers

    def status(self) -> dict:
        with urllib.request.urlopen(self.url + "status", timeout=10) as response:
            return json.loads(response.read())

    def log(self) -> str:
        self._log.flush()
        with open(self.log_path, encoding="utf-8") as handle:
            return handle.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("panel-server") / "server.log")
    yield srv
    srv.stop()


@pytest.fixture
def requests_seen():
    """Every URL the pages of this test (``new_page``) requested."""
    return []


@pytest.fixture
def new_page(browser, server, requests_seen, request):
    """Open a fresh browser context (a new session) on the dashboard; closed afterwards."""
    contexts = []

    def open_page(viewport=(1500, 1000), query=""):
        context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, accept_downloads=True
        )
        contexts.append(context)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(LOAD_TIMEOUT_MS)
        page = context.new_page()
        page.on("request", lambda r: requests_seen.append(r.url))
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(server.url + query)
        page.wait_for_function(LOADED_JS, timeout=LOAD_TIMEOUT_MS)
        return page

    yield open_page
    for context in contexts:
        context.close()


#: the contexts :func:`open_page` opened during the running test (closed after it)
_OPENED: list = []


@pytest.fixture(autouse=True)
def _close_opened_pages():
    """Close what :func:`open_page` opened, whatever the test did: a page left open would go
    on animating (and holding a session) through every later test of the run."""
    yield
    while _OPENED:
        try:
            _OPENED.pop().close()
        except Exception:  # noqa: BLE001 - closed already, or its browser gone
            pass


def open_page(browser, url, viewport=(1280, 800)):
    """A page of the dashboard at ``url`` in a fresh browser context, loaded (its context
    is closed after the test)."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    _OPENED.append(context)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    context.set_default_navigation_timeout(LOAD_TIMEOUT_MS)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(url)
    page.wait_for_function(LOADED_JS, timeout=LOAD_TIMEOUT_MS)
    return page


def show_controls(page) -> None:
    """On a phone the lessons and controls are folded behind one button
    (``il-controls-toggle``): press it, and wait for the controls to show. Elsewhere they
    show already."""
    toggle = page.locator(".il-controls-toggle button")
    if toggle.count() and toggle.first.is_visible():
        toggle.first.click()
        page.locator(".il-systems button").first.wait_for(state="visible")


def requests_elsewhere(urls, port: int) -> list:
    """The URLs that went anywhere but this machine's server on ``port``."""
    out = []
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("blob", "data") and (parts.hostname, parts.port) != (
            "127.0.0.1",
            port,
        ):
            out.append(url)
    return out


# -- reading and driving the page -------------------------------------------------------------
SAMPLE_COLS = (
    "t",
    "q",
    "v",
    "kinetic",
    "potential",
    "dissipated",
    "total",
    "error",
    "log_gain",
    "log_loss",
)
READ_JS = """([name, cols]) => {
    const model = Bokeh.documents[0].get_model_by_name(name);
    const out = {};
    if (model == null) {  // not in the page: nothing to show
        for (const c of cols) out[c] = [];
        return out;
    }
    for (const c of cols) out[c] = Array.from(model.data[c] ?? []);
    return out;
}"""
# set a Panel widget's value in the page, as if the user had chosen it: the change travels
# over the websocket like any other
SET_JS = """([cls, value]) => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes(cls)) {
            model.value = value;
            return true;
        }
    }
    return false;
}"""
MESSAGE_JS = """() => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes("il-message")) {
            return model.visible ? model.text : null;
        }
    }
    return null;
}"""
TEXT_JS = "(name) => Bokeh.documents[0].get_model_by_name(name).text"
VISIBLE_JS = "(name) => Bokeh.documents[0].get_model_by_name(name).visible"
TOKEN_JS = """() => {
    for (const script of document.querySelectorAll('script')) {
        const match = script.textContent.match(/"token":\\s*"([^"]+)"/);
        if (match) return match[1];
    }
    return null;
}"""


def read(page, name, cols=SAMPLE_COLS):
    return page.evaluate(READ_JS, [name, list(cols)])


def samples(page, system, integrator):
    return read(page, f"{system}:samples:{integrator}")


def set_widget(page, cls, value):
    assert page.evaluate(SET_JS, [cls, value]), f"no widget with class {cls}"


def type_into(page, cls, value):
    """Type into a numeric input like a user: select all, type, Enter."""
    field = page.locator(f".{cls} input")
    field.fill(str(value))
    field.press("Enter")


def sim_time(page, system):
    text = page.evaluate(TEXT_JS, f"{system}:status")  # "t = 1.23 s · 1.00× real time"
    return float(text.split("=")[1].split("s")[0])


def wait_until(predicate, timeout=60.0, interval=0.1, what="condition"):
    """Poll ``predicate`` until it is true (and return its value). The timeout is only how long
    a failing test takes to say so: generous, so that a loaded machine is never a failure."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)  # a poll of the predicate


#: resolves after the page has drawn two more animation frames (its layout has settled)
NEXT_FRAMES_JS = (
    "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"
)


def session_id_of(page) -> str:
    """The session id the page's embedded token carries (what the page itself knows); read
    once per page (a poll of ``my_session`` asks the server only, not a busy page)."""
    known = getattr(page, "il_session_id", None)
    if known is not None:
        return known
    token = page.evaluate(TOKEN_JS)
    payload = token.split(".")[0]
    payload += "=" * (-len(payload) % 4)
    page.il_session_id = json.loads(base64.urlsafe_b64decode(payload))["session_id"]
    return page.il_session_id


def my_session(server, page) -> dict:
    """The numbers ``/status`` gives for ``page``'s own session (whatever other sessions
    the server has, e.g. those of earlier tests, not ended yet)."""
    label = session_label(session_id_of(page))

    def listed():
        return [s for s in server.status()["sessions"] if s["session"] == label]

    # a page that has loaded is listed once its session's document is built and served,
    # which on a loaded machine comes seconds after the page's own script ran
    deadline = time.monotonic() + 60.0
    while not (sessions := listed()) and time.monotonic() < deadline:
        time.sleep(0.2)  # a poll of the server's /status
    # (on failure: which sessions the server ended lately, and why, and what the page saw)
    assert len(sessions) == 1, (
        label,
        server.status()["sessions"],
        [line for line in server.log().splitlines() if " ended: " in line][-5:],
        _page_flow(page),
    )
    return sessions[0]


#: what a page knows of the updates it was sent (for a failure's message)
PAGE_FLOW_JS = """() => {
    const carrier = Bokeh.documents[0]?.get_model_by_name("flow:carrier");
    const echo = Bokeh.documents[0]?.get_model_by_name("flow:echo");
    return {hidden: document.hidden, visibility: document.visibilityState,
            focus: document.hasFocus(), applied: carrier?.appliedSeq ?? null,
            last: carrier?.tags?.length ? JSON.parse(carrier.tags[0]).seq : null,
            echoed: echo?.tags?.[0] ?? null, uptime: performance.now()};
}"""


def _page_flow(page) -> object:
    try:
        return page.evaluate(PAGE_FLOW_JS)
    except Exception as exc:  # noqa: BLE001 - a courtesy of a failure's message
        return f"(the page did not answer: {exc})"
