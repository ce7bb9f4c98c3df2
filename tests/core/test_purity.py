"""The core must run unchanged in Pyodide: standard library only, nothing from the web layer,
no I/O. Checked on the source itself, so an import hidden in a rarely used branch counts too."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import integrator_lab.core

CORE = Path(integrator_lab.core.__file__).resolve().parent
SOURCES = sorted(CORE.rglob("*.py"))

# standard-library modules that do I/O or need an operating system Pyodide does not have
FORBIDDEN_STDLIB = {
    "os",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "subprocess",
    "socket",
    "urllib",
    "http",
    "threading",
    "multiprocessing",
    "asyncio",
    "sqlite3",
    "logging",
    "warnings",
    "builtins",
    "importlib",
    "ctypes",
    "signal",
}
# calls that read, write, print, or import by name at run time
FORBIDDEN_CALLS = {"open", "print", "input", "breakpoint", "exec", "eval", "compile", "__import__"}
# the one module that compiles and runs a user's integrator code: that is its whole job
RUNS_USER_CODE = {"usercode.py": {"exec", "compile"}}


def _ids(paths):
    return [str(p.relative_to(CORE)) for p in paths]


def _imports(path: Path):
    """(module, level) of every import in the file; level > 0 for relative imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


def test_the_core_sources_are_found():
    names = {p.name for p in SOURCES}
    assert {"__init__.py", "runner.py", "params.py", "special.py", "contact.py"} <= names
    assert len(SOURCES) >= 15


@pytest.mark.parametrize("path", SOURCES, ids=_ids(SOURCES))
def test_core_imports_only_the_standard_library_and_itself(path):
    depth = len(path.relative_to(CORE).parts) - 1  # packages between the core and this file
    for module, level in _imports(path):
        if level:
            # a relative import may climb to the core package, never above it
            assert level - 1 <= depth, f"{path.name}: relative import escapes the core"
            continue
        top = module.split(".")[0]
        assert top in sys.stdlib_module_names, f"{path.name} imports {module}"
        assert top not in FORBIDDEN_STDLIB, f"{path.name} imports {module}"


@pytest.mark.parametrize("path", SOURCES, ids=_ids(SOURCES))
def test_core_does_no_io(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else (func.attr if isinstance(func, ast.Attribute) else None)
            )
            if isinstance(func, ast.Attribute) and ast.unparse(func) == "re.compile":
                continue  # a regular expression, not code
            allowed = RUNS_USER_CODE.get(path.name, set())
            assert name not in FORBIDDEN_CALLS - allowed, (
                f"{path.name}:{node.lineno} calls {name}()"
            )
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            assert (node.value.id, node.attr) not in {
                ("sys", "stdout"),
                ("sys", "stderr"),
                ("sys", "stdin"),
            }, path.name


def test_loaded_core_modules_hold_only_standard_library_modules():
    """At run time too: every module object reachable from a loaded core module's namespace
    is from the standard library or the core."""
    module_type = type(sys)
    for name, module in list(sys.modules.items()):
        if not name.startswith("integrator_lab.core"):
            continue
        for value in vars(module).values():
            if isinstance(value, module_type):
                other = value.__name__
                assert other.split(".")[0] in sys.stdlib_module_names or other.startswith(
                    "integrator_lab.core"
                ), f"{name} holds {other}"
