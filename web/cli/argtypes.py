"""Argument types of the command line: each rejects bad text with one line naming what it
accepts (argparse prefixes the option's name)."""

from __future__ import annotations

import argparse


def integer_in(low: int, high: int | None = None, note: str = ""):
    """An argparse type: an integer from ``low`` to ``high`` (no upper bound if None)."""
    accepted = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
    if note:
        accepted += f" ({note})"

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"got {text!r}, expected {accepted}")
        return value

    return convert


#: a TCP port; 0 lets the system pick a free one
port = integer_in(0, 65535, "0: any free port")
