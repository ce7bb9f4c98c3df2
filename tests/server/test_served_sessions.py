"""What the server host adds around the page's own front end (``integrator-lab serve``):
private sessions, every request answered by this server, a phone's width for the frame, and
the end of a closed tab's session. (The page in the frame is the static page's: tests/site.)

Two tabs for the whole module: the ``desk``, a laptop's, and the ``phone``, whose request
names the desk's session (its id and its token, in the query and in Bokeh's header), as
someone who learnt them would. Each test resets a tab through the page's own API."""

from __future__ import annotations

import json

import pytest
from conftest import (
    ACTION_TIMEOUT_MS,
    TOKEN_JS,
    ServedTab,
    listed,
    requests_elsewhere,
    wait_until,
)

from integrator_lab.server.sessions import session_label

#: a phone: 390 x 844 CSS px, a touch screen, a mobile browser (which lays a page without a
#: viewport tag out 980 px wide and shrinks it)
PHONE = {"viewport": (390, 844), "is_mobile": True, "has_touch": True}
#: a closed tab's session ends within this long (s): its websocket's close, then the
#: server's unused-session rule (conftest.SESSION_LIFETIME_MS, looked at every quarter of
#: it); the rest is what a loaded machine adds
SESSION_END_S = 15.0


def apply(frame, query: str) -> None:
    """The page's own reset: ``query``'s view, in place (resolves on its first frame)."""
    frame.evaluate("(q) => integratorLab.apply(q)", query)


def sim_time(frame, system: str) -> float:
    return frame.evaluate("(s) => integratorLab.status().systems[s].simTime", system)


@pytest.fixture(scope="module")
def desk(browser, server):
    tab = ServedTab(browser, server.url)
    tab.wait_live()
    tab.token = tab.page.evaluate(TOKEN_JS)
    wait_until(lambda: listed(server, tab.session_id()), what="the desk's session in /status")
    yield tab
    tab.close()


@pytest.fixture(scope="module")
def phone(browser, server, desk):
    """A phone's tab whose request names the desk's session every way Bokeh reads one.
    (Bokeh answers 403 to a request naming it both in the query and in the header, and
    gives any one of the three alone its session: a server that let one through fails.)"""
    victim = desk.session_id()
    tab = ServedTab(
        browser,
        f"{server.url}?bokeh-session-id={victim}&bokeh-token={desk.token}",
        extra_http_headers={"Bokeh-Session-Id": victim},
        viewport=PHONE["viewport"],
        is_mobile=True,
        has_touch=True,
    )
    yield tab  # (loading: each test waits for its frame, the first after checking its id)
    tab.close()  # (again, after the test that closes it: nothing)


def test_status_names_a_session_by_a_digest_that_cannot_open_it(desk, server):
    session_id = desk.session_id()
    status = json.dumps(server.status())
    assert session_id not in status and desk.token not in status
    assert listed(server, session_id)["session"] == session_label(session_id)


def test_a_request_naming_another_session_gets_a_new_one(desk, phone, server):
    victim = desk.session_id()
    assert phone.session_id() != victim
    phone.wait_live()
    wait_until(lambda: listed(server, phone.session_id()), what="the phone's own session")
    apply(desk.frame, "?systems=spring,pendulum&integrators=rk4")
    # the phone's view, run by its own engine: the desk's is not touched
    apply(phone.frame, "?systems=cradle&integrators=euler&play=0")
    wait_until(
        lambda: set(listed(server, phone.session_id())["systems"]) == {"cradle"},
        what="the phone's session to run the cradle alone",
    )
    assert listed(server, phone.session_id())["playing"] is False
    mine = listed(server, victim)
    assert set(mine["systems"]) == {"spring", "pendulum"} and mine["playing"] is True
    t0 = sim_time(desk.frame, "spring")
    desk.frame.wait_for_function(
        f"() => integratorLab.status().systems.spring.simTime > {t0} + 0.3",
        timeout=ACTION_TIMEOUT_MS,
    )
    # nor does a token made without the server's key open the desk's session: the server
    # closes the websocket before a word of the session
    from bokeh.util.token import generate_jwt_token

    forged = generate_jwt_token(victim, signed=False, secret_key=None)
    refused = phone.page.evaluate(
        """([url, token]) => new Promise((resolve) => {
            const ws = new WebSocket(url, ["bokeh", token]);
            ws.onmessage = () => { ws.close(); resolve(false); };
            ws.onclose = () => resolve(true);
        })""",
        [server.url.replace("http", "ws", 1) + "ws", forged],
    )
    assert refused
    assert desk.errors == [] and phone.errors == []


def test_every_request_of_a_served_tab_goes_to_its_server(desk, phone, server):
    phone.wait_live()
    # what loads more of the page: another system's panel, the editor's bundle
    apply(desk.frame, "?systems=cradle&integrators=rk4,yoshida4")
    desk.frame.locator("#il-editor summary").click()
    desk.frame.locator("#il-editor .cm-editor, #il-editor textarea").first.wait_for()
    for tab in (desk, phone):
        frame_files = [url for url in tab.requests if "/lab/" in url]
        assert any(url.endswith(".js") for url in frame_files), tab.requests
        assert requests_elsewhere(tab.requests, server.port) == []


def test_on_a_phone_the_frame_holds_the_pages_own_fold(phone):
    phone.wait_live()
    apply(phone.frame, "")
    width = PHONE["viewport"][0]
    # the host lays its page out at the phone's width (a viewport tag), and nothing of it
    # is wider: no sideways scroll of the tab
    assert phone.page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert phone.page.evaluate("() => window.innerWidth") == width
    frame_width = phone.frame.evaluate("() => window.innerWidth")
    assert width - 20 <= frame_width <= width
    assert phone.frame.evaluate("() => document.documentElement.scrollWidth") <= frame_width
    # ... so the page in the frame folds as on a phone: one bar, the controls a tap away
    bar = phone.frame.locator("#il-bar")
    assert bar.is_visible() and bar.bounding_box()["height"] < 120
    integrators = phone.frame.locator("#il-control-integrators")
    assert not integrators.is_visible()
    phone.frame.locator("#il-more").tap()
    integrators.wait_for(state="visible")
    phone.frame.locator("#il-more").tap()
    integrators.wait_for(state="hidden")
    assert phone.errors == []


def test_a_closed_tabs_session_ends_within_seconds_and_the_others_go_on(desk, phone, server):
    apply(desk.frame, "?systems=spring&integrators=rk4")
    phone.wait_live()
    gone = phone.session_id()
    wait_until(lambda: listed(server, gone), what="the phone's session")
    phone.close()
    wait_until(
        lambda: listed(server, gone) is None,
        timeout=SESSION_END_S,
        what="the closed tab's session (and its engine) to end",
    )
    assert listed(server, desk.session_id()) is not None
    t0 = sim_time(desk.frame, "spring")
    desk.frame.wait_for_function(
        f"() => integratorLab.status().systems.spring.simTime > {t0} + 0.3",
        timeout=ACTION_TIMEOUT_MS,
    )
