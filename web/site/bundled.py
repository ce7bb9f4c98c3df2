"""Where the files the wheel carries besides code are (``make dist`` puts them there:
:mod:`integrator_lab.site.bundle`): Pyodide's core files and the prebuilt snapshots. Only
lookups, so that the modules that use the bundle need not import the one that makes it."""

from __future__ import annotations

from pathlib import Path

#: the bundle's folder, ``web/site/bundle/`` (generated, not in git)
BUNDLE = Path(__file__).with_name("bundle")


def bundled_pyodide_dir(bundle: Path = BUNDLE) -> Path | None:
    """The packaged copy of Pyodide's core files, if this package carries one."""
    folder = bundle / "pyodide"
    return folder if (folder / "pyodide.mjs").is_file() else None


def bundled_snapshot(key: str, bundle: Path = BUNDLE) -> Path | None:
    """The prebuilt snapshot made from exactly these inputs, if the package carries it."""
    path = bundle / "snapshots" / f"{key}.bin.gz"
    return path if path.is_file() else None
