"""The page against hostile links, user code that reaches out and files that do not load, in
headless Chromium on the real built page (issue 24, items 13, 19 and 20).
"""

# ruff: noqa: F811 - the tests take the page fixtures imported from pages by name
from __future__ import annotations

import base64
import functools
import http.server
import json
import threading
import urllib.request
import zlib

import pytest
from pages import Page, open_page, site  # noqa: F401 - fixtures
from test_editor import RUN_TIMEOUT_MS, open_editor, run_python

pytestmark = pytest.mark.browser

#: static/js/editor.js MAX_METHOD_BYTES: the most a link's method may inflate to
MAX_METHOD_KB = 256


def method_fragment(text: str) -> str:
    """``#method=`` and ``text`` as the page packs a definition: deflate-raw, base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(text.encode()) + packer.flush()
    return "#method=" + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def test_a_link_that_inflates_beyond_the_cap_is_refused_with_a_message(open_page):
    # 64 MB of code in a 64 kB link (deflate packs spaces about 1000:1)
    code = 'NAME = "big"\n' + " " * (64 * 1024 * 1024) + "\n"
    fragment = method_fragment(json.dumps({"kind": "python", "name": "big", "code": code}))
    assert len(fragment) < 200_000  # the length the page accepts: only its inflation is big
    page = open_page("?systems=spring" + fragment)
    page.wait_live()
    page.wait(
        "Array.from(document.querySelectorAll('#il-messages li'))"
        f".some((li) => li.textContent.includes('{MAX_METHOD_KB} kB'))",
        RUN_TIMEOUT_MS,
    )
    assert "method=" not in page.page.url  # the link no longer carries it
    assert not page.page.locator("#il-editor details").get_attribute("open")
    heap = page.context.new_cdp_session(page.page).send("Runtime.getHeapUsage")
    assert heap["usedSize"] < 64 * 1024 * 1024  # it was never inflated whole


def test_a_deeply_nested_link_says_so_instead_of_checking_for_ever(open_page):
    depth = 100_000
    text = '{"kind": "tableau", "name": "deep", "a": ' + "[" * depth + "]" * depth
    text += ', "b": [1], "c": [0]}'
    page = open_page("?systems=spring" + method_fragment(text))
    page.wait_live()
    page.wait(
        "Array.from(document.querySelectorAll('#il-messages li'))"
        ".some((li) => li.textContent.includes('nests more than'))",
        RUN_TIMEOUT_MS,
    )
    assert "Checking" not in page.page.text_content("#il-editor-info")
    assert page.status()["method"]["sentAt"] is None  # nothing was sent to the worker
    assert not page.errors


#: what many static hosts send for a file they do not have: their own page, as HTTP 200
HOST_PAGE = "<!doctype html><title>Not found</title><p>There is no such page here.</p>"


# (the page's own files have hashed names: static/page.HASH.js). A script that came as the
# host's page in its place does not parse: that throws, and no error event on its element
@pytest.mark.parametrize(
    "missing, answer",
    [
        ("static/page.", "none"),
        ("bokeh/bokeh.", "none"),
        ("bokeh/bokeh-widgets.", "none"),
        ("bokeh/bokeh-widgets.", "host page"),
        ("bokeh/bokeh.", "host page"),
    ],
)
def test_a_page_script_that_does_not_load_is_named_on_the_page(browser, site, missing, answer):
    page = Page(browser, site, "", defer=True, service_workers="block")
    try:
        if answer == "none":
            page.page.route(f"**/{missing}*", lambda route: route.abort())
        else:
            page.page.route(
                f"**/{missing}*",
                lambda route: route.fulfill(status=200, content_type="text/html", body=HOST_PAGE),
            )
        page.go()
        note = page.page.locator("#il-served")
        note.wait_for(state="visible", timeout=RUN_TIMEOUT_MS)
        file = next(
            src
            for src in page.js("Array.from(document.scripts, (s) => s.src)")
            if f"/{missing}" in src
        )
        file = file.removeprefix(site["url"])
        assert note.inner_text().startswith(f"The page could not start: {file} did not load.")
        # every panel's note points up to it
        veils = page.js(
            "Array.from(document.querySelectorAll('.il-loading span'), (s) => s.textContent)"
        )
        assert veils and all(v == f"Not running: {file} did not load (see above)" for v in veils)
    finally:
        page.close()


# -- Content-Security-Policy: user code's requests stay on the site --------------------------
class Recorder(http.server.BaseHTTPRequestHandler):
    """Another origin that would answer anyone (CORS open) and records every request."""

    def __init__(self, hits, *args, **kwargs):
        self.hits = hits
        super().__init__(*args, **kwargs)

    def _answer(self):
        self.hits.append(self.path)
        body = b"export const reached = true;"
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Type", "text/javascript")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format, *args):
        pass


@pytest.fixture
def other_origin():
    hits: list[str] = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Recorder, hits))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": f"http://127.0.0.1:{server.server_address[1]}", "hits": hits}
    server.shutdown()
    server.server_close()


REACHING_CODE = """import js

OTHER = "{other}"
try:
    request = js.XMLHttpRequest.new()
    request.open("GET", OTHER + "/xhr", False)
    request.send()
    NAME = "xhr-reached"
except Exception:
    NAME = "xhr-refused"
js.eval(
    "fetch('" + OTHER + "/fetch').catch(() => {{}});"
    "import('" + OTHER + "/import.mjs').catch(() => {{}});"
    "try {{ new WebSocket('" + OTHER.replace("http", "ws") + "/ws'); }} catch (e) {{}}"
    "try {{ new EventSource('" + OTHER + "/events'); }} catch (e) {{}}"
)


def step(accel, q, v, t, dt):
    a = accel(q, v, t)
    v = [u + dt * b for u, b in zip(v, a)]
    return [x + dt * u for x, u in zip(q, v)], v
"""


def test_user_code_cannot_reach_another_origin_and_the_page_still_works(
    open_page, site, other_origin
):
    from integrator_lab.site.build import CONTENT_SECURITY_POLICY

    # the worker has no <meta>: the server's header (integrator-lab preview's) is its policy
    for path in ("", "static/worker.mjs"):
        with urllib.request.urlopen(site["url"] + path) as response:
            assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    other = other_origin["url"]
    page = open_page("?systems=spring")
    assert (
        page.js("document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content")
        == CONTENT_SECURITY_POLICY
    )
    # the page's own thread cannot reach it either
    outcome = page.js(f"fetch('{other}/page').then(() => 'reached', () => 'refused')")
    assert outcome == "refused"
    open_editor(page)
    run_python(page, REACHING_CODE.format(other=other))
    page.wait("window.integratorLab.status().method.name !== null", RUN_TIMEOUT_MS)
    assert page.status()["method"]["name"] == "xhr-refused"
    # the page works: BokehJS draws, Python runs the method beside the built-ins
    before = page.sim_time("spring")
    page.wait(f"window.integratorLab.status().systems.spring.simTime > {before} + 1.0")
    lanes = page.status()["systems"]["spring"]["integrators"]
    assert lanes["xhr-refused"]["divergedAt"] is None
    assert other_origin["hits"] == []
    assert not [e for e in page.errors if other.split("://")[1] not in e], page.errors
