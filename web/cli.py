"""Command-line interface (placeholder until the real one lands)."""

from __future__ import annotations

import sys

USAGE = """usage: integrator-lab {run,bench,build,serve} ...

Integrator Lab command line (not implemented yet)."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    print(USAGE, file=sys.stderr)
    return 2
