"""Pyodide's wasm and standard library as ``.lzma`` files, for the page on a slow link.

LZMA ("LZMA alone", the format of ``xz --format=lzma`` and of Python's
``lzma.FORMAT_ALONE``) packs the wasm into a quarter fewer bytes than gzip at level 9 (3.53 ->
2.64 MB; the trimmed standard library 1.11 -> 0.82 MB). No browser inflates it itself: the
worker does, as the bytes arrive (``static/worker-lzma.mjs``), on a link slower than it
decodes (``static/worker-boot.mjs`` LZMA_BELOW); a faster link gets the gzip files. Packing the
wasm takes ~7 s, so each result is cached by the content it packs.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: the preset (level) packed with; 9 gains 0.1 % over 6 for a little more time
PRESET = 6
#: packed files kept in the cache (a new Pyodide or a new trimmed library makes new ones)
KEEP_CACHED = 8


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "integrator-lab" / "lzma"


def lzma_packed(data: bytes) -> bytes | None:
    """``data`` as an ``.lzma`` file (its size in the header unknown, an end marker after the
    data: the page knows the size from the boot config), or None where this Python has no
    :mod:`lzma` (the page then downloads the gzip files on every link)."""
    try:
        import lzma
    except ImportError:
        return None
    key = hashlib.sha256(data).hexdigest()
    cached = cache_dir() / f"{key}.{PRESET}.lzma"
    try:
        return cached.read_bytes()
    except OSError:
        pass
    packed = lzma.compress(data, format=lzma.FORMAT_ALONE, preset=PRESET)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(packed)
        partial.replace(cached)
        old = sorted(cached.parent.glob("*.lzma"), key=lambda p: p.stat().st_mtime, reverse=True)
        for path in old[KEEP_CACHED:]:
            path.unlink(missing_ok=True)
    except OSError:
        pass  # no cache: packed again next time
    return packed
