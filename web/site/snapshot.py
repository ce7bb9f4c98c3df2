"""The static page's Pyodide memory snapshot: Python booted, the core imported, the live loop
built, frozen at build time so the browser's worker starts in a fraction of a second.

Made with Node and the pinned Pyodide (the same files the page loads), shipped gzip-compressed
(the worker decompresses it with ``DecompressionStream``, so any static host serves it small),
and cached by the content of everything that goes into it: the core archive, the Pyodide files
and the code run before the snapshot. Pyodide's snapshot API is experimental; the page falls
back to a plain boot when the snapshot is missing, corrupt or from another Pyodide version.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from integrator_lab.site.bundled import BUNDLE, bundled_snapshot

#: where the page finds the snapshot, relative to the site's root
SNAPSHOT = "py/snapshot.bin.gz"
#: the global that holds the worker's engine (views.engine.Engine) in the snapshot
ENGINE_GLOBAL = "integrator_lab_engine"
#: what the worker runs after a plain boot, and what runs before the snapshot is taken: import
#: every module the worker will need (files are not in the snapshot's memory, modules are)
BOOT_CODE = (
    "import importlib\n"
    "importlib.invalidate_caches()\n"
    # a module of the standard library beyond the trimmed one comes with the whole library
    "from integrator_lab.views.stdlib_guard import install\n"
    "install()\n"
    "from integrator_lab.views.engine import Engine\n"
    f"{ENGINE_GLOBAL} = Engine()\n"
)
SCRIPT = Path(__file__).with_name("snapshot.mjs")
#: the Pyodide files whose content a snapshot depends on
PYODIDE_INPUTS = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
#: a snapshot takes a few seconds to make; more than this means something is wrong
TIMEOUT = 300.0


#: snapshots kept in the cache (each core change makes a new one of about 6 MB)
KEEP_CACHED = 8


def _prune(folder: Path, keep: int) -> None:
    snapshots = sorted(folder.glob("*.bin.gz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in snapshots[keep:]:
        old.unlink(missing_ok=True)


class SnapshotUnavailable(RuntimeError):
    """The snapshot cannot be made here (no Node); the page then boots Pyodide plainly."""


def pyodide_version(pyodide_dir: Path) -> str:
    return json.loads((Path(pyodide_dir) / "package.json").read_text(encoding="utf-8"))["version"]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "integrator-lab" / "snapshots"


def snapshot_key(archive: bytes, pyodide_dir: Path) -> str:
    digest = hashlib.sha256()
    for part in (
        archive,
        BOOT_CODE.encode(),
        SCRIPT.read_bytes(),
        *((Path(pyodide_dir) / name).read_bytes() for name in PYODIDE_INPUTS),
    ):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def make_snapshot(
    archive_path: Path, pyodide_dir: Path, dest: Path, *, bundle: Path | None = BUNDLE, log=None
) -> dict:
    """Write the compressed snapshot to ``dest``; return its description for the page data.

    Looks in the user's cache, then among the snapshots packaged with ``bundle`` (prebuilt by
    ``make dist``), and only then makes one with Node. ``log`` (a ``print``-like function)
    hears where it came from. Raises :class:`SnapshotUnavailable` when Node is missing or fails.
    """
    archive = Path(archive_path).read_bytes()
    key = snapshot_key(archive, pyodide_dir)
    cached = cache_dir() / f"{key}.bin.gz"
    prebuilt = bundled_snapshot(key, bundle) if bundle is not None else None
    if cached.is_file():
        source, origin = cached, f"cached in {cached.parent}"
    elif prebuilt is not None:
        source, origin = prebuilt, "prebuilt, packaged with integrator-lab"
    else:
        node = shutil.which("node")
        if node is None:
            raise SnapshotUnavailable("Node.js is not installed")
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            raw = Path(tmp) / "snapshot.bin"
            done = subprocess.run(
                [node, str(SCRIPT), str(pyodide_dir), str(archive_path), BOOT_CODE, str(raw)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
            if done.returncode != 0 or not raw.is_file():
                raise SnapshotUnavailable(f"node failed: {done.stderr.strip()[-500:]}")
            partial = cached.with_suffix(f".{os.getpid()}.part")
            # mtime 0 in the gzip header: the same snapshot compresses to the same bytes
            partial.write_bytes(gzip.compress(raw.read_bytes(), compresslevel=9, mtime=0))
            partial.replace(cached)
            _prune(cached.parent, keep=KEEP_CACHED)
        source, origin = cached, f"made with Node ({node})"
    if log is not None:
        log(f"Pyodide snapshot: {origin}")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, dest)
    return {
        "url": SNAPSHOT,
        "pyodide": pyodide_version(pyodide_dir),
        "bytes": dest.stat().st_size,
        "global": ENGINE_GLOBAL,
    }
