"""Load benchmark of the Panel server: N concurrent sessions against one server.

For each N, opens N sessions at once (a class of 30 opening the link together is the
default's last row), lets them run for a while and reports, per N: each session's update
rate (updates received per second), its simulations' real-time factor, the server
process's CPU and memory over the run, how long a visitor waited for the first update and
how many page requests the server's caps turned away first. Not a test: a measurement,
run by hand::

    python -m integrator_lab.dev.bench_serve --sessions 1 5 10 15 20 30 --duration 60

The clients speak Bokeh's websocket protocol directly (what BokehJS does in a browser,
minus the drawing): pull the document, say it is drawn, then read every update and
acknowledge it the way the page does (``js/apply_frames.js`` of
:mod:`integrator_lab.server`). A browser per session would measure the browsers, not the
server, on a small machine. Each client has its own HTTP client and its own loopback
address (127.0.0.2, 127.0.0.3, ...), as the visitors of a class have their own machines
(``--one-address``: all from 127.0.0.1, a class behind one NAT address); a page request the
server refuses (503: ``--max-sessions``, or pages loading from one address) is asked again
after its ``Retry-After``, as the refusal page does. ``--json`` keeps every row as it is
measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request

from bokeh.util.token import get_session_id
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

from integrator_lab.server.sessions import session_label  # how /status names a session

SAMPLE_EVERY = 5.0  # s between samples of the server's CPU and memory
WARMUP = 5.0  # s after the last session has its first update, before measuring
#: how long (s) one client waits for its page or its websocket: a class opening at once
#: waits for the server to build every dashboard before its own (a second or more each)
CLIENT_TIMEOUT = 600.0
#: how long (s) the sessions of a run may take to all send their first update, per session
SETUP_PER_SESSION = 10.0
#: what BokehJS sends once it has drawn the document it pulled (the simulation starts then)
DOCUMENT_READY = {
    "kind": "MessageSent",
    "msg_type": "bokeh_event",
    "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# -- one client session -------------------------------------------------------------------
class Client:
    """One dashboard session over a raw websocket: counts updates and acknowledges them."""

    def __init__(self, port: int, address: str = "127.0.0.1"):
        self.port = port
        self.address = address  # the client's own (source) address
        self.session_id = None  # the server's, from the page
        self.updates = 0  # beacons received
        self.first_update = None
        self.asked = None  # when it asked for the page: a session is made for it then
        self.bytes = 0
        self.closed = False
        self.refused = 0  # page requests the server turned away (503) before this one

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

    async def run(self, stop: asyncio.Event) -> None:
        # the server signs its sessions: a session (and its token) comes with the page. Its
        # own HTTP client: a shared one keeps 10 connections and queues the rest
        self.asked = time.monotonic()
        http = AsyncHTTPClient(force_instance=True)
        try:
            text = await self._page(http)
        finally:
            http.close()
        token = re.search(r'"token":\s*"([^"]+)"', text).group(1)
        self.session_id = get_session_id(token)
        conn = await websocket_connect(
            self._request(f"ws://127.0.0.1:{self.port}/ws"),
            subprotocols=["bokeh", token],
            max_message_size=256 * 1024 * 1024,
        )
        try:
            msgtype, _ = await self._receive(conn)  # the server's ACK: the session exists
            if msgtype != "ACK":
                raise RuntimeError(f"expected ACK from the server, got {msgtype}")
            await self._send(conn, "PULL-DOC-REQ", {})
            beacon = echo = None
            while not stop.is_set():
                msgtype, content = await self._receive(conn)
                if msgtype is None:
                    break
                if msgtype == "PULL-DOC-REPLY":
                    beacon = _model_id(content, "flow:carrier")
                    echo = _model_id(content, "flow:echo")
                    await self._send(conn, "PATCH-DOC", {"events": [DOCUMENT_READY]})
                elif msgtype == "PATCH-DOC" and beacon is not None:
                    for event in content.get("events", ()):
                        if (
                            event.get("kind") == "ModelChanged"
                            and event.get("attr") == "tags"
                            and event.get("model", {}).get("id") == beacon
                        ):
                            self.updates += 1
                            if self.first_update is None:
                                self.first_update = time.monotonic()
                            meta = json.loads(event["new"][0])
                            if not meta["ack"]:
                                continue
                            await self._send(
                                conn,
                                "PATCH-DOC",
                                {
                                    "events": [
                                        {
                                            "kind": "ModelChanged",
                                            "model": {"id": echo},
                                            "attr": "tags",
                                            "new": [meta["seq"]],
                                        }
                                    ]
                                },
                            )
        finally:
            conn.close()
            self.closed = True

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


def _model_id(tree, name):
    """The id of the model called ``name`` in a serialised Bokeh document."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "object" and node.get("attributes", {}).get("name") == name:
                return node["id"]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    raise LookupError(f"no model named {name!r} in the document")


