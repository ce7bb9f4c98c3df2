"""Fixtures of the documentation tests: a static file server (the browser is in
tests/conftest.py)."""

from __future__ import annotations

import threading

import pytest


@pytest.fixture(scope="session")
def http_root():
    """Serve folders on 127.0.0.1: ``url = http_root(folder)``."""
    from integrator_lab.site.build import make_server

    servers = []

    def serve(folder) -> str:
        # the documentation's pages run Sphinx's inline scripts: not the site's policy (the
        # lab's own copy in it has the policy as a <meta>)
        server = make_server(folder, policy=None)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()
