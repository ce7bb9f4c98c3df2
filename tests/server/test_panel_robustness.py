"""The Panel server under failure and abuse, driven through headless Chromium: a system
whose computation raises, values sent past the widgets' bounds, a second client trying to
join someone's session, a lost connection, a client that stops acknowledging updates."""

from __future__ import annotations

import asyncio
import html
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from builds import ARTIFACTS
from conftest import (
    LOADED_JS,
    MESSAGE_JS,
    VISIBLE_JS,
    Server,
    my_session,
    open_page,
    read,
    samples,
    session_id_of,
    show_controls,
    sim_time,
    type_into,
    wait_until,
)
from test_panel_hostile import Session

from integrator_lab.server.sessions import MAX_WAITING_PER_CLIENT

pytestmark = pytest.mark.browser

SYSTEM_ERROR_JS = """(name) => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes(`il-${name}-error`))
            return model.visible ? model.text : null;
    }
    return null;
}"""
# a page that stops acknowledging: its acknowledgements no longer change the model
BLOCK_ACKS_JS = "() => { Bokeh.documents[0].get_model_by_name('flow:echo').setv = () => {}; }"


# -- 1: a failing system stops alone ----------------------------------------------------------
class InProcessServer:
    """The dashboard server in a thread of the test process, so that a test can reach a
    session's system instance (to make its computation fail)."""

    def __init__(self, **options):
        from integrator_lab.server.server import make_server
        from integrator_lab.server.sessions import REGISTRY

        self.registry = REGISTRY
        ready = threading.Event()

        def run():
            asyncio.set_event_loop(asyncio.new_event_loop())
            self.server = make_server(port=0, session_lifetime_ms=1000, **options)
            self.server.start()
            ready.set()
            self.server.io_loop.start()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(60), "the in-process server did not start"
        self.url = f"http://127.0.0.1:{self.server.port}/"

    def on_loop(self, function):
        """Run ``function`` on the server's event loop (between ticks); its result."""
        done, out = threading.Event(), []

        def call():
            try:
                out.append(function())
            finally:
                done.set()

        self.server.io_loop.add_callback(call)
        assert done.wait(10)
        return out[0]

    def stop(self):
        self.server.io_loop.add_callback(self.server.io_loop.stop)
        self.thread.join(10)

    def session_ids(self) -> set[str]:
        """The ids of the server's sessions, live or waiting for their page."""
        tornado = self.server._tornado
        return self.on_loop(lambda: {s.id for s in tornado.get_sessions("/")})


@pytest.fixture(scope="module")
def inprocess_server():
    server = InProcessServer()
    yield server
    server.stop()


def test_a_tab_closed_while_bokeh_pings_it_leaves_no_traceback(browser, inprocess_server, caplog):
    """Bokeh's keep-alive job drops a connection whose ping finds its socket closed
    (``client_lost``) before Tornado reports the close; bokeh 3.9 then failed an assertion
    in the close (and in handling the tab's messages still in flight) and logged its
    traceback (seen in CI runs). The test closes the page's socket and runs that job at
    once, as it happened: the session ends, quietly."""
    srv = inprocess_server
    page = open_page(browser, srv.url)
    wait_until(lambda: sim_time(page, "spring") > 0.3, what="the spring to run")
    session_id = session_id_of(page)
    tornado = srv.server._tornado

    def drop():
        (connection,) = [c for c in tornado._clients if c.session.id == session_id]
        connection._socket.ws_connection.stream.close()  # the tab's socket is gone...
        tornado._keep_alive()  # ...and the keep-alive job runs before Tornado sees it

    def session_ended():
        return srv.on_loop(lambda: session_id not in [s.id for s in tornado.get_sessions("/")])

    with caplog.at_level("INFO"):
        srv.on_loop(drop)
        wait_until(session_ended, what="the session to end")
    page.context.close()
    failures = [r for r in caplog.records if r.exc_info or r.levelname == "ERROR"]
    assert failures == [], [r.getMessage() for r in failures]


#: a slow link for the page's own downloads: about 4 Mbit/s, so that its scripts (some MB)
#: come several seconds after its HTML, longer than the test server's 1 s session lifetime
SLOW_LINK = {"offline": False, "latency": 0, "downloadThroughput": 500_000, "uploadThroughput": -1}


