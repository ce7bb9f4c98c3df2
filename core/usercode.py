"""The one place where the core compiles and runs code it was given (a user's integrator,
see :mod:`integrator_lab.core.custom`).

Nothing here confines that code: CPython and Pyodide offer no sandbox, so it can do whatever
the process can. Callers decide whether it may run at all (the command line runs files the
user chose; a server only when its operator allowed it).
"""

from __future__ import annotations

import sys
from types import CodeType
from typing import Any

#: the file name user code is compiled under: its frames in a traceback carry it
CODE_FILENAME = "<your method>"

#: what user code may raise that still ends the whole program rather than the user's method
#: alone: Ctrl-C where a signal delivers it (a terminal). Everything else it raises, however
#: it is derived (``sys.exit()`` raises SystemExit, a BaseException), stops the method only.
#: In the browser (emscripten) no signal comes: a KeyboardInterrupt there is the code's own.
PROCESS_WIDE: tuple[type[BaseException], ...] = (
    () if sys.platform == "emscripten" else (KeyboardInterrupt,)
)


def reraise_process_wide(exc: BaseException) -> None:
    """Re-raise ``exc`` if it must end the program (:data:`PROCESS_WIDE`); else return, and
    the caller reports it as a failure of the user's code."""
    if isinstance(exc, PROCESS_WIDE):
        raise exc


def compile_module(text: str) -> CodeType:
    """``text`` compiled as a module; a ``SyntaxError`` points at its line."""
    return compile(text, CODE_FILENAME, "exec")


def run_module(code_object: CodeType) -> dict[str, Any]:
    """Run compiled module code in a fresh namespace and return that namespace (the builtins
    are Python's own: this is not a sandbox)."""
    # Any: the globals of code the core does not know (checked where they are used)
    namespace: dict[str, Any] = {"__name__": "your_method"}
    exec(code_object, namespace)  # noqa: S102 - running the user's code is the point
    return namespace
