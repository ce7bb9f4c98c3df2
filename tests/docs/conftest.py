"""Fixtures of the documentation tests: the project's documentation built once, a static file
server (the browser is in tests/conftest.py)."""

from __future__ import annotations

import threading

import pytest
from docs_helpers import DOCS, sphinx_build


@pytest.fixture(scope="session")
def built_docs(tmp_path_factory):
    """The project's documentation (``docs/``) built once with ``-W``: its output folder."""
    root = tmp_path_factory.mktemp("project-docs")
    # a stand-in site: the real one is built and checked by test_sphinx_extension
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text("<!doctype html><title>site</title>")
    status, log = sphinx_build(
        DOCS, root / "out", "-W", "--keep-going", "-D", f"integrator_lab_site={root / 'site'}"
    )
    assert status == 0, log
    return root / "out"


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
