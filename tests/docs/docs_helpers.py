"""Helpers of the documentation tests: Sphinx builds in temporary folders, the small projects
the directive tests share (each built once per run: conftest.py), waiting for demos."""

from __future__ import annotations

import fcntl
import io
import json
import os
import shutil
import textwrap
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

#: longest wait for Pyodide to boot and the first frames to arrive in a demo (s)
BOOT_TIMEOUT = 90.0
#: the project's own documentation (built once per run: ``built_docs`` in conftest.py)
DOCS = Path(__file__).resolve().parents[2] / "docs"
#: the documentation's own extensions (docs/_ext) whose directives the tests build
EXT_CONF = (
    f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
    "extensions += ['geometry_figures', 'study_table']\n"
)


def sphinx_build(src: Path, out: Path, *extra: str) -> tuple[int, str]:
    """Run sphinx-build in this process; return (exit status, everything it printed)."""
    from sphinx.cmd.build import build_main

    log = io.StringIO()
    with redirect_stdout(log), redirect_stderr(log):
        status = build_main(["-b", "html", "-q", "-E", *extra, str(src), str(out)])
    return status, log.getvalue()


def write_project(root: Path, pages: dict[str, str], conf: str = "") -> Path:
    """A Sphinx project with the extension and the given pages (name -> body)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(
        'project = "demo test"\nextensions = ["integrator_lab.sphinx"]\n'
        'html_theme = "basic"\n' + conf,
        encoding="utf-8",
    )
    toctree = "\n".join(f"   {name}" for name in pages if name != "index")
    index = pages.get("index", "")
    (root / "index.rst").write_text(
        f"Home\n====\n\n{textwrap.dedent(index)}\n\n.. toctree::\n\n{toctree}\n", encoding="utf-8"
    )
    for name, body in pages.items():
        if name == "index":
            continue
        path = root / f"{name}.rst"
        path.parent.mkdir(parents=True, exist_ok=True)
        title = name.rsplit("/", 1)[-1]
        path.write_text(
            f"{title}\n{'=' * len(title)}\n\n{textwrap.dedent(body)}\n", encoding="utf-8"
        )
    return root


@dataclass(frozen=True)
class Build:
    """A finished Sphinx build: its exit status, everything it printed and its output."""

    status: int
    log: str
    out: Path

    def errors(self, page: str) -> list[str]:
        """The lines of the log that report a problem in ``page`` (its name, without .rst)."""
        return [line for line in self.log.splitlines() if f"/{page}.rst:" in line]


def once_per_run(tmp_path_factory, name: str, make: Callable[[Path], Build]) -> Build:
    """``make(folder)``'s build, made once per run in ``folder``: pytest-xdist's processes
    share it (the first to ask builds it, under a lock; the others wait for it and read it)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder: each process's own is a folder in it
    folder, record = root / name, root / f"{name}.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not record.exists():
            if folder.exists():  # a process that failed while building it
                shutil.rmtree(folder)
            build = make(folder)
            record.write_text(json.dumps({"status": build.status, "log": build.log}), "utf-8")
    made = json.loads(record.read_text("utf-8"))
    return Build(made["status"], made["log"], folder / "out")


class SharedProject:
    """A small Sphinx project of many directive variants, one page each, built once per run
    (``once_per_run``, by the ``build_of`` fixture) instead of once per variant. Test modules
    add their pages when they are imported (at collection, before any test runs)."""

    def __init__(self, name: str, conf: str = "", *options: str):
        self.name, self.conf, self.options = name, conf, options
        self.pages: dict[str, str] = {"index": ""}

    def add(self, name: str, body: str) -> str:
        """Add the page ``name`` (``folder/name``, without .rst) holding ``body``."""
        assert name not in self.pages, f"two pages named {name!r}"
        self.pages[name] = body
        return name

    def build(self, folder: Path) -> Build:
        src = write_project(folder / "src", self.pages, self.conf)
        status, log = sphinx_build(src, folder / "out", *self.options)
        return Build(status, log, folder / "out")


#: directives of every test module that build, and no demo: built with no warning and no
#: dangling reference (``-W -n``), and no copy of the site. (Each module's rejected directives
#: are a project of their own: the build's failure is then theirs.)
ACCEPTED = SharedProject("accepted-directives", EXT_CONF, "-W", "-n")


#: what the page shows while it boots, and its messages: the story of a demo that never starts
DIAGNOSTICS = """() => ({
  loading: [...document.querySelectorAll('.il-loading')].map(e => e.textContent.trim()),
  alert: document.getElementById('il-served')?.textContent,
  messages: [...document.querySelectorAll('#il-messages li')].map(e => e.textContent),
})"""


def wait_until_running(frame, timeout=BOOT_TIMEOUT):
    """Wait until the demo in ``frame`` (a page or an iframe) has drawn frames; return its
    status then and once every system's simulation clock has moved on from there."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        frame.wait_for_function(
            "() => window.integratorLab && integratorLab.status().ready",
            timeout=timeout * 1000,
            polling=200,
        )
    except PlaywrightTimeout:
        pytest.fail(f"no running demo after {timeout} s: {frame.evaluate(DIAGNOSTICS)}")
    first = frame.evaluate("integratorLab.status()")
    try:
        frame.wait_for_function(
            """(first) => Object.entries(integratorLab.status().systems).every(
                ([name, s]) => s.simTime > first[name].simTime)""",
            arg={name: {"simTime": s["simTime"]} for name, s in first["systems"].items()},
            timeout=timeout * 1000,
            polling=100,
        )
    except PlaywrightTimeout:
        pytest.fail(f"the demo's clocks stood still for {timeout} s: {frame.evaluate(DIAGNOSTICS)}")
    return first, frame.evaluate("integratorLab.status()")