# -- the server ---------------------------------------------------------------------------
class Server:
    def __init__(self, port: int, max_sessions: int):
        self.port = port
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "integrator_lab.cli.main",
                "serve",
                "--port",
                str(port),
                "--no-show",
                "--unused-session-lifetime",
                "1000",
                "--max-sessions",
                str(max_sessions),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                self.status()
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)

    def status(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/status", timeout=30) as r:
            return json.loads(r.read())

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime

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


# -- one measurement ----------------------------------------------------------------------
async def _status(server):
    return await asyncio.to_thread(server.status)


def client_address(index: int, one_address: bool) -> str:
    """The loopback address client ``index`` connects from."""
    if one_address:
        return "127.0.0.1"
    number = index + 2  # 127.0.0.2 on
    return f"127.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"


async def measure(
    server: Server,
    sessions: int,
    duration: float,
    warmup: float = WARMUP,
    one_address: bool = False,
) -> dict:
    stop = asyncio.Event()
    clients = [Client(server.port, client_address(i, one_address)) for i in range(sessions)]
    tasks = [asyncio.create_task(c.run(stop)) for c in clients]
    started = time.monotonic()
    setup_limit = 60 + SETUP_PER_SESSION * sessions
    while any(c.first_update is None for c in clients):
        if time.monotonic() - started > setup_limit or any(t.done() for t in tasks):
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()
            raise RuntimeError("sessions did not start")
        await asyncio.sleep(0.2)
    setup = time.monotonic() - started
    await asyncio.sleep(warmup)

    def clocks(status):
        return {s["session"]: s["systems"] for s in status["sessions"]}

    mine = {session_label(c.session_id) for c in clients}
    t0, cpu0, own0 = time.monotonic(), server.cpu_seconds(), time.process_time()
    updates0 = {c.session_id: c.updates for c in clients}
    bytes0 = sum(c.bytes for c in clients)
    first = clocks(await _status(server))
    rss = [server.rss_mb()]
    while time.monotonic() - t0 < duration:
        await asyncio.sleep(min(SAMPLE_EVERY, duration - (time.monotonic() - t0)))
        rss.append(server.rss_mb())
    elapsed = time.monotonic() - t0
    last = clocks(await _status(server))
    cpu = (server.cpu_seconds() - cpu0) / elapsed
    own = (time.process_time() - own0) / elapsed
    rates = [(c.updates - updates0[c.session_id]) / elapsed for c in clients]
    # real-time factor of each session: the slowest of its systems, over the whole run
    rtfs = []
    for sid in mine:
        if sid in first and sid in last:
            rtfs.append(
                min(
                    (last[sid][name]["time"] - first[sid][name]["time"]) / elapsed
                    for name in last[sid]
                )
            )
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    deadline = time.monotonic() + 30
    while (await _status(server))["callbacks"] and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    return {
        "sessions": sessions,
        "setup_s": setup,
        # from asking for the page to the first update: the session's start, as a visitor
        # waits for it (the server builds a dashboard per session)
        "first_update_s": statistics.median(c.first_update - c.asked for c in clients),
        "first_update_max_s": max(c.first_update - c.asked for c in clients),
        # page requests turned away by the server's caps (503) and asked again
        "refused": sum(c.refused for c in clients),
        "seconds": elapsed,
        "updates_per_s": {"min": min(rates), "median": statistics.median(rates), "max": max(rates)},
        "rtf": {"min": min(rtfs), "median": statistics.median(rtfs), "max": max(rtfs)},
        "server_cpu": cpu,
        "server_rss_mb": {"start": rss[0], "end": rss[-1], "max": max(rss)},
        "rss_every_5s_mb": [round(r, 1) for r in rss],
        "kbytes_per_s": (sum(c.bytes for c in clients) - bytes0) / elapsed / 1024,
        "client_cpu": own,
        "callbacks_after": (await _status(server))["callbacks"],
    }


def _row(r):
    u, f, m = r["updates_per_s"], r["rtf"], r["server_rss_mb"]
    return (
        f"| {r['sessions']:>3} | {u['min']:5.1f} / {u['median']:5.1f} / {u['max']:5.1f} "
        f"| {f['min']:.2f} / {f['median']:.2f} | {100 * r['server_cpu']:4.0f} % "
        f"| {m['start']:5.0f} → {m['end']:5.0f} (max {m['max']:.0f}) "
        f"| {r['kbytes_per_s']:6.0f} | {100 * r['client_cpu']:3.0f} % "
        f"| {r['first_update_s']:5.2f} / {r['first_update_max_s']:5.2f} | {r['refused']} |"
    )


HEADER = (
    "| sessions | updates/s per session (min / median / max) | real-time factor "
    "(min / median) | server CPU (one core = 100 %) | server RSS MB (start → end) "
    "| KiB/s sent | load-generator CPU | page to first update, s (median / max) "
    "| pages refused (503) |"
    "\n|---|---|---|---|---|---|---|---|---|"
)


async def main_async(args) -> list:
    from integrator_lab.server.server import free_port

    server = Server(args.port or free_port("127.0.0.1"), max(args.sessions))
    results = []
    try:
        idle_rss = server.rss_mb()
        print(
            f"server pid {server.process.pid}, idle RSS {idle_rss:.0f} MB; "
            f"{os.cpu_count()} CPUs; {args.duration:g} s per run",
            flush=True,
        )
        print(HEADER, flush=True)
        for n in args.sessions:
            result = await measure(server, n, args.duration, args.warmup, args.one_address)
            results.append(result)
            print(_row(result), flush=True)
            if args.json:  # every row kept as it is measured: a later run may not finish
                write_json(args.json, results)
        print(
            f"after all runs: RSS {server.rss_mb():.0f} MB, live callbacks "
            f"{server.status()['callbacks']}",
            flush=True,
        )
    finally:
        server.stop()
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
        default=[1, 5, 10, 15, 20, 30],
        help="numbers of concurrent sessions to measure, one run each, all of a run's "
        "sessions opened at once (default 1 5 10 15 20 30: a class last)",
    )
    parser.add_argument(
        "--duration", type=float, default=60.0, help="seconds measured per run (default 60)"
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
        "--json", metavar="PATH", help="also write the results as JSON, after every run"
    )
    args = parser.parse_args(argv)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