def test_a_page_on_a_slow_link_keeps_the_session_made_for_it(
    browser, inprocess_server, monkeypatch
):
    """Bokeh ends a session nobody is connected to after ``--unused-session-lifetime``,
    counted from its creation too: a page whose scripts took longer than that to arrive
    found its session gone, and the server built the whole dashboard a second time for its
    websocket (6 dashboards for 3 pages with two busy processes beside them). The session
    waits for its page's websocket now (``transport.FIRST_CONNECT_GRACE``: seconds, not
    for ever, see the next test), and once the page has come and gone it ends as any
    other does."""
    from integrator_lab.server import app

    srv = inprocess_server
    built = []
    build = app.Dashboard.__init__

    def counted(self, *args, **kwargs):
        built.append(self)
        build(self, *args, **kwargs)

    monkeypatch.setattr(app.Dashboard, "__init__", counted)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW_LINK)
    try:
        started = time.monotonic()
        page.goto(srv.url, timeout=180_000)
        page.wait_for_function(LOADED_JS, timeout=180_000)
        loaded = time.monotonic() - started
        wait_until(lambda: sim_time(page, "spring") > 0.3, what="the spring to run")
        session_id = session_id_of(page)
        assert loaded > 3.0, f"the scripts came after {loaded:.1f} s: no slower than the lifetime"
        assert len(built) == 1, f"{len(built)} dashboards built for one page"
    finally:
        context.close()
    tornado = srv.server._tornado
    # the wait ended when the page connected: the closed tab's session ends within about the
    # lifetime (1 s)
    wait_until(
        lambda: srv.on_loop(lambda: session_id not in [s.id for s in tornado.get_sessions("/")]),
        timeout=30.0,
        what="the closed page's session to end",
    )


def test_a_page_request_whose_page_never_loads_starts_no_simulation_and_ends_in_seconds():
    """A bare ``GET /`` (a crawler, a script; no page loaded, no websocket) made a session
    and started its simulation at once: twenty froze a visitor's clock for 17.6 s and ticked
    on for 60 to 80 s with nobody to see them. Now a session's simulation starts once its
    page has loaded, and a session whose page never connects ends within seconds
    (``transport.FIRST_CONNECT_GRACE``, then Bokeh's unused-session rule)."""
    from integrator_lab.server import transport

    srv = InProcessServer()  # its own: a waiting session would outlive a test
    try:
        # (the registry is the process's: another server's sessions may be in it)
        before = {id(d) for d in srv.on_loop(srv.registry.dashboards)}
        sessions_before = srv.session_ids()
        with urllib.request.urlopen(srv.url, timeout=120) as response:
            assert response.status == 200
        (made,) = srv.session_ids() - sessions_before

        def ended() -> bool:
            running = [d for d in srv.on_loop(srv.registry.dashboards) if id(d) not in before]
            assert running == [], "a page that never loaded has its simulation running"
            return made not in srv.session_ids()

        wait_until(
            ended,
            timeout=transport.FIRST_CONNECT_GRACE + 15.0,
            what="the session of a page that never connected to end",
        )
    finally:
        srv.stop()


