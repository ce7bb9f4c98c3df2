"""Pack the pure-Python core into a zip that Pyodide unpacks into its site-packages.

The archive holds ``integrator_lab/__init__.py`` and ``integrator_lab/core/**.py`` and nothing
else, so the browser (and the Pyodide test harness) get exactly the files CPython imports. It is
byte-for-byte deterministic: sorted entries, fixed timestamps and permissions.
"""

from __future__ import annotations

import importlib.util
import os
import zipfile
from pathlib import Path

# The earliest timestamp a zip entry can carry; any fixed value makes the archive reproducible.
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
_FILE_MODE = 0o644


def _package_dir(name: str) -> Path:
    """Directory of package ``name``, found without importing the package itself."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            f"cannot locate package {name!r}: install the project (pip install -e .) first"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def core_files() -> list[tuple[str, Path]]:
    """``(archive name, source path)`` of every file the core archive holds, sorted by name."""
    files = [("integrator_lab/__init__.py", _package_dir("integrator_lab") / "__init__.py")]
    core_dir = _package_dir("integrator_lab.core")
    for root, dirs, names in os.walk(core_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in names:
            if name.endswith(".py"):
                path = Path(root, name)
                arcname = "integrator_lab/core/" + path.relative_to(core_dir).as_posix()
                files.append((arcname, path))
    files.sort()
    return files


def pack_core(dest_zip_path: str | os.PathLike[str]) -> Path:
    """Write the core archive to ``dest_zip_path`` and return its path."""
    dest = Path(dest_zip_path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w") as archive:
        for arcname, path in core_files():
            info = zipfile.ZipInfo(arcname, date_time=_ZIP_EPOCH)
            info.external_attr = _FILE_MODE << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes(), compresslevel=9)
    return dest
