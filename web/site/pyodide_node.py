"""Run Python code inside Pyodide under Node, offline, with the core preinstalled.

Used by the Pyodide test harness (``tests/pyodide/``) and by ``integrator-lab bench``. Pyodide
comes from the npm package ``pyodide`` installed by ``npm ci`` (``make node_modules``); set
``INTEGRATOR_LAB_PYODIDE_DIR`` to use another copy of the same files.

Quick check::

    python -m integrator_lab.site.pyodide_node
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from integrator_lab.site.pack import pack_core

PYODIDE_DIR_ENV = "INTEGRATOR_LAB_PYODIDE_DIR"
RUNNER = Path(__file__).with_name("pyodide_runner.mjs")
DEFAULT_TIMEOUT = 300.0  # seconds; booting Pyodide alone takes a few


class PyodideNotFound(RuntimeError):
    """Node or the npm package ``pyodide`` is missing."""


class PyodideRun(NamedTuple):
    """Outcome of :func:`run_python`; the streams are ``None`` when not captured."""

    returncode: int
    stdout: str | None
    stderr: str | None


def find_pyodide_dir(*, packaged: bool = True) -> Path:
    """The directory to load Pyodide's core files from.

    Looks at ``$INTEGRATOR_LAB_PYODIDE_DIR``, then at ``node_modules/pyodide`` beside this
    source tree (a checkout), then, with ``packaged``, at the copy an installed wheel carries
    (``site/bundle.py``), then at ``node_modules/pyodide`` in the current directory and its
    parents. :func:`pyodide_source` says which one it was.
    """
    from integrator_lab.site.bundled import bundled_pyodide_dir

    override = os.environ.get(PYODIDE_DIR_ENV)
    if override:
        candidates = [Path(override)]
    else:
        here = Path(__file__).resolve().parent
        cwd = Path.cwd().resolve()
        candidates = [base / "node_modules" / "pyodide" for base in (here, *here.parents)]
        bundled = bundled_pyodide_dir() if packaged else None
        candidates += [bundled] if bundled else []
        candidates += [base / "node_modules" / "pyodide" for base in (cwd, *cwd.parents)]
    for candidate in candidates:
        if (candidate / "pyodide.mjs").is_file():
            return candidate.resolve()
    where = override or "node_modules/pyodide in this directory or a parent"
    raise PyodideNotFound(
        f"Pyodide not found at {where}: run `make node_modules` (npm ci) in the project, "
        f"or set {PYODIDE_DIR_ENV} to the directory of the npm package pyodide"
    )


def pyodide_source(pyodide_dir: Path) -> str:
    """Where a build's Pyodide came from, in words."""
    from integrator_lab.site.bundled import bundled_pyodide_dir

    bundled = bundled_pyodide_dir()
    if bundled is not None and Path(pyodide_dir).resolve() == bundled.resolve():
        return "the copy packaged with integrator-lab"
    return str(pyodide_dir)


def find_node() -> str:
    node = shutil.which("node")
    if node is None:
        raise PyodideNotFound("`node` (Node.js 18 or later) is not on PATH")
    return node


def run_python(
    code: str,
    *,
    core: bool = True,
    wheels: Iterable[str | os.PathLike[str]] = (),
    files: Mapping[str, str | os.PathLike[str]] | None = None,
    cwd: str | None = None,
    argv: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    filename: str = "<pyodide>",
    capture: bool = True,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> PyodideRun:
    """Run ``code`` as ``__main__`` in a fresh Pyodide and return its exit status and output.

    ``core`` unpacks ``integrator_lab`` and ``integrator_lab.core`` into site-packages first;
    ``wheels`` are pure-Python wheels to unpack as well (nothing is downloaded). ``files`` maps
    directories inside Pyodide to host directories whose trees are copied there. ``cwd`` is the
    working directory inside Pyodide; ``argv`` becomes ``sys.argv[1:]``; ``env`` is added to the
    environment Pyodide sees. With ``capture=False`` the output goes straight to this process's
    stdout and stderr. Raises :class:`subprocess.TimeoutExpired` after ``timeout`` seconds.
    """
    node = find_node()
    pyodide_dir = find_pyodide_dir()
    with tempfile.TemporaryDirectory(prefix="integrator-lab-pyodide-") as tmp:
        archives = []
        if core:
            archives.append({"path": str(pack_core(Path(tmp, "core.zip"))), "format": "zip"})
        for wheel in wheels:
            archives.append({"path": str(Path(wheel).resolve()), "format": "wheel"})
        job = {
            "pyodideDir": str(pyodide_dir),
            "archives": archives,
            "trees": [
                {"from": str(Path(host).resolve()), "to": inside}
                for inside, host in (files or {}).items()
            ],
            "code": code,
            "filename": filename,
            "argv": list(argv),
            "cwd": cwd,
            "env": dict(env or {}),
        }
        job_path = Path(tmp, "job.json")
        job_path.write_text(json.dumps(job), encoding="utf-8")
        stream = subprocess.PIPE if capture else None
        done = subprocess.run(
            [node, str(RUNNER), str(job_path)],
            stdout=stream,
            stderr=stream,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    decode = (lambda b: b.decode("utf-8", "replace")) if capture else (lambda b: None)
    return PyodideRun(done.returncode, decode(done.stdout), decode(done.stderr))


if __name__ == "__main__":
    # Smoke test of the harness alone: python -m integrator_lab.site.pyodide_node
    outcome = run_python("import sys; print(sys.version)", core=False)
    print(outcome.stdout or outcome.stderr, end="")
    raise SystemExit(outcome.returncode)
