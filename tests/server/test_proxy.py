"""Several ``integrator-lab serve`` processes behind nginx, each visitor kept on one
(``python -m integrator_lab.dev.proxy_config``; docs/developing.rst, Serving a class).

Two processes and nginx (Debian's, run as this user with everything in a temporary folder)
on loopback; Chromium opens the lab through the proxy. A session lives in the memory of the
process that built its page: its page, websocket, files and ``/status`` must all reach that
process, which the proxy's access log (each request's key and process) and each process's
own ``/status`` show."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
from bokeh.util.token import get_session_id
from conftest import (
    ACTION_TIMEOUT_MS,
    LIVE_JS,
    LOAD_TIMEOUT_MS,
    Server,
    free_port,
    lab_frame,
    wait_until,
)

from integrator_lab.dev import proxy_config
from integrator_lab.server.sessions import MAX_WAITING_PER_CLIENT, session_label

pytestmark = pytest.mark.server

#: the cookie nginx hashes a visitor's requests on
COOKIE = proxy_config.COOKIE
#: keys tried, in turn, until one lands on each process (each lands on either with odds of
#: about one half: 40 keys all missing one of two processes has odds of 2^-39)
KEYS_TRIED = 40


def nginx_missing(reason: str):
    """Skip, or fail under `make test` (which installs nginx with Chromium)."""
    if os.environ.get("INTEGRATOR_LAB_REQUIRE_PYODIDE") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


class Proxy:
    """nginx (the program ``nginx``) in the foreground, configured by
    :func:`proxy_config.config` in ``folder``, in front of ``backends``."""

    def __init__(self, nginx: str, folder, backends, port: int):
        self.folder = folder
        self.backends = backends
        self.port = port
        self.url = f"http://127.0.0.1:{port}/"
        conf = folder / "nginx.conf"
        ports = [backend.port for backend in backends]
        conf.write_text(
            proxy_config.config(ports, f"127.0.0.1:{port}", ["127.0.0.1"], standalone=folder),
            encoding="utf-8",
        )
        self._out = open(folder / "nginx.out", "w", encoding="utf-8")
        self.process = subprocess.Popen(
            [nginx, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(conf)],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

        def answers():
            if self.process.poll() is not None:
                raise RuntimeError("nginx ended:\n" + self.errors())
            try:
                return self.get("/status")[0] == 200
            except OSError:
                return False

        wait_until(answers, timeout=30, what="nginx to answer")

    def get(self, path: str, key: str | None = None, source: str = "127.0.0.1"):
        """(status, headers, body) of ``GET path`` through the proxy from the loopback
        address ``source``, with the cookie ``key`` if one is given."""
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=60, source_address=(source, 0)
        )
        try:
            headers = {"Cookie": f"{COOKIE}={key}"} if key else {}
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def backend_of(self, key: str):
        """The process that a visitor with the cookie ``key`` reaches (by its pid)."""
        pid = json.loads(self.get("/status", key)[2])["pid"]
        (backend,) = [b for b in self.backends if b.pid == pid]
        return backend

    def log(self, key: str) -> list[tuple[str, str]]:
        """(request path, process address) of every request logged with ``key``."""
        text = (self.folder / "access.log").read_text(encoding="utf-8")
        pattern = rf'"GET (\S+) HTTP/[\d.]+" \d+ key={re.escape(key)} backend=(\S+)$'
        return re.findall(pattern, text, re.M)

    def errors(self) -> str:
        self._out.flush()
        parts = [self.folder / "nginx.out", self.folder / "error.log"]
        return "\n".join(p.read_text(encoding="utf-8") for p in parts if p.exists())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # nginx's fast shutdown: the master ends its workers
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._out.close()


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    # (Debian's is in /usr/sbin, which a user's PATH may leave out)
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if nginx is None:
        nginx_missing("nginx is not installed (make chromium installs it: apt-get install nginx)")
    folder = tmp_path_factory.mktemp("proxy")
    port = free_port()
    # what the config's header tells each process: the proxy's origin, the proxy's headers
    options = proxy_config.backend_options(proxy_config.origins_for(["127.0.0.1"], str(port)))
    with ThreadPoolExecutor(2) as pool:  # both start at once
        started = [
            pool.submit(Server, folder / f"serve-{n}.log", extra_args=options) for n in range(2)
        ]
        backends = [future.result() for future in started]
    for backend in backends:
        backend.pid = backend.status()["pid"]
    front = None
    try:
        front = Proxy(nginx, folder, backends, port)
        yield front
    finally:
        if front is not None:
            front.stop()
        for backend in backends:
            backend.stop()


def keys_for_each_backend(proxy) -> dict:
    """A cookie value that lands on each process: {backend's pid: key}."""
    found = {}
    for n in range(KEYS_TRIED):
        key = f"visitor-{n}"
        found.setdefault(proxy.backend_of(key).pid, key)
        if len(found) == len(proxy.backends):
            return found
    raise AssertionError(f"{KEYS_TRIED} keys all landed on {sorted(found)}")


def open_lab(browser, proxy, key: str | None = None):
    """A new visitor (its own browser context, with the cookie ``key`` if given) opens the
    lab through the proxy and waits for it to go live: (context, page, session label)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    if key is not None:
        context.add_cookies([{"name": COOKIE, "value": key, "url": proxy.url}])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    response = page.goto(proxy.url + "?systems=spring&integrators=rk4", timeout=LOAD_TIMEOUT_MS)
    assert response.status == 200
    # the page carries its session's token (signed by the process that made the session)
    token = re.search(r'"token":\s*"([^"]+)"', response.text()).group(1)
    lab_frame(page).wait_for_function(LIVE_JS, timeout=LOAD_TIMEOUT_MS)
    assert errors == []
    return context, page, session_label(get_session_id(token))


def live_sessions(backend) -> dict:
    """The sessions a process's own ``/status`` lists, by label."""
    return {s["session"]: s for s in backend.status()["sessions"]}


def assert_kept_on(proxy, key: str, backend) -> None:
    """Every request of the visitor ``key`` went to ``backend``: its page, websocket, the
    page's files and Panel's. (nginx logs a websocket's request when it closes.)"""
    address = f"127.0.0.1:{backend.port}"

    def logged():
        requests = proxy.log(key)
        return requests if any(path.split("?")[0] == "/ws" for path, _ in requests) else None

    requests = wait_until(logged, timeout=60, what=f"the websocket of {key} in the log")
    assert {where for _, where in requests} == {address}, requests
    paths = {path.split("?")[0] for path, _ in requests}
    assert {"/", "/ws", "/lab/index.html"} <= paths, paths
    assert any(path.startswith("/static/") for path in paths), paths


def test_each_process_serves_its_visitors_and_keeps_each_on_itself(browser, proxy):
    keys = keys_for_each_backend(proxy)
    for backend in proxy.backends:
        key = keys[backend.pid]
        context, page, label = open_lab(browser, proxy, key)
        try:
            # the session is live in this process's memory, in no other
            mine = live_sessions(backend)
            assert label in mine and mine[label]["frames"] > 0
            (other,) = [b for b in proxy.backends if b is not backend]
            assert label not in live_sessions(other)
            # the visitor's /status through the proxy is this process's
            status = page.request.get(proxy.url + "status").json()
            assert status["pid"] == backend.pid
        finally:
            context.close()
        assert_kept_on(proxy, key, backend)


def test_a_new_visitor_is_given_a_key_and_kept_on_its_process(browser, proxy):
    context, page, label = open_lab(browser, proxy)
    try:
        (cookie,) = [c for c in context.cookies() if c["name"] == COOKIE]
        key = cookie["value"]
        # the process its key hashes on holds its session
        backend = proxy.backend_of(key)
        assert label in live_sessions(backend)
    finally:
        context.close()
    # the first request, before the cookie, went where every later one did
    first_path, _ = proxy.log(key)[0]
    assert first_path.startswith("/?")
    assert_kept_on(proxy, key, backend)


def test_the_caps_per_client_count_visitors_not_the_proxy(proxy):
    # bare page requests (no page loads them: each session waits for a websocket that never
    # comes, then ends) from two visitors' addresses, every one to the same process
    key = keys_for_each_backend(proxy)[proxy.backends[0].pid]
    one, another = "127.0.0.2", "127.0.0.3"
    for _ in range(MAX_WAITING_PER_CLIENT):
        assert proxy.get("/", key, source=one)[0] == 200
    # the process tells one visitor past its cap (pages still loading) from another: all
    # come from the proxy's address, and it reads each visitor's from the proxy's headers
    status, headers, _ = proxy.get("/", key, source=one)
    assert status == 503 and headers["Retry-After"]
    assert proxy.get("/", key, source=another)[0] == 200
