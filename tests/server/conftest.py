"""A real dashboard server on 127.0.0.1 and a headless Chromium driven by Playwright."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

#: a closed tab's session ends this long after its websocket closed (ms)
SESSION_LIFETIME_MS = 1000
SERVER_START_TIMEOUT = 60.0  # s
#: true once the dashboard's document is in the page
LOADED_JS = ("() => window.Bokeh && Bokeh.documents.length > 0 && "
             "Bokeh.documents[0].get_model_by_name('spring:scene') != null")


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
            [sys.executable, "-m", "integrator_lab.cli.main", "serve", "--port", str(self.port),
             "--address", "127.0.0.1", "--no-show",
             "--unused-session-lifetime", str(SESSION_LIFETIME_MS), *extra_args],
            stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            try:
                self.status()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the dashboard server did not start:\n" + self.log())
                time.sleep(0.2)

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


@pytest.fixture(scope="module")
def requests_seen():
    """Every URL any page of the module requested."""
    return []


@pytest.fixture
def new_page(browser, server, requests_seen, request):
    """Open a fresh browser context (a new session) on the dashboard; closed afterwards."""
    contexts = []

    def open_page(viewport=(1500, 1000)):
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                      accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.on("request", lambda r: requests_seen.append(r.url))
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(server.url)
        page.wait_for_function(LOADED_JS, timeout=30_000)
        return page

    yield open_page
    for context in contexts:
        context.close()
