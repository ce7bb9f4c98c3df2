"""A real dashboard server on 127.0.0.1 (``integrator-lab serve``) and the helpers the server
tests share: the frame that holds the page's front end, polling the server.

The page in the frame is the static page's own front end (tests/site tests it); these tests
test what the server host adds: its engine, its sessions, its caps, its sandbox."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.parse import urlsplit

import pytest

#: a closed tab's session ends this long after its websocket closed (ms)
SESSION_LIFETIME_MS = 1000
SERVER_START_TIMEOUT = 60.0  # s
#: loading a page, clicking, typing: a loaded machine takes longer than Playwright's 30 s (a
#: page of the dashboard took over 60 s to load with 24 processes running on two cores)
ACTION_TIMEOUT_MS = 60_000
LOAD_TIMEOUT_MS = 180_000


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


def lab_frame(page):
    """The frame that holds the page's front end in a served dashboard (in the component's
    shadow root, which Playwright's selectors pierce)."""
    return page.wait_for_selector("iframe", timeout=LOAD_TIMEOUT_MS).content_frame()


#: true once the page in the frame is live: its engine answered and frames were drawn
LIVE_JS = "() => window.integratorLab?.status().ready && integratorLab.status().framesDrawn > 2"


def wait_until(predicate, timeout=60.0, interval=0.1, what="condition"):
    """Poll ``predicate`` until it is true (and return its value). The timeout is only how long
    a failing test takes to say so: generous, so that a loaded machine is never a failure.
    (Not for Playwright's own state: a sleeping sync client hears no browser events.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)  # a poll of the predicate


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


class ServedTab:
    """One tab on a served dashboard in a browser context of its own (a session of its
    own): ``page``, the ``frame`` that holds the page's front end once loaded, every URL the
    tab requested (its frame's too: ``requests``) and its page errors (``errors``)."""

    def __init__(self, browser, url, viewport=(1440, 900), **context_options):
        self.context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, **context_options
        )
        self.context.set_default_timeout(ACTION_TIMEOUT_MS)
        self.context.set_default_navigation_timeout(LOAD_TIMEOUT_MS)
        self.requests: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.response = self.page.goto(url)
        self.frame = None

    def wait_live(self):
        """The frame, once its page's engine answered and frames were drawn (``LIVE_JS``)."""
        if self.frame is None:
            self.frame = lab_frame(self.page)
        self.frame.wait_for_function(LIVE_JS, timeout=LOAD_TIMEOUT_MS)
        return self.frame

    def session_id(self) -> str:
        """The id of the tab's session, from the token its page was served with."""
        from bokeh.util.token import get_session_id

        token = self.page.evaluate(TOKEN_JS)
        assert token is not None, (
            f"no session token in the page (status {self.response.status}): "
            + self.page.content()[:300]
        )
        return get_session_id(token)

    def close(self) -> None:
        self.context.close()


#: the session token a served page carries (in the script that embeds its document)
TOKEN_JS = """() => {
    for (const script of document.querySelectorAll('script')) {
        const match = script.textContent.match(/"token":\\s*"([^"]+)"/);
        if (match) return match[1];
    }
    return null;
}"""


def listed(server, session_id: str) -> dict | None:
    """What ``/status`` says of the session ``session_id`` (None: not listed)."""
    from integrator_lab.server.sessions import session_label

    label = session_label(session_id)
    for entry in server.status()["sessions"]:
        if entry["session"] == label:
            return entry
    return None


#: kick-drift-kick leapfrog (velocity Verlet), as a visitor types it (``NAME`` set by the test)
LEAPFROG = """NAME = "{name}"
ORDER = 2


def step(accel, q, v, t, dt):
    a = accel(q, v, t)
    v = [u + 0.5 * dt * b for u, b in zip(v, a)]
    q = [x + dt * u for x, u in zip(q, v)]
    a = accel(q, v, t + dt)
    return q, [u + 0.5 * dt * b for u, b in zip(v, a)]
"""
