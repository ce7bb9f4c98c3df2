"""Users' own methods on the command line: ``--tableau JSON``, ``--splitting JSON`` and
``--integrator-file PATH.py`` (each repeatable), for ``run`` and ``study``.

Each option is parsed as it is read, so a bad definition stops the command with status 2 and
one line naming the option and the entry at fault. The methods keep their command-line order
(after the built-ins named with ``--integrator``). A file runs as Python code on this machine,
unconfined: the user chose it (see :mod:`integrator_lab.core.custom`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from integrator_lab.core.custom import DefinitionError, parse_definition


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _from_json(kind: str, example: str):
    def convert(text: str):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(
                f"not valid JSON ({exc.msg} at character {exc.pos}); expected {example}"
            ) from None
        if not isinstance(data, dict):
            raise argparse.ArgumentTypeError(f"got {type(data).__name__}, expected {example}")
        if data.get("kind", kind) != kind:
            raise argparse.ArgumentTypeError(
                f"kind: got {data['kind']!r}, expected {kind!r} (or no kind)"
            )
        try:
            return parse_definition({**data, "kind": kind})
        except DefinitionError as exc:
            raise argparse.ArgumentTypeError(_one_line(exc)) from None

    convert.__name__ = kind
    return convert


def _from_file(text: str):
    path = Path(text)
    if path.suffix != ".py":
        raise argparse.ArgumentTypeError(f"got {text!r}, expected a Python file (.py)")
    try:
        code = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: not UTF-8 text") from None
    try:
        # the file's NAME, else its stem
        return parse_definition({"kind": "python", "name": path.stem, "code": code})
    except DefinitionError as exc:
        raise argparse.ArgumentTypeError(f"{text}: {_one_line(exc)}") from None


def add_method_options(parser) -> None:
    """Add ``--tableau``, ``--splitting`` and ``--integrator-file`` to ``parser``; the parsed
    definitions land in ``args.methods`` in command-line order."""
    group = parser.add_argument_group(
        "your own methods",
        "each repeatable, combinable with --integrator; a run is named after its method",
    )
    group.add_argument(
        "--tableau",
        dest="methods",
        action="append",
        metavar="JSON",
        type=_from_json("tableau", '{"name": ..., "a": [[...]], "b": [...], "c": [...]}'),
        help='an explicit Runge-Kutta method: {"name": "ralston", "a": [[0, 0], '
        '["2/3", 0]], "b": ["1/4", "3/4"], "c": [0, "2/3"]} (fractions as '
        "strings are checked exactly)",
    )
    group.add_argument(
        "--splitting",
        dest="methods",
        action="append",
        metavar="JSON",
        type=_from_json("splitting", '{"name": ..., "sequence": [["kick", w], ["drift", w], ...]}'),
        help='a kick/drift composition: {"name": "verlet2", "sequence": '
        '[["kick", 0.5], ["drift", 1], ["kick", 0.5]]}',
    )
    group.add_argument(
        "--integrator-file",
        dest="methods",
        action="append",
        metavar="PATH.py",
        type=_from_file,
        help="Python code defining step(accel, q, v, t, dt) -> (q, v), "
        "optionally NAME and ORDER (runs unconfined, like any script you run)",
    )
    parser.set_defaults(methods=[])
