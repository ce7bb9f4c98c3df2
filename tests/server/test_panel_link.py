"""The Panel dashboard opens the static page's links and keeps its address in the page's
keys; Copy link puts it on the clipboard (issue 29: the Panel dashboard at par)."""

from __future__ import annotations

from conftest import (
    ACTION_TIMEOUT_MS,
    LOAD_TIMEOUT_MS,
    LOADED_JS,
    MESSAGE_JS,
    TEXT_JS,
    my_session,
    wait_until,
)

from integrator_lab.views.i18n import text

QUERY = "integrators=euler,rk4&spring.dt=0.02&log=1&colour=red"


def test_a_page_link_opens_its_view_and_the_address_follows_the_dashboard(browser, server):
    context = browser.new_context(
        viewport={"width": 1440, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{server.url}?{QUERY}", timeout=LOAD_TIMEOUT_MS)
        page.wait_for_function(LOADED_JS, timeout=LOAD_TIMEOUT_MS)
        # the link's settings are the session's
        wait_until(
            lambda: my_session(server, page)["systems"]["spring"]["dt"] == 0.02,
            what="the link's time step",
        )
        assert my_session(server, page)["integrators"] == ["euler", "rk4"]
        # what it could not take is said, naming the key
        message = wait_until(lambda: page.evaluate(MESSAGE_JS), what="a message")
        assert "colour" in message and "unknown setting" in message
        # the address says the view in the page's keys (the refused key gone)
        wanted = "?integrators=euler%2Crk4&log=1&spring.dt=0.02"
        page.wait_for_function(f"location.search === {wanted!r}")
        # a change made here lands in the address
        page.locator(".il-log_scale input").uncheck()
        page.wait_for_function("location.search === '?integrators=euler%2Crk4&spring.dt=0.02'")
        # Copy link: the address on the clipboard, and a note that says so
        page.locator(".il-copy_link button").click()
        page.locator(".il-link-note").wait_for(state="visible")
        assert "copied" in page.evaluate(TEXT_JS, "link:note")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.evaluate("location.origin + location.pathname + location.search")
        # EN | 日本語: the page opens again in Japanese, on the same view
        page.locator(".il-lang button", has_text="日本語").click()
        page.wait_for_function("location.search.includes('lang=ja')", timeout=LOAD_TIMEOUT_MS)
        page.wait_for_function(LOADED_JS, timeout=LOAD_TIMEOUT_MS)
        page.il_session_id = None  # a new session (conftest.session_id_of reads it again)
        assert "spring.dt=0.02" in page.evaluate("location.search")
        heading = text("page.heading", "ja")
        page.get_by_text(heading).first.wait_for(state="visible")
        wait_until(
            lambda: my_session(server, page)["systems"]["spring"]["dt"] == 0.02,
            what="the time step kept in Japanese",
        )
        assert errors == []
    finally:
        context.close()
