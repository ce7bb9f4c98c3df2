"""What the tests build once per process and share: the static site, and its HTTP server.

The fixtures (``site`` and ``built_site`` in tests/conftest.py, ``site`` re-exported by
tests/site/pages.py, where the static-page modules import it from) are thin: the work is done
here, behind ``functools.cache``, so that every module and every copy of a fixture gets the same
build, whatever scope or import it came through. Under pytest-xdist each worker process builds
its own. Tests may add files to the site (an embedding page) but change none of its own.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from pathlib import Path

#: where tests write screenshots of what they saw, for a person to look at (never compared)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def built_site(tmp_path_factory) -> Path:
    """The site built by the real builder (raises PyodideNotFound without Pyodide), in the
    session's temporary folder."""
    return _build(tmp_path_factory.getbasetemp())


@functools.cache
def _build(basetemp: Path) -> Path:
    from integrator_lab.site.build import build_site

    return build_site(basetemp / "built-once" / "site")


@functools.cache
def _serve(folder: Path) -> tuple[str, dict]:
    from integrator_lab.site.build import make_server

    server = make_server(folder, 0)
    # a daemon thread: it ends with the process, after the last test that reads from it
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/", hashed_files(folder)


def served_site(tmp_path_factory) -> dict:
    """``{"dir", "url", "files"}``: the built site served on 127.0.0.1 (a fresh dict per call,
    the same site and server)."""
    folder = built_site(tmp_path_factory)
    url, files = _serve(folder)
    return {"dir": folder, "url": url, "files": dict(files)}


def hashed_files(site: Path) -> dict:
    """The site's paths of its large files and its worker by their plain names
    (``py/integrator_lab.zip.gz`` -> ``py/integrator_lab.HASH.zip.gz``), as the page's boot
    config names them."""
    from integrator_lab.site.build import CORE, GZIPPED, LZMA_FILES, PYODIDE_FILES
    from integrator_lab.site.page_bundle import WORKER
    from integrator_lab.site.snapshot import SNAPSHOT

    page = (site / "index.html").read_text(encoding="utf-8")
    boot = json.loads(re.search(r'id="il-boot-config">(.*?)</script>', page, re.DOTALL).group(1))
    files = {CORE: boot["archive"], SNAPSHOT: boot["snapshot"]["url"]}
    files[WORKER.site_path] = boot["worker"]
    for name in (*PYODIDE_FILES, *GZIPPED.values(), *LZMA_FILES.values()):
        files[f"pyodide/{name}"] = boot["pyodide"] + name
    return files
