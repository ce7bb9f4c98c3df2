"""Fixtures shared by every tier: one headless Chromium for the whole session, the static site
built once (tests/builds.py), and the tiers themselves: a test is marked by the fixtures it takes.

Playwright's sync API allows one instance per thread at a time, so the static page, the Panel
server and the documentation tests all share this one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from builds import built_site as _built_site
from builds import served_site
from page_loads import (  # noqa: F401 - the hooks that count the pages the tests load
    pytest_configure,
    pytest_runtest_setup,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
    watch_browser,
)
from profiles import close_kept_profile, launched

# the flags every browser of the tests and the benchmarks starts with
from integrator_lab.dev.chromium import CHROMIUM_ARGS

#: a test that takes one of these fixtures gets the mark (`make check` leaves out all three),
#: whether or not its module says so
TIER_FIXTURES = {
    "browser": "browser",
    "open_page": "browser",
    "shared_page": "browser",
    "new_page": "browser",
    "site": "server",
    "server": "server",
    "http_root": "server",
    "built": "slow",
    "built_site": "slow",
    "single_file": "slow",
    "installed": "slow",
}


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
        launched(chromium, path, CHROMIUM_ARGS)
        watch_browser(chromium)
        yield chromium
        close_kept_profile(chromium)  # (tests/profiles.py)
        chromium.close()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The static site's folder, built once per process (tests/builds.py)."""
    from integrator_lab.site.pyodide_node import PyodideNotFound

    try:
        return _built_site(tmp_path_factory)
    except PyodideNotFound as exc:
        missing(str(exc))


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """``{"dir", "url", "files"}``: the site built once, served on 127.0.0.1."""
    from integrator_lab.site.pyodide_node import PyodideNotFound

    try:
        return served_site(tmp_path_factory)
    except PyodideNotFound as exc:
        missing(str(exc))


#: folders whose every test is of a tier: the Panel dashboard (a Panel session in process or a
#: server; importing Panel alone takes seconds) and the documentation (Sphinx builds)
TIER_FOLDERS = {"server": "server", "docs": "server"}
TESTS = Path(__file__).resolve().parent


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report on its item (``item.rep_setup``, ``rep_call``): a shared page's
    fixture closes the page after a test that failed (tests/site/pages.py)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by the marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            folder = Path(item.path).resolve().relative_to(TESTS).parts[0]
        except ValueError:
            folder = ""
        # (marks, not keywords: a folder's name is a keyword of its tests)
        if folder in TIER_FOLDERS and item.get_closest_marker(TIER_FOLDERS[folder]) is None:
            item.add_marker(TIER_FOLDERS[folder])
        names = set(getattr(item, "fixturenames", ()))
        for fixture, mark in TIER_FIXTURES.items():
            if fixture in names and item.get_closest_marker(mark) is None:
                item.add_marker(mark)
