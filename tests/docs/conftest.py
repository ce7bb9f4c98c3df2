"""Fixtures of the documentation tests: the project's documentation and the small projects of
the directive tests, each built once per run and read by every test that needs it; a static
file server (the browser is in tests/conftest.py)."""

from __future__ import annotations

import threading

import pytest
from docs_helpers import ACCEPTED, DOCS, Build, once_per_run, sphinx_build


def _build_docs(folder) -> Build:
    # a stand-in site: the real one is built and checked by test_sphinx_extension
    (folder / "site").mkdir(parents=True)
    (folder / "site" / "index.html").write_text("<!doctype html><title>site</title>")
    status, log = sphinx_build(
        DOCS, folder / "out", "-W", "--keep-going", "-D", f"integrator_lab_site={folder / 'site'}"
    )
    return Build(status, log, folder / "out")


@pytest.fixture(scope="session")
def built_docs(tmp_path_factory):
    """The project's documentation (``docs/``) built once per run with ``-W``: its output."""
    build = once_per_run(tmp_path_factory, "project-docs", _build_docs)
    assert build.status == 0, build.log
    return build.out


@pytest.fixture(scope="session")
def build_of(tmp_path_factory):
    """``build_of(project)``: the build of a ``SharedProject`` (docs_helpers.py), made once per
    run."""
    return lambda project: once_per_run(tmp_path_factory, project.name, project.build)


@pytest.fixture(scope="session")
def accepted(build_of) -> Build:
    """The project of directives that build (``docs_helpers.ACCEPTED``): it must have built."""
    build = build_of(ACCEPTED)
    assert build.status == 0, build.log
    return build


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
