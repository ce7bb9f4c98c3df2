"""The server's caps and language (``integrator-lab serve --max-sessions``,
``--max-sessions-per-client``, ``--lang``): a page request past a cap is answered at once
with a short page (503) in the language it asks for, no session made, that asks again by
itself; the frame's page speaks the server's language unless its URL names one.

Browser pages: the module's first tab, and a second one, refused, that loads the dashboard
by itself once the first has closed. The per-client cap is checked over plain HTTP from two
loopback addresses (no browser)."""

from __future__ import annotations

import html
import http.client
import json

import pytest
from conftest import LOAD_TIMEOUT_MS, ServedTab, Server, wait_until

from integrator_lab.server import transport
from integrator_lab.views import i18n


@pytest.fixture(scope="module")
def full_server(tmp_path_factory):
    """One session at most, labels in Japanese unless a page's URL names a language."""
    srv = Server(
        tmp_path_factory.mktemp("caps") / "server.log", ["--max-sessions", "1", "--lang", "ja"]
    )
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def first(browser, full_server):
    tab = ServedTab(browser, full_server.url)
    tab.wait_live()
    yield tab
    tab.close()


def get(server, query: str = "", source: str = "127.0.0.1") -> tuple[int, dict, str]:
    """``GET /query`` from the loopback address ``source``: status, headers, text."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=120, source_address=(source, 0)
    )
    try:
        connection.request("GET", "/" + query)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


def assert_refusal(answer, reason: str, lang: str, limit: int) -> None:
    """``answer`` (of :func:`get`) is the page that says, in ``lang``, that cap ``reason``
    was met (``limit``) and that it asks again by itself."""
    status, headers, text = answer
    assert status == 503, (status, text[:300])
    assert headers["Retry-After"] == str(transport.RETRY_AFTER)
    assert headers["Content-Type"].startswith("text/html")
    assert f'<html lang="{lang}">' in text
    for said in (
        i18n.text("server.refused.title", lang),
        i18n.text(f"server.refused.{reason}", lang, limit=limit),
        i18n.text("server.refused.retry", lang, seconds=transport.RETRY_AFTER),
    ):
        assert html.escape(said) in text, (said, text)
    assert f'http-equiv="refresh" content="{transport.RETRY_AFTER}"' in text


def frame_speaks(frame, lang: str) -> None:
    """The page in ``frame`` is in ``lang``: its document, its heading, its panels' titles."""
    assert frame.evaluate("() => document.documentElement.lang") == lang
    assert frame.locator(".il-top h1").inner_text().strip() == i18n.text("page.heading", lang)
    systems = frame.evaluate("() => integratorLab.state().systems")
    titles = frame.locator(".il-panel-title").all_inner_texts()
    for system in systems:
        assert any(i18n.text(f"system.{system}", lang) in title for title in titles), titles


def test_the_frames_page_speaks_the_servers_language(first):
    frame_speaks(first.frame, "ja")
    assert first.errors == []


def test_a_page_past_the_cap_says_so_in_its_language_and_then_loads_by_itself(
    browser, full_server, first
):
    assert len(full_server.status()["sessions"]) == 1  # the first tab's
    # the server's language, or the one the URL names; no session made for either
    assert_refusal(get(full_server), "full", "ja", 1)
    assert_refusal(get(full_server, "?lang=en"), "full", "en", 1)
    status = full_server.status()
    assert len(status["sessions"]) == 1 and status["waiting"] == 0
    # in a browser: the refusal, and the dashboard of its URL once there is room
    second = ServedTab(browser, full_server.url + "?lang=en&systems=spring&integrators=rk4")
    try:
        assert second.response.status == 503
        assert second.page.locator("h1").inner_text() == i18n.text("server.refused.title", "en")
        first.close()
        # (its own refresh: no test code reloads it)
        second.page.wait_for_selector("iframe", timeout=LOAD_TIMEOUT_MS)
        frame = second.wait_live()
        frame_speaks(frame, "en")  # the URL's language over the server's
        state = frame.evaluate("() => integratorLab.state()")
        assert state["systems"] == ["spring"] and state["integrators"] == ["rk4"]
        wait_until(lambda: len(full_server.status()["sessions"]) == 1, what="its session")
        assert second.errors == []
    finally:
        second.close()


def test_a_client_at_its_own_cap_is_refused_while_another_is_admitted(tmp_path):
    srv = Server(tmp_path / "server.log", ["--max-sessions", "3", "--max-sessions-per-client", "1"])
    try:
        ok, _, _ = get(srv)
        assert ok == 200
        assert_refusal(get(srv), "client", "en", 1)
        assert_refusal(get(srv, "?lang=ja"), "client", "ja", 1)
        # another address (another loopback one here) has room of its own
        ok, _, _ = get(srv, source="127.0.0.2")
        assert ok == 200
        status = srv.status()
        assert status["waiting"] == 2, json.dumps(status)  # the two pages admitted, no more
        assert (status["max_sessions"], status["max_sessions_per_client"]) == (3, 1)
    finally:
        srv.stop()
