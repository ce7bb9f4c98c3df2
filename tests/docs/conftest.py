"""Fixtures of the documentation tests: headless Chromium and a static file server."""

from __future__ import annotations

import threading

import pytest
from docs_helpers import CHROMIUM_ARGS, chromium_path


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed (make chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def http_root():
    """Serve folders on 127.0.0.1: ``url = http_root(folder)``."""
    from integrator_lab.web.site import make_server

    servers = []

    def serve(folder) -> str:
        server = make_server(folder)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()
