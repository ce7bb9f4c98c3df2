"""The load benchmark's clients (``integrator_lab.dev.bench_serve``) open a class at once.

Its clients shared one HTTP client, which keeps 10 connections and queues the rest (with
20 s timeouts): 30 sessions opened at once never were, and the run broke. Here 30 clients
ask a stand-in server (plain Tornado, no dashboard: the clients' side is under test) for
the page, which answers none until all 30 requests are in: each client has its own
connection and its own address, and takes a refusal (503) as the refusal page does.
Its ``--json`` was written only at the end: a run that broke lost every row; each row is
kept as it is measured.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading

import pytest
from tornado.web import Application, RequestHandler

from integrator_lab.dev import bench_serve

CLASS = 30  # sessions opened at once: a class
#: the stand-in's refusal asks the clients to come back much later than the test lasts
RETRY_AFTER = 3600


def in_thread(function, *args):
    """``function(*args)`` in a thread of its own, its result or its exception: it runs an
    event loop, and the test's thread may run one already (Playwright's, in a run with
    browser tests)."""
    out: dict = {}

    def call():
        try:
            out["result"] = function(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["result"]


class _Door:
    """The requests for the page under way, and the addresses they came from."""

    def __init__(self, expected: int):
        self.expected = expected
        self.open = 0
        self.peak = 0
        self.addresses: set[str] = set()
        self.all_in = asyncio.Event()


def _stand_in(door: _Door) -> Application:
    class Page(RequestHandler):
        async def get(self):
            door.open += 1
            door.peak = max(door.peak, door.open)
            door.addresses.add(self.request.remote_ip)
            if door.open >= door.expected:
                door.all_in.set()
            await door.all_in.wait()  # nobody is answered before every request is in
            door.open -= 1
            self.set_status(503)
            self.set_header("Retry-After", str(RETRY_AFTER))
            self.finish("full")

    return Application([(r"/", Page)])


def test_a_class_of_clients_asks_for_its_pages_at_once_each_from_its_own_address():
    async def run():
        door = _Door(CLASS)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = _stand_in(door).listen(port, address="127.0.0.1")
        clients = [
            bench_serve.Client(port, bench_serve.client_address(i, False)) for i in range(CLASS)
        ]
        stop = asyncio.Event()
        tasks = [asyncio.create_task(client.run(stop)) for client in clients]
        try:
            # generous: the behaviour under test is whether all come in, not how fast
            await asyncio.wait_for(door.all_in.wait(), timeout=120)

            async def all_refused():
                while sum(client.refused for client in clients) < CLASS:
                    await asyncio.sleep(0.05)  # a poll of the clients' counts

            await asyncio.wait_for(all_refused(), timeout=120)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            server.stop()
        return door, clients

    door, clients = in_thread(lambda: asyncio.run(run()))
    assert door.peak == CLASS
    assert len(door.addresses) == CLASS
    assert [client.refused for client in clients] == [1] * CLASS
    assert all(client.session_id is None for client in clients)  # none got a page


def test_json_keeps_every_row_as_it_is_measured(tmp_path, monkeypatch):
    """A run that breaks after its first row leaves that row in ``--json``."""
    rates = {"min": 21.0, "median": 21.5, "max": 22.0}
    row = {
        "sessions": 1,
        "updates_per_s": rates,
        "rtf": {"min": 1.0, "median": 1.0, "max": 1.0},
        "server_cpu": 0.1,
        "server_rss_mb": {"start": 90.0, "end": 100.0, "max": 100.0},
        "kbytes_per_s": 50.0,
        "client_cpu": 0.05,
        "first_update_s": 2.0,
        "first_update_max_s": 2.0,
        "refused": 0,
        "mb_per_session": 5.0,
        "loadavg": [1.0, 1.0],
        "server_waited": 0.0,
    }
    rows = [row]

    class Server:  # no server: the bookkeeping of rows is under test
        def __init__(self, port, max_sessions, profile=None, nice=0):
            self.max_sessions = max_sessions
            self.process = type("Process", (), {"pid": 0})()

        def rss_mb(self):
            return 0.0

        def status(self):
            return {"callbacks": 0}

        def stop(self):
            pass

    async def warm(server):
        pass

    async def measure(server, sessions, *args):
        if sessions == 1:
            return rows[0]
        raise RuntimeError("the second run broke")

    monkeypatch.setattr(bench_serve, "Server", Server)
    monkeypatch.setattr(bench_serve, "warm", warm)
    monkeypatch.setattr(bench_serve, "measure", measure)
    out = tmp_path / "rows.json"
    with pytest.raises(RuntimeError, match="second run"):
        in_thread(bench_serve.main, ["--sessions", "1", "30", "--port", "1", "--json", str(out)])
    assert json.loads(out.read_text()) == rows


def test_the_clients_messages_reach_the_component_as_the_pages_do():
    """What a client sends is, to Panel, the page's ``model.send_msg``: the component's
    ``_handle_msg`` gets the very message; and a client reads the type of what the
    component's ``_send_msg`` sends."""
    from bokeh.core.serialization import Serializer
    from bokeh.document import Document
    from panel.custom import JSComponent
    from panel.models.esm import ESMEvent

    class Component(JSComponent):
        _esm = "export function render() {}"

        def __init__(self, **params):
            super().__init__(**params)
            self.heard = []

        def _handle_msg(self, msg):
            self.heard.append(msg)

    doc = Document()
    component = Component()
    model = component.get_root(doc)
    doc.add_root(model)
    sent = [{"type": "spawn"}, bench_serve.default_init(), {"type": "ack"}]
    events = [bench_serve.component_message(model.id, message) for message in sent]
    doc.apply_json_patch(json.loads(json.dumps({"events": events})), setter="page")
    assert component.heard == sent

    answer = ESMEvent(model=model, data={"type": "frame", "systems": {"spring": {"time": 0.5}}})
    wire = {"kind": "MessageSent", "msg_type": "bokeh_event",
            "msg_data": Serializer().encode(answer)}  # fmt: skip
    assert bench_serve.answer_type(json.loads(json.dumps(wire))) == "frame"
    events[0]["msg_data"]["name"] = "document_ready"  # not a component's answer
    assert bench_serve.answer_type(events[0]) is None


def test_the_init_is_the_default_view_the_core_accepts():
    """The client's ``init`` names the dashboard's systems, each with the parameters and
    time step the core takes as its defaults, and the default integrators."""
    from integrator_lab.core import DEFAULT_INTEGRATORS
    from integrator_lab.views.engine import Engine

    init = bench_serve.default_init()
    engine = Engine()
    answers = engine.handle(init)
    assert [a["type"] for a in answers] == ["layout"] * len(init["systems"]) + ["ready"]
    for answer in answers[:-1]:
        layout = answer["layout"]
        assert answer["errors"] == []
        assert layout["dt"] == layout["recommended_dt"]
        assert layout["integrators"] == list(DEFAULT_INTEGRATORS)
