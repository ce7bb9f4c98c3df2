"""The static page's baked start: the default view's first seconds, computed at build time.

The page animates these frames from its first draw while Pyodide boots in the worker, then
hands over to the worker, which has computed the same frames itself (the same core in CPython
and in Pyodide gives the same numbers, bit for bit) and goes on from the last frame shown
(static/js/baked.js, static/worker.mjs). The frames are those of
:func:`integrator_lab.views.live.baked_payload`, shipped gzip-compressed: the page
decompresses them with ``DecompressionStream``, as the worker does Pyodide's snapshot.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from integrator_lab.views import figures
from integrator_lab.views.live import BAKE_TICKS, BAKE_WALL, baked_payload

#: where the page finds the baked frames, relative to the site's root (before hashing)
BAKED = "py/baked.bin.gz"


def default_view(config: figures.DashboardConfig) -> dict:
    """The settings of the view a visitor sees without a query: what the bake computes."""
    return {
        "systems": list(config.systems),
        "integrators": list(config.integrators),
        "params": {name: dict(config.system(name).params) for name in config.systems},
        "dt": {name: config.dt_of(name) for name in config.systems},
    }


def write_baked(
    config: figures.DashboardConfig, dest: Path, ticks: int = BAKE_TICKS
) -> dict | None:
    """Write the compressed frames of ``config``'s default view to ``dest``; return their
    description for the page's boot config (``url`` is ``BAKED``, the caller hashes it).

    A dashboard that is not at speed 1 and playing has nothing to bake: ``None``.
    """
    if config.speed != 1.0 or not config.playing:
        return None
    payload = baked_payload(default_view(config), ticks)
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    # mtime 0 in the gzip header: the same frames compress to the same bytes (and hash)
    dest.write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))
    return {"url": BAKED, "ticks": ticks, "wall": BAKE_WALL, "bytes": dest.stat().st_size}
