"""Run the core's test suite (tests/core/) inside Pyodide under Node, offline.

Usage: python tests/pyodide/run_core_tests.py [--tests DIR] [--wheels DIR] [-- PYTEST ARGS...]

The core and the pure-Python wheels pytest needs (tests/pyodide/requirements.txt, fetched into
.cache/pyodide-wheels by `make .cache/pyodide-wheels`) are unpacked into Pyodide's
site-packages; the test directory and this project's pyproject.toml are copied in, so pytest
runs with the same configuration (strict markers, warnings as errors) as under CPython.
Exits with pytest's exit status. Not collected by pytest (the name does not match test_*.py).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from integrator_lab.site.pyodide_node import run_python

ROOT = Path(__file__).resolve().parents[2]
PROJECT_IN_PYODIDE = "/integrator-lab"  # a folder of Pyodide's in-memory file system

DRIVER = """
import sys
from pathlib import Path

Path("pyproject.toml").write_text({pyproject!r}, encoding="utf-8")
import pytest

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "tests/core", *sys.argv[1:]]))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tests",
        type=Path,
        default=ROOT / "tests" / "core",
        help="test directory to run (default: tests/core)",
    )
    parser.add_argument(
        "--wheels",
        type=Path,
        default=ROOT / ".cache" / "pyodide-wheels",
        help="directory of the wheels listed in tests/pyodide/requirements.txt",
    )
    parser.add_argument(
        "--no-core",
        action="store_true",
        help="do not install the core (to check the harness on its own)",
    )
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments, after --")
    args = parser.parse_args(argv)

    wheels = sorted(args.wheels.glob("*.whl"))
    if not any(w.name.startswith("pytest-") for w in wheels):
        print(
            f"no pytest wheel in {args.wheels}: run `make .cache/pyodide-wheels`", file=sys.stderr
        )
        return 2
    if not args.tests.is_dir():
        print(f"no test directory {args.tests}", file=sys.stderr)
        return 2

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    # pytest-timeout is not among the wheels (no signals to stop a test with in Pyodide): its
    # option would be an unknown one there, an error with warnings as errors
    pyproject = re.sub(r"(?m)^timeout = .*$", "", pyproject)
    started = time.perf_counter()
    result = run_python(
        DRIVER.format(pyproject=pyproject),
        core=not args.no_core,
        wheels=wheels,
        files={f"{PROJECT_IN_PYODIDE}/tests/core": args.tests},
        cwd=PROJECT_IN_PYODIDE,
        argv=args.pytest_args,
        filename="run_core_tests_driver.py",
        capture=False,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:  # on success pytest's own summary stays the last line
        print(
            f"pytest inside Pyodide exited with status {result.returncode} "
            f"({elapsed:.1f} s including Pyodide start-up)",
            file=sys.stderr,
        )
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
