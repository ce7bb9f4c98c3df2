"""What the browser tests cost: how many documents the browser loaded, per test file.

A page load is the suite's most expensive act (5 to 8.5 CPU-s for the static page or the Panel
dashboard on this 2-core machine), so the run ends with their count, per file and in all
(issue 46). Every context the tests' browser opens is watched (``watch_browser``, from the
``browser`` fixture, and ``watch_context`` for the kept profile): each ``load`` event of a
page's main frame counts for the test file that was running. pytest-xdist's processes write
their counts into ``tests/artifacts/page-loads/RUN/`` (RUN: the controller's process id, so
that runs side by side do not mix); the run's summary adds them up.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent / "artifacts" / "page-loads"
#: loads per test file of this process, and the file whose test runs now
LOADS: Counter[str] = Counter()
_CURRENT = {"file": "(outside a test)"}


def watch_context(context) -> None:
    """Count the loads of every page ``context`` opens from now on."""

    def on_page(page) -> None:
        page.on("load", lambda _page: LOADS.update([_CURRENT["file"]]))

    context.on("page", on_page)
    for page in context.pages:
        on_page(page)


def watch_browser(browser) -> None:
    """Count the loads of every context ``browser`` opens (``new_context``, ``new_page``)."""
    new_context = browser.new_context

    def counted_context(*args, **kwargs):
        context = new_context(*args, **kwargs)
        watch_context(context)
        return context

    new_page = browser.new_page

    def counted_page(*args, **kwargs):
        page = new_page(*args, **kwargs)
        page.on("load", lambda _page: LOADS.update([_CURRENT["file"]]))
        return page

    browser.new_context = counted_context
    browser.new_page = counted_page


#: the environment variable that names the run for its worker processes
RUN_VARIABLE = "INTEGRATOR_LAB_PAGE_LOADS_RUN"


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _folder() -> Path:
    return FOLDER / os.environ.get(RUN_VARIABLE, str(os.getpid()))


def pytest_configure(config) -> None:
    if not hasattr(config, "workerinput"):  # the controller: its workers inherit the name
        os.environ.setdefault(RUN_VARIABLE, str(os.getpid()))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    _CURRENT["file"] = item.nodeid.split("::")[0]


def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        _folder().mkdir(parents=True, exist_ok=True)
        for old in _folder().glob("*.json"):
            old.unlink()


def pytest_sessionfinish(session) -> None:
    if LOADS:
        _folder().mkdir(parents=True, exist_ok=True)
        (_folder() / f"{_worker()}.json").write_text(json.dumps(dict(LOADS)), encoding="utf-8")


def pytest_terminal_summary(terminalreporter, config) -> None:
    if hasattr(config, "workerinput"):
        return
    total: Counter[str] = Counter()
    folder = _folder()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        total.update(json.loads(path.read_text(encoding="utf-8")))
        path.unlink()
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    if not total:
        return
    write = terminalreporter.write_line
    terminalreporter.section("page loads (documents the browser loaded, per file)")
    for name, count in sorted(total.items(), key=lambda item: (-item[1], item[0])):
        write(f"{count:5d}  {name}")
    write(f"{sum(total.values()):5d}  in all")
