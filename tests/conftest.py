"""Fixtures shared by every browser test: one headless Chromium for the whole session.

Playwright's sync API allows one instance per thread at a time, so the static page, the Panel
server and the documentation tests all share this one.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
#: `make test` sets it: a missing browser or Pyodide then fails instead of skipping
REQUIRE = os.environ.get("INTEGRATOR_LAB_REQUIRE_PYODIDE") == "1"


def chromium_path() -> str | None:
    for candidate in ("chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


def missing(reason: str):
    """Skip, or fail under `make test`, for want of a browser or of Pyodide."""
    if REQUIRE:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        missing("Chromium is not installed (make chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
