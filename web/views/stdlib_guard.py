"""The page's worker runs on a trimmed standard library (web/site/stdlib.py): what the core and
the worker use, and :data:`USER_MODULES`. A user's method that imports another module of the
standard library gets it all the same: the worker downloads the whole library (the site keeps
it beside Pyodide) before it runs a method that imports such a module (:func:`missing`), and an
import the worker did not foresee fetches it synchronously; if that fails, the error says what
the page's Python carries. Installed by the worker's boot code, in Pyodide only.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import sys
import types
from collections.abc import Sequence

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


#: where the whole library goes once downloaded (a zip on sys.path, as Pyodide's own is)
FULL_PATH = "/lib/python_stdlib_full.zip"


def _wanted(top: str) -> bool:
    """Whether ``top`` is a module of the standard library that may be in the whole one."""
    return (
        top in sys.stdlib_module_names
        and top not in sys.builtin_module_names
        and not top.startswith("_")
    )


def missing(code: str) -> list[str]:
    """The standard library's modules that ``code`` imports and the trimmed library lacks
    (the worker then downloads the whole one first, without blocking: static/worker.mjs)."""
    if RestOfStdlib.tried:
        return []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []  # the core says what is wrong with it
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return sorted(
        name
        for name in names
        if _wanted(name)
        and name not in sys.modules
        and importlib.machinery.PathFinder.find_spec(name) is None
    )


def add_whole_library(path: str = FULL_PATH) -> None:
    """The whole library's zip, written at ``path``, joins the import path."""
    RestOfStdlib.tried = True
    if path not in sys.path:
        sys.path.append(path)
    importlib.invalidate_caches()


class RestOfStdlib:
    """A finder after all others: a module of the standard library not found in the trimmed
    one brings the whole library (once)."""

    tried = False
    failed: str | None = None  # why the whole library is not there

    @classmethod
    def find_spec(
        cls,
        name: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        top = name.partition(".")[0]
        if not _wanted(top):
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
        try:
            data = _download()
        except Exception as exc:
            cls.tried = True
            cls.failed = str(exc)
            return cls.find_spec(name, path, target)
        with open(FULL_PATH, "wb") as out:
            out.write(data)
        add_whole_library()
        return importlib.machinery.PathFinder.find_spec(name, path)


def install() -> None:
    if RestOfStdlib not in sys.meta_path:
        sys.meta_path.append(RestOfStdlib)