def fetch(url: str) -> tuple[int, dict, str]:
    """``GET url``: its status, headers and text (an error status too)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


@pytest.mark.parametrize(
    "options, admitted, reason",
    [
        ({"max_sessions": 1}, 1, "full"),
        ({"max_sessions": 10, "max_sessions_per_client": 1}, 1, "client"),
        ({"max_sessions": 10}, MAX_WAITING_PER_CLIENT, "waiting"),
    ],
    ids=["server-full", "client-full", "client-pages-loading"],
)
def test_a_page_request_past_a_cap_gets_a_page_saying_so_and_no_session(options, admitted, reason):
    """Sessions had no limit: every page request built a dashboard (a second or more of the
    server's only thread each). Past the server's cap (``--max-sessions``), its client
    address's (``--max-sessions-per-client``) or the pages one address may have loading
    (``sessions.MAX_WAITING_PER_CLIENT``), a page request is answered at once with a short
    page in the dashboard's language that says why and retries by itself (503), and no
    session is made for it."""
    from integrator_lab.server import transport
    from integrator_lab.views import i18n

    srv = InProcessServer(**options)
    try:
        for _ in range(admitted):
            assert fetch(srv.url)[0] == 200
        sessions = srv.session_ids()
        assert len(sessions) == admitted
        limit = {"full": 1, "client": 1, "waiting": MAX_WAITING_PER_CLIENT}[reason]
        for lang, query in (("en", ""), ("ja", "?lang=ja")):
            status, headers, text = fetch(srv.url + query)
            assert status == 503, (status, text[:200])
            assert headers["Retry-After"] == str(transport.RETRY_AFTER)
            assert headers["Content-Type"].startswith("text/html")
            for said in (
                i18n.text("server.refused.title", lang),
                i18n.text(f"server.refused.{reason}", lang, limit=limit),
                i18n.text("server.refused.retry", lang, seconds=transport.RETRY_AFTER),
            ):
                assert html.escape(said) in text, (said, text)
            assert f'http-equiv="refresh" content="{transport.RETRY_AFTER}"' in text
        assert srv.session_ids() == sessions, "a session was made for a refused request"
    finally:
        srv.stop()


def test_a_system_whose_computation_raises_stops_alone(browser, inprocess_server, caplog):
    srv = inprocess_server
    page = open_page(browser, srv.url)
    for system in ("pendulum", "cradle", "spring"):
        wait_until(lambda: sim_time(page, system) > 0.3, what=f"{system} to run")

    def break_spring():
        (dashboard,) = srv.registry.dashboards()
        system = dashboard.runs["spring"].system

        def fault(*args):
            raise RuntimeError("injected fault")

        # the system's forces (dependencies of the tick) now raise, in both the general and
        # the one-degree-of-freedom path; the runner takes an ArithmeticError or ValueError
        # for a diverged integrator, anything else is a failure of the system
        system.forces = system.scalar_forces = fault
        return dashboard

    with caplog.at_level("WARNING"):
        dashboard = srv.on_loop(break_spring)
        message = wait_until(
            lambda: page.evaluate(SYSTEM_ERROR_JS, "spring"), what="a message on the spring's panel"
        )
        assert "Damped spring" in message and "RuntimeError: injected fault" in message
        assert page.locator(".il-spring-error").is_visible()
        page.screenshot(path=str(ARTIFACTS / "panel-system-failed-1280.png"))
        stopped = sim_time(page, "spring")
        spring_t = samples(page, "spring", "rk4")["t"]
        # the other two go on, in the page
        for system in ("pendulum", "cradle"):
            t0 = sim_time(page, system)
            wait_until(lambda: sim_time(page, system) > t0 + 1.0, what=f"{system} to go on")
            t = samples(page, system, "rk4")["t"]
            assert t[-1] > t0 + 0.5 and t == sorted(t)
        # the spring stands still, its plots hold no sample made after the failure
        assert sim_time(page, "spring") == stopped
        assert samples(page, "spring", "rk4")["t"] == spring_t
        for name in ("spring:scene:bodies", "spring:scene:ghost_bodies"):
            for column in read(page, name, ("x", "y")).values():
                assert all(v == v for v in column), name  # no NaN
    failures = [r for r in caplog.records if "spring stopped" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is None
    assert not any(r.exc_info for r in caplog.records)
    # a new setting builds a new spring, which runs (its exact solution is the core's again)
    type_into(page, "il-spring-stiffness", 20)
    wait_until(
        lambda: page.evaluate(SYSTEM_ERROR_JS, "spring") is None, what="the spring's message to go"
    )
    wait_until(lambda: sim_time(page, "spring") > 0.3, what="the new spring to run")
    assert "spring" not in dashboard.failed
    # an exact solution that raises hides only the ghost, says so, and the spring goes on
    # (as on the static page)

    def break_exact():
        (dashboard,) = srv.registry.dashboards()

        def exact(t):
            raise OverflowError("math range error")

        dashboard.runs["spring"].system.exact = exact

    srv.on_loop(break_exact)
    message = wait_until(
        lambda: page.evaluate(SYSTEM_ERROR_JS, "spring"), what="the exact solution's message"
    )
    assert "exact solution failed" in message and "OverflowError" in message
    t0 = sim_time(page, "spring")
    wait_until(lambda: sim_time(page, "spring") > t0 + 0.5, what="the spring to go on")
    assert page.errors == []
    page.context.close()


# -- 8: values past the widgets' bounds -------------------------------------------------------
# widget, value sent, what the message names: the parameter and the value as received
OUT_OF_RANGE = [
    ("il-pendulum-length", "Infinity", "length", "got inf"),
    ("il-pendulum-length", "-1", "length", "got -1"),
    ("il-pendulum-length", "1e308", "length", "got 1e+308"),
    ("il-cradle-balls", "1e9", "balls", "got 1000000000"),
    ("il-cradle-balls", "2.5", "balls", "got 2.5"),
    ("il-spring-dt", "0", "dt", "got 0"),
    ("il-spring-dt", "10", "dt", "got 10"),
    ("il-speed", "NaN", "Speed", "got nan"),
    ("il-speed", "-1", "Speed", "got -1"),
    ("il-speed", "1e9", "Speed", "got 1000000000"),
]
RAW_SET_JS = """([cls, value]) => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes(cls)) {
            model.value = Number(value);
            return true;
        }
    }
    return false;
}"""


def test_values_past_the_bounds_get_a_message_and_no_traceback(new_page, server):
    log_before = len(server.log())
    page = new_page()
    wait_until(lambda: sim_time(page, "spring") > 0.2, what="the page to run")
    for cls, value, label, got in OUT_OF_RANGE:
        assert page.evaluate(RAW_SET_JS, [cls, value])

        def says_it():
            message = page.evaluate(MESSAGE_JS)
            return message if message and label in message and got in message else None

        message = wait_until(says_it, what=f"a message about {cls} = {value}")
        # the accepted range, as the declared bounds say
        assert {
            "length": "(0, 100]",
            "balls": "[2, 10]",
            "dt": "[1e-05, 0.5]",
            "Speed": "[0.1, 4]",
        }[label] in message, message
        # the input shows the value in force again
        wait_until(
            lambda: page.evaluate(
                "(cls) => { for (const m of Bokeh.documents[0].all_models) if (m.css_classes &&"
                " m.css_classes.includes(cls)) return Number.isFinite(m.value) && m.value > 0 &&"
                " m.value < 1e3; }",
                cls,
            ),
            what=f"{cls} to show the value in force",
        )
    # a typed out-of-range value, and an emptied field, say so too
    type_into(page, "il-pendulum-length", 0)
    wait_until(
        lambda: (m := page.evaluate(MESSAGE_JS)) and "length" in m and "got 0" in m,
        what="a message about a typed length of 0",
    )
    type_into(page, "il-spring-dt", "")
    wait_until(
        lambda: (m := page.evaluate(MESSAGE_JS)) and "dt" in m and "empty" in m and "0.5" in m,
        what="a message about an empty dt",
    )
    assert page.locator(".il-message").is_visible()
    page.screenshot(path=str(ARTIFACTS / "panel-refused-value.png"))
    # the session runs on, at the speed in force, with the settings in force
    t0 = sim_time(page, "pendulum")
    wait_until(lambda: sim_time(page, "pendulum") > t0 + 0.5, what="the session to go on")
    mine = [s for s in server.status()["sessions"] if s["speed"] == 1.0]
    assert any(
        s["systems"]["pendulum"]["params"]["length"] == 1.0
        and s["systems"]["cradle"]["params"]["balls"] == 5
        and s["systems"]["spring"]["dt"] == 0.01
        for s in mine
    )
    log = server.log()[log_before:]
    assert "Traceback" not in log and "ERROR" not in log, log
    assert page.errors == []


#: values of the wrong type for a widget's property, 50 kB each (as any client can send)
WRONGLY_TYPED = [
    ("il-speed", "x" * 50_000),  # text for a number
    ("il-spring-dt", ["y"] * 10_000),  # a list for a number
    ("il-integrators", "z" * 50_000),  # text for a list of names
]


def test_a_wrongly_typed_value_leaves_one_short_line_in_the_log(server):
    """Bokeh refuses a value of the wrong type for a property, and logged the message whole,
    with the exception (which repeats the value) and a traceback: 152 kB of log for a 50 kB
    value, a log any client could grow at will. One line of at most
    ``transport.LOG_LINE_MAX`` characters per refused message now; the session goes on."""
    from integrator_lab.server.transport import LOG_LINE_MAX

    client = Session(server.url)  # Bokeh's websocket protocol, as BokehJS speaks it
    try:
        before = len(server.log())
        for cls, value in WRONGLY_TYPED:
            client.set(cls, "value", value)

        def refusals():
            said = server.log()[before:].splitlines()
            lines = [line for line in said if "failed to validate" in line]
            return lines if len(lines) >= len(WRONGLY_TYPED) else None

        lines = wait_until(refusals, what="a log line per refused message")
        added = server.log()[before:]
        assert "Traceback" not in added
        # the line's head (time, level, logger) and its text, at most LOG_LINE_MAX long
        assert all(len(line) < LOG_LINE_MAX + 100 for line in lines), lines
        assert len(added) < len(WRONGLY_TYPED) * (LOG_LINE_MAX + 100), added[:2000]
        updates = client.updates
        wait_until(lambda: client.updates > updates + 5, what="the session to go on")
    finally:
        client.close()


# -- 6: sessions are private ------------------------------------------------------------------
def test_another_client_cannot_join_a_session(new_page, server):
    victim = new_page()
    victim_id = session_id_of(victim)
    # /status counts sessions but does not say how to open them
    status = json.dumps(server.status())
    assert victim_id not in status and victim_id.split(".")[0] not in status
    # a second browser asking for the victim's session gets its own
    page = new_page(query="?bokeh-session-id=" + victim_id)
    assert session_id_of(page) != victim_id
    type_into(page, "il-spring-stiffness", 60)
    page.locator(".il-playing button").click()
    wait_until(
        lambda: my_session(server, page)["playing"] is False, what="the second session to pause"
    )
    # the victim's simulation neither paused nor changed
    t0 = sim_time(victim, "spring")
    wait_until(lambda: sim_time(victim, "spring") > t0 + 0.3, what="the victim to go on")
    assert victim.locator(".il-spring-stiffness input").input_value() == "15"
    assert victim.locator(".il-playing button").inner_text() == "Pause"
    # nor can a token be made for it without the server's key: the websocket refuses it
    from bokeh.util.token import generate_jwt_token

    forged = generate_jwt_token(victim_id, signed=False, secret_key=None)
    refused = page.evaluate(
        """([url, token]) => new Promise((resolve) => {
        const ws = new WebSocket(url, ["bokeh", token]);
        ws.onmessage = () => { ws.close(); resolve(false); };
        ws.onclose = () => resolve(true);
        ws.onerror = () => resolve(true);
    })""",
        [server.url.replace("http", "ws") + "ws", forged],
    )
    assert refused


# -- 9: lost connections, stalled clients -----------------------------------------------------
# generous: a page that is only slow (a loaded machine, a page still fitting its first screen)
# must not count as stalled before it ever acknowledged; the behaviour under test is the same
STALLED_MS = 10_000


@pytest.fixture
def short_server(tmp_path):
    srv = Server(tmp_path / "server.log", ["--stalled-client-timeout", str(STALLED_MS)])
    yield srv
    srv.stop()


#: a tab in the background: it runs no animation frame (the page acknowledges an update once
#: painted, after the next one), and says it is hidden
HIDE_JS = """(hidden) => {
    window.requestAnimationFrame = () => 0;
    if (hidden) Object.defineProperty(document, "hidden", { get: () => true });
}"""


@pytest.mark.parametrize("hidden", [False, True], ids=["frames-stopped", "hidden"])
def test_a_tab_in_the_background_keeps_its_session(browser, short_server, hidden):
    # the page acknowledges an update once painted; a background tab paints nothing, and had
    # its session ended as a stalled client's: it acknowledges at once when hidden, and within
    # a second when its animation frames stop otherwise
    srv = short_server
    page = open_page(browser, srv.url)
    wait_until(lambda: my_session(srv, page)["acked"] > 0, what="a first acknowledgement")
    page.evaluate(HIDE_JS, hidden)
    hidden_at = time.monotonic()
    acked = my_session(srv, page)["acked"]
    # the behaviour: longer than the stalled-client timeout, the session lives and the page
    # goes on acknowledging
    wait_until(
        lambda: (
            time.monotonic() - hidden_at > STALLED_MS / 1e3 + 2
            and my_session(srv, page)["acked"] > acked + 5
        ),
        timeout=STALLED_MS / 1e3 + 60,
        what="acknowledgements past the stalled-client timeout",
    )
    assert srv.status()["callbacks"] == 1
    assert "acknowledged no update" not in srv.log()
    assert not page.evaluate(VISIBLE_JS, "disconnected")


def _owes_nothing(srv, page):
    """Whether ``page``'s session has acknowledged every update it was sent (paused: no more
    come, and it can owe none)."""
    session = my_session(srv, page)
    return session["acked"] > 0 and session["acked"] == session["updates"]


def test_lost_connection_and_stalled_client(browser, short_server):
    srv = short_server
    # the two pages open paused (?play=0), one after the other: a page owes acknowledgements
    # only for what it is sent, so the first, once it acknowledged its first frames, owes none
    # while the second loads (two pages loading and playing at once on a loaded machine: the
    # first went its whole timeout without painting, and was ended as stalled). One system
    # each: a third of the painting per update, for a page that must keep acknowledging
    query = "?play=0&systems=spring"
    live = open_page(browser, srv.url + query)
    wait_until(lambda: _owes_nothing(srv, live), what="the first page to acknowledge its frames")
    stalled = open_page(browser, srv.url + query, viewport=(390, 844))
    wait_until(lambda: _owes_nothing(srv, stalled), what="the second to acknowledge its frames")
    assert not live.evaluate(VISIBLE_JS, "disconnected"), srv.log()
    stalled_label = my_session(srv, stalled)["session"]
    live_label = my_session(srv, live)["session"]
    stalled.evaluate(BLOCK_ACKS_JS)
    played_at = time.monotonic()
    for page in (stalled, live):
        show_controls(page)  # (a phone folds them away)
        page.locator(".il-playing button").click()
        wait_until(lambda: my_session(srv, page)["playing"], what="a session to play")

    def labels():
        return [s["session"] for s in srv.status()["sessions"]]

    # the page that stopped acknowledging is ended after the timeout (counted from the first
    # update it did not acknowledge, sent once it played), the other is not
    wait_until(
        lambda: stalled_label not in labels(),
        timeout=STALLED_MS / 1e3 + 60,
        what="the stalled session to end",
    )
    ended_at = time.monotonic()
    assert ended_at - played_at >= STALLED_MS / 1e3 - 1, srv.log()  # (not before its timeout)
    assert labels() == [live_label], srv.log()
    wait_until(lambda: stalled.evaluate(VISIBLE_JS, "disconnected"), what="its banner")
    assert stalled.get_by_text("Connection to the server lost").is_visible()
    stalled.screenshot(path=str(ARTIFACTS / "panel-stalled-390.png"))
    # the page that acknowledges is not ended, a whole stalled-client timeout on: it goes on
    # acknowledging, and its session stays
    acked = my_session(srv, live)["acked"]

    def acknowledged_for_a_timeout():
        assert labels() == [live_label], srv.log()
        return (
            time.monotonic() - ended_at > STALLED_MS / 1e3 + 1
            and my_session(srv, live)["acked"] > acked + 5
        )

    wait_until(
        acknowledged_for_a_timeout,
        timeout=STALLED_MS / 1e3 + 60,
        what="acknowledgements for a stalled-client timeout",
    )
    assert srv.status()["callbacks"] == 1
    assert not live.evaluate(VISIBLE_JS, "disconnected"), srv.log()
    t0 = sim_time(live, "spring")
    wait_until(lambda: sim_time(live, "spring") > t0 + 0.3, what="the live page to go on")
    ended = [line for line in srv.log().splitlines() if "ended" in line]
    assert len(ended) == 1 and "acknowledged no update" in ended[0], srv.log()
    assert stalled_label in ended[0], srv.log()
    # the server goes away: the page says so and offers a reload
    srv.stop()
    wait_until(lambda: live.evaluate(VISIBLE_JS, "disconnected"), what="the banner")
    assert live.get_by_text("Connection to the server lost").is_visible()
    assert live.get_by_role("button", name="Reload").is_visible()
    live.screenshot(path=str(ARTIFACTS / "panel-disconnected-1280.png"))
    assert "Traceback" not in srv.log_path.read_text()
    for page in (live, stalled):
        page.context.close()
