"""Load benchmark of the Panel server: N concurrent sessions against one server.

For each N, opens N sessions at once (a class of 30 opening the link together is the
default's last row), lets them run for a while and reports, per N: each session's update
rate (frames received per second), its simulations' real-time factor, the server
process's CPU and memory (its growth per session), how long a visitor waited for the first
update and how many page requests the server's caps turned away first. Not a test: a
measurement, run by hand::

    python -m integrator_lab.dev.bench_serve --sessions 1 5 10 20 30 --duration 30

The server hosts the page's own front end (:mod:`integrator_lab.server.hosted`): a session
is one ``Lab`` component whose messages carry the page's protocol to the session's engine.
The clients speak Bokeh's websocket protocol directly (what the Panel page does in a
browser, minus the page in its frame and the drawing): ask for the page (a session and its
signed token come with it), open the websocket, pull the document, say it is drawn, then
send the component's messages as the page in the frame does (``spawn``, then ``init`` with
the default view) and answer each frame with ``ack`` at the next 60 Hz display refresh
after it arrived, as the page does after drawing it (``--ack now``: at once). The first
update is the first frame. A browser per session would measure the browsers, not the
server, on a small machine; ``--assets`` also fetches the files a browser's first visit
fetches (the Panel page's scripts, the page in the frame and its scripts), which the same
server sends.

Each client has its own HTTP client and its own loopback address (127.0.0.2, 127.0.0.3,
...), as the visitors of a class have their own machines (``--one-address``: all from
127.0.0.1, a class behind one NAT address); a page request the server refuses (503:
``--max-sessions``, or pages loading from one address) is asked again after its
``Retry-After``, as the refusal page does. Each N gets a server of its own (memory a
process once held stays with it), warmed by one session that has come and gone; its
memory per session is the growth of its RSS over that, at its largest, over N.
``--json`` keeps every row as it is measured; ``--profile DIR`` runs each server under
cProfile, one profile for the sessions' start and one for the measured run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

from bokeh.util.token import get_session_id
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.core.systems import SYSTEMS
from integrator_lab.server.sessions import session_label  # how /status names a session
from integrator_lab.views.shared import PANEL_SYSTEMS

SAMPLE_EVERY = 2.0  # s between samples of the server's CPU and memory
WARMUP = 5.0  # s after the last session has its first update, before measuring
#: how long (s) one client waits for its page or its websocket: a class opening at once
#: waits for the server to make every session before its own
CLIENT_TIMEOUT = 600.0
#: how long (s) the sessions of a run may take to all send their first update, per session
SETUP_PER_SESSION = 10.0
#: the display's refresh (s): the page draws a frame, and acknowledges it, at the next one
REFRESH = 1.0 / 60.0
#: what BokehJS sends once it has drawn the document it pulled
DOCUMENT_READY = {
    "kind": "MessageSent",
    "msg_type": "bokeh_event",
    "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
}
#: the Bokeh model of the page's component (panel.custom.JSComponent)
COMPONENT = "panel.models.esm.ReactiveESM"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def default_init() -> dict[str, Any]:
    """The ``init`` the page sends on its default view (static/js/worker.js initWorker):
    every system with its default parameters and recommended time step, the default
    integrators, real time, playing."""
    systems = {}
    for name in PANEL_SYSTEMS:
        system = SYSTEMS[name]
        params = {p.name: p.default for p in system.PARAMS}
        systems[name] = {"params": params, "dt": system(**params).recommended_dt}
    return {
        "type": "init",
        "systems": systems,
        "integrators": list(DEFAULT_INTEGRATORS),
        "speed": 1,
        "names": {},
        "playing": True,
    }


def to_bokeh(value: Any) -> Any:
    """``value`` as Bokeh's serialiser writes it (a dict is a ``map``, as BokehJS sends a
    component's message)."""
    if isinstance(value, dict):
        return {"type": "map", "entries": [[k, to_bokeh(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [to_bokeh(v) for v in value]
    return value


def component_message(model: str, message: dict[str, Any]) -> dict[str, Any]:
    """The document event that carries ``message`` from the page to component ``model``
    (``model.send_msg`` in the component's JavaScript: a ``data_event``)."""
    values = {"type": "map", "entries": [["model", {"id": model}], ["data", to_bokeh(message)]]}
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {"type": "event", "name": "data_event", "values": values},
    }


def answer_type(event: dict[str, Any]) -> str | None:
    """The protocol type of the engine's answer an event carries (an ``esm_event``: the
    component's ``_send_msg``), or None for any other event."""
    data = event.get("msg_data") or {}
    if event.get("kind") != "MessageSent" or data.get("name") != "esm_event":
        return None
    for key, value in data.get("values", {}).get("entries", ()):
        if key == "data":
            for k, v in value.get("entries", ()) if isinstance(value, dict) else ():
                if k == "type":
                    return v
    return None


# -- one client session -------------------------------------------------------------------
class Client:
    """One visitor's session over a raw websocket: counts frames and acknowledges them."""

    def __init__(self, port: int, address: str = "127.0.0.1", ack: str = "refresh"):
        self.port = port
        self.address = address  # the client's own (source) address
        self.ack = ack  # "refresh": at the next display refresh; "now": at once
        self.assets = False  # also fetch what a browser's first visit fetches
        self.session_id = None  # the server's, from the page
        self.updates = 0  # frames received
        self.first_update = None
        self.ready = None  # when the engine said "ready"
        self.asked = None  # when it asked for the page: a session is made for it then
        self.bytes = 0
        self.asset_bytes = 0
        self.errors: list[str] = []  # the engine's "error" answers
        self.closed = False
        self.refused = 0  # page requests the server turned away (503) before this one
        self._phase = random.random() * REFRESH  # this client's display's refresh phase

    def _request(self, url: str) -> HTTPRequest:
        return HTTPRequest(
            url,
            network_interface=self.address,
            connect_timeout=CLIENT_TIMEOUT,
            request_timeout=CLIENT_TIMEOUT,
        )

    async def _page(self, http) -> str:
        """The dashboard's page, asked again after each refusal's ``Retry-After``."""
        while True:
            url = f"http://127.0.0.1:{self.port}/"
            page = await http.fetch(self._request(url), raise_error=False)
            if page.code != 503:
                page.rethrow()
                return page.body.decode()
            self.refused += 1
            await asyncio.sleep(float(page.headers.get("Retry-After", "5")))

    async def _fetch_assets(self, http, page: str) -> None:
        """What a browser's first visit fetches besides the page: its scripts and
        stylesheets, the page in the frame (``lab/``) and its own."""
        base = f"http://127.0.0.1:{self.port}/"
        wanted = [u for u in _linked(page) if not u.startswith(("http", "#", "data:"))]
        frame = await http.fetch(self._request(base + "lab/index.html"))
        self.asset_bytes += len(frame.body)
        wanted += ["lab/" + u for u in _linked(frame.body.decode()) if not u.startswith("#")]
        for url in dict.fromkeys(wanted):  # each once, in order, as a browser's cache does
            reply = await http.fetch(self._request(base + url.lstrip("./")), raise_error=False)
            self.asset_bytes += len(reply.body or b"")

    async def run(self, stop: asyncio.Event) -> None:
        # the server signs its sessions: a session (and its token) comes with the page. Its
        # own HTTP client: a shared one keeps 10 connections and queues the rest
        self.asked = time.monotonic()
        http = AsyncHTTPClient(force_instance=True)
        try:
            text = await self._page(http)
            token = re.search(r'"token":\s*"([^"]+)"', text).group(1)
            self.session_id = get_session_id(token)
            if self.assets:
                # the browser fetches the page's scripts before it opens the websocket
                await self._fetch_assets(http, text)
        finally:
            http.close()
        conn = await websocket_connect(
            self._request(f"ws://127.0.0.1:{self.port}/ws"),
            subprotocols=["bokeh", token],
            max_message_size=256 * 1024 * 1024,
        )
        # as a browser does (Chromium's sockets): each message goes out as it is written
        conn.protocol.set_nodelay(True)
        pending: set[asyncio.Task] = set()
        try:
            msgtype, _ = await self._receive(conn)  # the server's ACK: the session exists
            if msgtype != "ACK":
                raise RuntimeError(f"expected ACK from the server, got {msgtype}")
            await self._send(conn, "PULL-DOC-REQ", {})
            lab = None
            while not stop.is_set():
                msgtype, content = await self._receive(conn)
                if msgtype is None:
                    break
                if msgtype == "PULL-DOC-REPLY":
                    lab = _component_id(content)
                    await self._patch(conn, DOCUMENT_READY)
                    await self._patch(conn, component_message(lab, {"type": "spawn"}))
                    await self._patch(conn, component_message(lab, default_init()))
                elif msgtype == "PATCH-DOC" and lab is not None:
                    for event in content.get("events", ()):
                        kind = answer_type(event)
                        if kind == "frame":
                            self.updates += 1
                            if self.first_update is None:
                                self.first_update = time.monotonic()
                            ack = component_message(lab, {"type": "ack"})
                            if self.ack == "now":
                                await self._patch(conn, ack)
                            else:
                                task = asyncio.create_task(self._at_refresh(conn, ack))
                                pending.add(task)
                                task.add_done_callback(pending.discard)
                        elif kind == "ready" and self.ready is None:
                            self.ready = time.monotonic()
                        elif kind == "error":
                            self.errors.append(json.dumps(event)[-300:])
        finally:
            for task in pending:
                task.cancel()
            conn.close()
            self.closed = True

    async def _at_refresh(self, conn, event) -> None:
        """Send ``event`` at this client's display's next refresh."""
        now = time.monotonic()
        await asyncio.sleep(REFRESH - (now - self._phase) % REFRESH)
        try:
            await self._patch(conn, event)
        except Exception:  # noqa: BLE001 - the connection closed meanwhile: the run ends
            pass

    async def _receive(self, conn):
        header = await conn.read_message()
        if header is None:
            return None, None
        header = json.loads(header)
        await conn.read_message()  # metadata
        content = await conn.read_message()
        self.bytes += len(content)
        for _ in range(2 * header.get("num_buffers", 0)):  # buffer header, then payload
            part = await conn.read_message()
            self.bytes += len(part)
        return header["msgtype"], json.loads(content)

    async def _send(self, conn, msgtype, content):
        header = {"msgid": os.urandom(8).hex(), "msgtype": msgtype}
        for part in (header, {}, content):
            await conn.write_message(json.dumps(part))

    async def _patch(self, conn, event):
        await self._send(conn, "PATCH-DOC", {"events": [event]})


def _component_id(reply) -> str:
    """The id of the page's component (the document's ``Lab``) in a pulled document."""
    for root in reply["doc"]["roots"]:
        if root.get("name") == COMPONENT:
            return root["id"]
    raise LookupError(f"no {COMPONENT} among the document's roots")


def _linked(html: str) -> list[str]:
    """The scripts, stylesheets and icons an HTML page links to (``src``, ``href``)."""
    return re.findall(r'(?:src|href)="([^"]+)"', html)


# -- the server ---------------------------------------------------------------------------
#: the server under cProfile by phases: each SIGUSR1 writes the profile running (if any) to
#: the next of the paths (argv[1], comma-separated) and starts another; SIGUSR2 writes it
#: and stops. The rest of argv is ``integrator-lab``'s
PROFILED = """
import cProfile, signal, sys
from integrator_lab.cli.main import main
paths, running = sys.argv[1].split(","), []
def dump():
    if running:
        running[0].disable()
        running.pop().dump_stats(paths.pop(0))
def phase(*_):
    dump()
    running.append(cProfile.Profile())
    running[0].enable()
signal.signal(signal.SIGUSR1, phase)
signal.signal(signal.SIGUSR2, lambda *_: dump())
sys.exit(main(sys.argv[2:]))
"""
#: the phases profiled (``--profile``): opening the sessions, then the measured run
PHASES = ("setup", "run")


class Server:
    """``integrator-lab serve`` in a subprocess; ``profile``: a path prefix, the server then
    runs under cProfile (:data:`PROFILED`), one profile per phase (:meth:`phase`)."""

    def __init__(self, port: int, max_sessions: int, profile: str | None = None, nice: int = 0):
        self.port = port
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept for the server's life
            "w+", prefix="bench-serve-", suffix=".log", delete=False
        )
        self.profile = profile
        if profile:
            paths = ",".join(f"{profile}-{phase}.prof" for phase in PHASES)
            runner = ["-c", PROFILED, paths]
        else:
            runner = ["-m", "integrator_lab.cli.main"]
        self.process = subprocess.Popen(
            [
                sys.executable,
                *runner,
                "serve",
                "--port",
                str(port),
                "--no-show",
                "--unused-session-lifetime",
                "1000",
                "--max-sessions",
                str(max_sessions),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                self.status()
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"the server did not start: {self.log.name}") from None
                time.sleep(0.2)  # a poll: until the server answers

    def phase(self, last: bool = False) -> None:
        """Profiled: the phase running ends (and is written); another starts unless
        ``last``."""
        if self.profile:
            self.process.send_signal(signal.SIGUSR2 if last else signal.SIGUSR1)

    def status(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/status", timeout=60) as r:
            return json.loads(r.read())

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime

    def waited_seconds(self) -> float:
        """Seconds the server's threads were ready to run but waited for a CPU (the
        machine's other work): ``/proc/PID/schedstat``, summed over its threads."""
        total = 0
        for task in os.listdir(f"/proc/{self.process.pid}/task"):
            try:
                with open(f"/proc/{self.process.pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[1])
            except (OSError, IndexError, ValueError):
                continue  # a thread that ended meanwhile
        return total / 1e9

    def rss_mb(self) -> float:
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        os.unlink(self.log.name)


# -- one measurement ----------------------------------------------------------------------
async def _status(server):
    return await asyncio.to_thread(server.status)


def client_address(index: int, one_address: bool) -> str:
    """The loopback address client ``index`` connects from."""
    if one_address:
        return "127.0.0.1"
    number = index + 2  # 127.0.0.2 on
    return f"127.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"


async def _until_no_sessions(server, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while (await _status(server))["callbacks"] and time.monotonic() < deadline:
        await asyncio.sleep(0.5)  # a poll: the server ends a closed page's session


async def warm(server: Server) -> None:
    """One session that comes and goes: what every session imports is in the server then."""
    stop = asyncio.Event()
    client = Client(server.port, client_address(0, False))
    task = asyncio.create_task(client.run(stop))
    deadline = time.monotonic() + 120
    while client.first_update is None and not task.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # a poll: until its first frame
    stop.set()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await _until_no_sessions(server)


async def measure(
    server: Server,
    sessions: int,
    duration: float,
    warmup: float = WARMUP,
    one_address: bool = False,
    ack: str = "refresh",
    assets: bool = False,
) -> dict:
    stop = asyncio.Event()
    clients = [Client(server.port, client_address(i, one_address), ack) for i in range(sessions)]
    for c in clients:
        c.assets = assets
    rss_before = server.rss_mb()
    load_before = os.getloadavg()[0]
    server.phase()  # profiled: the setup
    tasks = [asyncio.create_task(c.run(stop)) for c in clients]
    started = time.monotonic()
    setup_limit = 60 + SETUP_PER_SESSION * sessions
    while any(c.first_update is None for c in clients):
        if time.monotonic() - started > setup_limit or any(t.done() for t in tasks):
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()
            raise RuntimeError("sessions did not start")
        await asyncio.sleep(0.05)
    setup = time.monotonic() - started
    await asyncio.sleep(warmup)

    def clocks(status):
        return {s["session"]: s["systems"] for s in status["sessions"]}

    mine = {session_label(c.session_id) for c in clients}
    server.phase()  # profiled: the run
    t0, cpu0, own0 = time.monotonic(), server.cpu_seconds(), time.process_time()
    waited0 = server.waited_seconds()
    updates0 = {id(c): c.updates for c in clients}
    bytes0 = sum(c.bytes for c in clients)
    first = clocks(await _status(server))
    rss = [server.rss_mb()]
    while time.monotonic() - t0 < duration:
        await asyncio.sleep(min(SAMPLE_EVERY, duration - (time.monotonic() - t0)))
        rss.append(server.rss_mb())
    elapsed = time.monotonic() - t0
    cpu = (server.cpu_seconds() - cpu0) / elapsed
    waited = (server.waited_seconds() - waited0) / elapsed
    server.phase(last=True)
    own = (time.process_time() - own0) / elapsed
    last = clocks(await _status(server))
    wall = time.monotonic() - t0  # the two /status reads bracket the measured window
    rates = [(c.updates - updates0[id(c)]) / elapsed for c in clients]
    # real-time factor of each session: the slowest of its systems, over the whole run
    rtfs = []
    for sid in mine:
        if sid in first and sid in last:
            rtfs.append(
                min(
                    (last[sid][name]["t"] - first[sid][name]["t"]) / wall
                    for name in last[sid]
                    if name in first[sid]
                )
            )
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await _until_no_sessions(server)
    waits = [c.first_update - c.asked for c in clients]
    errors = [e for c in clients for e in c.errors]
    return {
        "sessions": sessions,
        "setup_s": setup,
        # from asking for the page to the first frame: the session's start, as a visitor
        # waits for it
        "first_update_s": statistics.median(waits),
        "first_update_max_s": max(waits),
        "ready_s": statistics.median(c.ready - c.asked for c in clients if c.ready)
        if any(c.ready for c in clients)
        else None,
        # page requests turned away by the server's caps (503) and asked again
        "refused": sum(c.refused for c in clients),
        "seconds": elapsed,
        "updates_per_s": {"min": min(rates), "median": statistics.median(rates), "max": max(rates)},
        "rtf": {"min": min(rtfs), "median": statistics.median(rtfs), "max": max(rtfs)},
        "server_cpu": cpu,
        # the share of the run the server was ready to run but waited for a CPU
        "server_waited": waited,
        "server_rss_mb": {"start": rss_before, "end": rss[-1], "max": max(rss)},
        # the server's growth with these sessions, at its largest, per session
        "mb_per_session": (max(rss) - rss_before) / sessions,
        "rss_every_2s_mb": [round(r, 1) for r in rss],
        "kbytes_per_s": (sum(c.bytes for c in clients) - bytes0) / elapsed / 1024,
        "asset_mb": sum(c.asset_bytes for c in clients) / 2**20,
        "client_cpu": own,
        # the machine's 1-minute load average before and after (others share it)
        "loadavg": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "errors": errors[:5],
        "callbacks_after": (await _status(server))["callbacks"],
    }


def engine_memory(marks=(10.0, 30.0, 70.0, 120.0)) -> list[tuple[float, float]]:
    """What one session's engine adds to this process's RSS (MB) after each of ``marks``
    seconds of simulated time on the default view, every frame acknowledged: its runs'
    sample buffers fill (``views.system_run.RUNNER_CAPACITY`` samples per integrator) only
    after a minute or more, longer than a run of the benchmark lasts."""
    import gc

    from integrator_lab.views.engine import TICK, Engine
    from integrator_lab.views.live import Live

    def rss() -> float:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    Engine(Live()).handle(default_init())  # what every engine imports, before measuring
    gc.collect()
    before = rss()
    now = [0.0]
    engine = Engine(Live(budget=lambda: float("inf")), clock=lambda: now[0])
    engine.handle(default_init())
    held = []
    for mark in marks:
        while min(run.runner.time for run in engine.live.runs.values()) < mark:
            now[0] += TICK
            if any(m["type"] == "frame" for m in engine.tick()):
                engine.handle({"type": "ack"})
        gc.collect()
        held.append((mark, rss() - before))
    return held


def _row(r):
    u, f, m = r["updates_per_s"], r["rtf"], r["server_rss_mb"]
    return (
        f"| {r['sessions']:>3} | {u['min']:5.1f} / {u['median']:5.1f} / {u['max']:5.1f} "
        f"| {f['min']:.2f} / {f['median']:.2f} | {100 * r['server_cpu']:4.0f} % "
        f"| {m['start']:5.0f} → {m['end']:5.0f} (max {m['max']:.0f}) "
        f"| {r['mb_per_session']:5.1f} "
        f"| {r['kbytes_per_s']:6.0f} | {100 * r['client_cpu']:3.0f} % "
        f"| {r['first_update_s']:5.2f} / {r['first_update_max_s']:5.2f} | {r['refused']} |"
    )


HEADER = (
    "| sessions | updates/s per session (min / median / max) | real-time factor "
    "(min / median) | server CPU (one core = 100 %) | server RSS MB (start → end) "
    "| MB per session | KiB/s sent | load-generator CPU "
    "| page to first update, s (median / max) | pages refused (503) |"
    "\n|---|---|---|---|---|---|---|---|---|---|"
)


async def main_async(args) -> list:
    from integrator_lab.server.server import free_port

    results = []
    print(
        f"{os.cpu_count()} CPUs; {args.duration:g} s per run; acks at "
        f"{'once' if args.ack == 'now' else 'the next 60 Hz refresh'}"
        f"{'; with the page files' if args.assets else ''}"
        f"{f'; server at niceness {args.nice}' if args.nice else ''}",
        flush=True,
    )
    print(HEADER, flush=True)
    for n in args.sessions:
        profile = os.path.join(args.profile, f"sessions-{n}") if args.profile else None
        port = args.port or free_port("127.0.0.1")
        server = Server(port, max(args.sessions), profile, args.nice)
        try:
            await warm(server)
            result = await measure(
                server, n, args.duration, args.warmup, args.one_address, args.ack, args.assets
            )
        finally:
            server.stop()
        results.append(result)
        print(_row(result), flush=True)
        print(
            f"  the machine's load average: {result['loadavg'][0]} -> {result['loadavg'][1]}; "
            f"the server waited for a CPU {100 * result['server_waited']:.0f} % of the run",
            file=sys.stderr,
            flush=True,
        )
        for error in result.get("errors", ()):
            print(f"  the engine said: {error}", flush=True)
        if args.json:  # every row kept as it is measured: a later run may not finish
            write_json(args.json, results)
    return results


def write_json(path: str, results: list) -> None:
    """``results`` as JSON at ``path``, replaced whole (never half-written)."""
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
    os.replace(partial, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m integrator_lab.dev.bench_serve", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--sessions",
        type=int,
        nargs="+",
        default=[1, 5, 10, 20, 30],
        help="numbers of concurrent sessions to measure, one run (and server) each, all of a "
        "run's sessions opened at once (default 1 5 10 20 30: a class last)",
    )
    parser.add_argument(
        "--duration", type=float, default=30.0, help="seconds measured per run (default 30)"
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=WARMUP,
        help=f"seconds between the sessions' start and the measurement (default {WARMUP:g})",
    )
    parser.add_argument("--port", type=int, default=0, help="server port (default: free)")
    parser.add_argument(
        "--one-address",
        action="store_true",
        help="every client from 127.0.0.1, as a class behind one NAT address (default: each "
        "from its own loopback address)",
    )
    parser.add_argument(
        "--ack",
        choices=("refresh", "now"),
        default="refresh",
        help="acknowledge a frame at the next 60 Hz display refresh, as the page does after "
        "drawing it (default), or at once",
    )
    parser.add_argument(
        "--assets",
        action="store_true",
        help="each client also fetches what a browser's first visit does: the Panel page's "
        "scripts, the page in its frame and the page's own files",
    )
    parser.add_argument(
        "--engine-memory",
        action="store_true",
        help="no server: what one session's engine holds as its sample buffers fill",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run the server at this niceness (negative: ahead of the machine's other "
        "work, as on a machine of its own; needs root)",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="also write the results as JSON, after every run"
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="run each server under cProfile: DIR/sessions-N-setup.prof (opening the "
        "sessions until each has its first update), DIR/sessions-N-run.prof (the measured "
        "run)",
    )
    args = parser.parse_args(argv)
    if args.engine_memory:
        for mark, mb in engine_memory():
            print(f"one engine after {mark:g} s simulated: {mb:.1f} MB", flush=True)
        return 0
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
