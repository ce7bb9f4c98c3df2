"""The static page's baked start: the default view's first seconds, computed at build time.

The page animates these frames from its first draw while Pyodide boots in the worker, then
hands over to the worker, which has computed the same frames itself and goes on from the last
frame shown (static/js/baked.js, static/worker.mjs). The frames are those of
:func:`integrator_lab.views.live.baked_payload`, shipped gzip-compressed: the page
decompresses them with ``DecompressionStream``, as the worker does Pyodide's snapshot.

They are computed where the worker computes: in the pinned Pyodide, under Node (cached, like
the snapshot). CPython gives the same times, samples counts and events, but its libm (``sin``,
``cos``, ...) differs from Pyodide's in the last bits, and those differences grow to about
1e-9 over 4 s: baked in CPython, the worker's state would not be exactly the one the page
showed last. Without Node the build bakes in CPython all the same (an invisible difference) and
says so.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

from integrator_lab.site.pyodide_node import PyodideNotFound, run_python
from integrator_lab.site.snapshot import PYODIDE_INPUTS, cache_dir
from integrator_lab.views import figures
from integrator_lab.views.live import BAKE_TICKS, BAKE_WALL, baked_payload

#: where the page finds the baked frames, relative to the site's root (before hashing)
BAKED = "py/baked.bin.gz"
#: run in Pyodide with the worker's archive unpacked in /bake: the payload, base64
PYODIDE_BAKE = """
import base64, json, sys
sys.path.insert(0, "/bake")
from integrator_lab.views.live import baked_payload
payload = baked_payload(json.loads(sys.argv[1]), int(sys.argv[2]))
sys.stdout.write(base64.b64encode(payload).decode())
"""
#: baked files kept in the cache (each core change makes a new one of about 0.4 MB)
KEEP_CACHED = 8
#: booting Pyodide under Node and baking takes seconds; more means something is wrong
TIMEOUT = 300.0


def default_view(config: figures.DashboardConfig) -> dict:
    """The settings of the view a visitor sees without a query: what the bake computes."""
    return {
        "systems": list(config.systems),
        "integrators": list(config.integrators),
        "params": {name: dict(config.system(name).params) for name in config.systems},
        "dt": {name: config.dt_of(name) for name in config.systems},
    }


def bake_in_pyodide(archive: Path, view: dict, ticks: int = BAKE_TICKS) -> bytes:
    """:func:`baked_payload` of ``view`` run in Pyodide under Node, with the worker's own
    ``archive`` (the core and its modules). Raises :class:`PyodideNotFound` without Node or
    Pyodide, :class:`RuntimeError` when the run fails."""
    with tempfile.TemporaryDirectory(prefix="integrator-lab-bake-") as tmp:
        with zipfile.ZipFile(archive) as files:
            files.extractall(Path(tmp, "bake"))
        run = run_python(
            PYODIDE_BAKE,
            core=False,
            files={"/bake": Path(tmp, "bake")},
            argv=[json.dumps(view), str(ticks)],
            timeout=TIMEOUT,
        )
    if run.returncode != 0:
        raise RuntimeError(f"Pyodide failed: {(run.stderr or '').strip()[-500:]}")
    return base64.b64decode(run.stdout or "")


def _cache_key(archive: bytes, view: dict, ticks: int, pyodide_dir: Path) -> str:
    digest = hashlib.sha256()
    for part in (
        archive,
        json.dumps(view, sort_keys=True).encode(),
        str(ticks).encode(),
        PYODIDE_BAKE.encode(),
        *((Path(pyodide_dir) / name).read_bytes() for name in PYODIDE_INPUTS),
    ):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def write_baked(
    config: figures.DashboardConfig,
    dest: Path,
    archive: Path,
    pyodide_dir: Path,
    ticks: int = BAKE_TICKS,
    log=None,
) -> dict | None:
    """Write the compressed frames of ``config``'s default view to ``dest``, computed in
    Pyodide (``pyodide_dir``) with the worker's ``archive``; return their description for the
    page's boot config (``url`` is :data:`BAKED`, the caller hashes it). ``log`` (``print``-
    like) hears where they came from.

    A dashboard that is not at speed 1 and playing has nothing to bake: ``None``.
    """
    if config.speed != 1.0 or not config.playing:
        return None
    view = default_view(config)
    key = _cache_key(Path(archive).read_bytes(), view, ticks, pyodide_dir)
    cached = cache_dir().parent / "baked" / f"{key}.bin.gz"
    if cached.is_file():
        packed, origin = cached.read_bytes(), f"cached in {cached.parent}"
    else:
        try:
            payload = bake_in_pyodide(archive, view, ticks)
            origin = "computed in Pyodide under Node"
        except (PyodideNotFound, RuntimeError, OSError, subprocess.SubprocessError) as exc:
            payload = baked_payload(view, ticks)
            origin = f"computed in CPython ({exc}; its last bits may differ from the worker's)"
            cached = None
        # mtime 0 in the gzip header: the same frames compress to the same bytes (and hash)
        packed = gzip.compress(payload, compresslevel=9, mtime=0)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(f".{os.getpid()}.part")
            partial.write_bytes(packed)
            partial.replace(cached)
            old = sorted(cached.parent.glob("*.bin.gz"), key=lambda p: p.stat().st_mtime)
            for path in old[:-KEEP_CACHED]:
                path.unlink(missing_ok=True)
    if log is not None:
        log(f"baked frames ({ticks} of {BAKE_WALL:.4g} s): {origin}")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(packed)
    return {"url": BAKED, "ticks": ticks, "wall": BAKE_WALL, "bytes": len(packed)}
