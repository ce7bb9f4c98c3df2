"""The page's worker runs on a trimmed standard library (web/site/stdlib.py): what the core and
the worker use, and :data:`USER_MODULES`. A user's method that imports another module of the
standard library gets it all the same: the first such import downloads the whole library
(the site keeps it beside Pyodide) and unpacks what is missing; if that fails, the error says
what the page's Python carries. Installed by the worker's boot code, in Pyodide only.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import io
import os
import sys
import zipfile

#: modules a user's method may import on the page with no further download (those compiled
#: into Pyodide cost nothing; the others are small); the build measures the files they need
USER_MODULES = (
    "math",
    "cmath",
    "random",
    "fractions",
    "decimal",
    "statistics",
    "itertools",
    "functools",
    "operator",
    "collections",
    "dataclasses",
    "typing",
    "numbers",
    "copy",
    "heapq",
    "bisect",
    "enum",
    "abc",
    "array",
    "struct",
    "time",
)
#: the JavaScript global (set by static/worker.mjs) holding the whole library's URL
URL_GLOBAL = "integratorLabFullStdlib"


def _download() -> bytes:
    """The whole standard library's zip, fetched synchronously (a worker may)."""
    import js  # type: ignore[import-not-found]  # Pyodide's

    url = getattr(js, URL_GLOBAL, None)
    if not url:
        raise OSError("this page has no copy of the whole library")
    request = js.XMLHttpRequest.new()
    request.open("GET", url, False)
    request.responseType = "arraybuffer"
    request.send(None)
    if request.status != 200:
        raise OSError(f"HTTP {request.status} for the whole library")
    return bytes(request.response.to_bytes())


class RestOfStdlib:
    """A finder after all others: a module of the standard library not found in the trimmed
    one brings the whole library (once)."""

    tried = False
    failed: str | None = None  # why the whole library is not there

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        top = name.partition(".")[0]
        if (
            top not in sys.stdlib_module_names
            or top in sys.builtin_module_names
            or top.startswith("_")
        ):
            return None
        if cls.failed is not None:
            raise ModuleNotFoundError(
                f"No module named {name!r}: the page's Python carries part of the standard "
                f"library ({', '.join(USER_MODULES)}) and the rest did not download "
                f"({cls.failed})",
                name=name,
            )
        if cls.tried:
            return None
        cls.tried = True
        root = os.path.dirname(os.__file__)
        try:
            data = _download()
        except Exception as exc:
            cls.failed = str(exc)
            return cls.find_spec(name, path, target)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if not os.path.exists(os.path.join(root, info.filename)):
                    archive.extract(info, root)
        importlib.invalidate_caches()
        return importlib.machinery.PathFinder.find_spec(name, path)


def install() -> None:
    if RestOfStdlib not in sys.meta_path:
        sys.meta_path.append(RestOfStdlib)
