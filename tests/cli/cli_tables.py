"""Reading what the command line prints for people: the rows of its tables, and what a
terminal shows."""

from __future__ import annotations

import os
import pty
import subprocess
import sys


def table_rows(text: str) -> dict[str, list[str]]:
    """The rows of the first table in ``text``, by their first cell (the integrator): the
    other cells, split on the runs of two or more spaces that set the columns apart."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    rows = {}
    for line in lines[rule + 1 :]:
        cells = [c.strip() for c in line.strip().split("  ") if c.strip()]
        if len(cells) < 2:
            break
        rows[cells[0]] = cells[1:]
    return rows


def table_headers(text: str) -> list[str]:
    """The column headers of the first table in ``text``."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    return [c.strip() for c in lines[rule - 1].split("  ") if c.strip()]


def drain(controller: int) -> bytes:
    """Everything a pseudo-terminal's other end wrote until it closed; closes ``controller``."""
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # Linux reports the end of a closed pty this way
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return shown


def on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run ``integrator-lab ARGS`` with standard output a pseudo-terminal: its exit status,
    what the terminal shows, and its stderr (a pipe)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "integrator_lab", *args],
        stdout=terminal,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    shown = drain(controller)
    _, err = process.communicate(timeout=120)
    return process.returncode, shown.decode("utf-8").replace("\r\n", "\n"), err.decode("utf-8")
