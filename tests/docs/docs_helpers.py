"""Helpers of the documentation tests: Sphinx builds in temporary folders, waiting for demos."""

from __future__ import annotations

import io
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

#: longest wait for Pyodide to boot and the first frames to arrive in a demo (s)
BOOT_TIMEOUT = 90.0
#: the project's own documentation (built once per session: ``built_docs`` in conftest.py)
DOCS = Path(__file__).resolve().parents[2] / "docs"


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
