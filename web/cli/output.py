"""What the command line prints for people: the format chosen when none is asked for, plain-text
tables, and times rounded to the time step's precision.

On a terminal a command prints a short table; anywhere else (a pipe, a file, ``--output``) it
writes JSON, as it always did, so scripts keep working. ``--format`` chooses explicitly.
"""

from __future__ import annotations

import math
import sys
import textwrap
from collections.abc import Callable, Sequence
from decimal import Decimal

#: what ``--format`` accepts: a table for people, JSON and CSV for programs
FORMATS = ("table", "json", "csv")
#: a time step with more decimals than this is no short decimal (1/60 s): its times are
#: written in full, as Python's shortest round-trip form
MAX_TIME_DECIMALS = 12
#: what a table shows where there is nothing to show (no divergence, no slope)
NOTHING = "—"
#: the columns of a table are set apart by this
GAP = "  "
#: notes are wrapped to lines of at most this many characters
NOTE_WIDTH = 88


def add_format_option(parser) -> None:
    """``--format table|json|csv``; without it, a table on a terminal and JSON elsewhere."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="table (for people), json or csv (for programs); default: table when "
        "standard output is a terminal, json otherwise (a pipe, a file, --output)",
    )


def chosen_format(args) -> str:
    """The format asked for, or the default: a table when standard output is a terminal and
    nothing is written to a file, JSON otherwise."""
    if args.format is not None:
        return str(args.format)
    if getattr(args, "output", None) is None and _is_terminal(sys.stdout):
        return "table"
    return "json"


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def time_decimals(dt: float) -> int | None:
    """The decimals of ``dt`` as written shortest (0.05 -> 2, 1e-05 -> 5, 2 -> 0), or None
    when it has more than :data:`MAX_TIME_DECIMALS` (not a short decimal, such as 1/60)."""
    exponent = Decimal(repr(float(dt))).as_tuple().exponent
    decimals = max(0, -int(exponent))
    return decimals if decimals <= MAX_TIME_DECIMALS else None


def round_time(t: float, dt: float) -> float:
    """``t``, a whole number of steps ``dt``, rounded to the step's decimals: ``48 * 0.1`` is
    4.800000000000001 in floating point and 4.8 here. Unchanged when ``dt`` is no short
    decimal or ``t`` is not finite."""
    decimals = time_decimals(dt)
    if decimals is None or not math.isfinite(t):
        return t
    return round(t, decimals)


def time_text(t: float, dt: float) -> str:
    """``t`` at the step's precision, as a machine reads it back (CSV): ``repr`` of
    :func:`round_time`."""
    return repr(round_time(t, dt))


def time_writer(dt: float) -> Callable[[float], str]:
    """:func:`time_text` for many times of one step ``dt`` (its decimals found once)."""
    decimals = time_decimals(dt)
    if decimals is None:
        return repr

    def text(t: float) -> str:
        return repr(round(t, decimals)) if math.isfinite(t) else repr(t)

    return text


def time_label(t: float, dt: float) -> str:
    """``t`` at the step's precision, for people: as :func:`time_text`, but at most six
    significant digits when the step is no short decimal."""
    if time_decimals(dt) is None:
        return f"{t:.6g}"
    return time_text(t, dt)


def number_label(x: float | None, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits and its sign, in scientific form
    (``+1.23e-04``); :data:`NOTHING` for None or NaN."""
    if x is None or x != x:
        return NOTHING
    return f"{x:+.{digits - 1}e}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Rows of text in aligned columns under ``headers`` and a rule; the columns whose
    indices are in ``right`` are aligned to the right (numbers), the others to the left."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(width) if k in right else cell.ljust(width)
            for k, (cell, width) in enumerate(zip(cells, widths))
        ]
        return GAP.join(parts).rstrip()

    rule = GAP.join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)]) + "\n"


def wrap(note: str) -> str:
    """``note`` in lines of at most :data:`NOTE_WIDTH` characters, the later ones indented,
    ending with a newline."""
    return textwrap.fill(note, NOTE_WIDTH, subsequent_indent="  ", break_on_hyphens=False) + "\n"
