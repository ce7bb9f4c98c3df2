"""The browser the page benchmarks drive: Debian's Chromium, with the flags and window they
all use (``bench-page``, its ``--network`` profiles, the study page's benchmark)."""

from __future__ import annotations

import shutil

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
VIEWPORT = {"width": 1600, "height": 1000}


def chromium_path() -> str:
    """Where Chromium is (the benchmark ends with a message when it is not installed)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise SystemExit("bench-page: Chromium not found (make chromium)")
    return path
