"""``integrator-lab study``: convergence and work-precision data; a table of the fitted slopes
on a terminal, JSON or CSV for programs.

Runs :class:`integrator_lab.core.Study` in slices so that a progress bar (on stderr, only when
it is a terminal) moves while it works. Bad input exits with status 2 and one line naming the
option and what it accepts.
"""

from __future__ import annotations

import json
import sys

from integrator_lab.cli.argtypes import integer_in
from integrator_lab.cli.main import (
    PROG,
    UsageError,
    _time_span,
    add_output_options,
    add_system_options,
)
from integrator_lab.cli.output import NOTHING, chosen_format, table, wrap
from integrator_lab.core import INTEGRATORS, Study
from integrator_lab.core.study import (
    DEFAULT_POINTS,
    DT_MAX_FACTOR,
    DT_MIN_DIVISOR,
    FIXED_STEP_INTEGRATORS,
    POINTS_RANGE,
)
from integrator_lab.views.study import CSV_COLUMNS, study_csv  # noqa: F401 (the CLI's columns)

#: the core's names of the study's arguments, as the command line spells them
OPTIONS = {
    "duration": "--duration",
    "dt_max": "--dt-max",
    "dt_min": "--dt-min",
    "points": "--points",
}


def add_subcommands(sub) -> None:
    study = sub.add_parser(
        "study",
        help="convergence and work-precision study: error and cost against dt",
        description="Run integrators on SYSTEM for DURATION at a geometric sequence of time "
        "steps dt = DURATION/n; measure the error at DURATION (against the exact solution, or "
        "rk45 at a tight tolerance), the energy error and the cost (force evaluations, "
        "seconds), and fit the slope of log(error) against log(dt) over the asymptotic range. "
        "On a terminal, print per integrator its fitted slope beside its declared order.",
    )
    add_system_options(study, "default: every fixed-step one: " + ", ".join(FIXED_STEP_INTEGRATORS))
    study.add_argument(
        "--duration",
        type=_time_span("duration"),
        required=True,
        help="simulated time T in s; every dt divides it",
    )
    study.add_argument(
        "--dt-max",
        type=_time_span("dt-max"),
        metavar="DT",
        help=f"largest time step in s (default: {DT_MAX_FACTOR:g} x the "
        "system's recommended step, at most T)",
    )
    study.add_argument(
        "--dt-min",
        type=_time_span("dt-min"),
        metavar="DT",
        help=f"smallest time step in s (default: the recommended step / {DT_MIN_DIVISOR:g})",
    )
    study.add_argument(
        "--points",
        type=integer_in(*POINTS_RANGE),
        default=DEFAULT_POINTS,
        metavar="N",
        help=f"time steps per integrator (default {DEFAULT_POINTS})",
    )
    add_output_options(study)
    study.set_defaults(func=cmd_study)


def _usage_error(exc: ValueError) -> UsageError:
    """The core's message, with its argument named as the command line spells it."""
    message = str(exc)
    for name, option in OPTIONS.items():
        if message.startswith(f"'{name}':"):
            message = f"argument {option}:" + message[len(name) + 3 :]
            break
    return UsageError(message)


def cmd_study(args) -> int:
    # every fixed-step built-in when no method at all was chosen
    names = args.integrator or ([] if args.methods else list(FIXED_STEP_INTEGRATORS))
    for name in names:
        if name not in INTEGRATORS:
            raise UsageError(
                f"argument --integrator: unknown integrator {name!r}; valid "
                f"integrators: {', '.join(INTEGRATORS)}"
            )
    if len(set(names)) != len(names):
        raise UsageError(
            f"argument --integrator: got duplicates in {names}, expected distinct names"
        )
    params = {}
    for name, value in args.set:
        if name in params:
            raise UsageError(f"argument --set: parameter '{name}' given twice")
        params[name] = value
    try:
        study = Study(
            args.system,
            names + args.methods,
            duration=args.duration,
            dt_max=args.dt_max,
            dt_min=args.dt_min,
            points=args.points,
            **params,
        )
    except ValueError as exc:
        raise _usage_error(exc) from None
    # opened (and so checked) before the study runs, which may take minutes
    handle = _open_output(args.output) if args.output else None
    try:
        try:
            _run_with_progress(study)
        except ValueError as exc:
            raise _usage_error(exc) from None
        result = study.result()
        form = chosen_format(args)
        text = {"json": _to_json, "csv": _to_csv, "table": _to_table}[form](result)
        if handle is not None:
            try:
                handle.write(text)
                handle.flush()
            except OSError as exc:
                raise UsageError(
                    f"argument --output: cannot write {args.output!r}: {exc.strerror or exc}"
                ) from None
        else:
            try:
                sys.stdout.write(text)
                sys.stdout.flush()
            except BrokenPipeError:
                raise  # the reader went away: main() ends quietly
            except OSError as exc:  # a full device, an I/O error
                raise UsageError(
                    f"cannot write to standard output: {exc.strerror or exc}"
                ) from None
    finally:
        if handle is not None:
            try:
                handle.close()
            except OSError:
                pass  # (what could not be written was said above)
    if form != "table":  # the table says it
        for run in result.runs:
            if run.note:
                print(f"{PROG}: note: {run.integrator}: {run.note}", file=sys.stderr)
    return 0


def _open_output(path: str):
    try:
        return open(path, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise UsageError(f"argument --output: cannot write {path!r}: {exc.strerror}") from None


def _run_with_progress(study) -> None:
    show = sys.stderr.isatty()
    while not study.done:
        # one point per call, each in one piece: the numbers (evaluation counts included) are
        # those of the one-call ``study()``, terminal or not
        study.run_next()
        if show:
            filled = int(40 * study.progress)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (40 - filled)}] {int(100 * study.progress):3d}%"
            )
            sys.stderr.flush()
    if show:
        sys.stderr.write("\n")


def _to_json(result) -> str:
    return json.dumps(result.to_dict(), allow_nan=False) + "\n"


def _to_csv(result) -> str:
    # the one CSV writer of studies, shared with the page's and the server's study views
    return study_csv(result.to_dict())


def _to_table(result) -> str:
    """Per integrator: the declared order (the one that applies to the system, marked ``*``
    when that is not the headline one), the fitted slope and whether they agree; the notes
    below. On a system that is not smooth one line above says why no order shows, in place
    of each run's note saying so."""
    system = result.system
    text = (
        f"{system.name}: error at T = {result.duration:g} s against "
        f"{_reference_label(result.reference)}; slope of log(error) against log(dt)\n"
    )
    if system.not_smooth is not None:
        text += wrap(
            f"note: {system.name} is not smooth: {system.not_smooth}. A method's order rests "
            "on smooth forces: each slope below is the error's trend as dt shrinks, not the "
            "method's order (compare the spring, which is smooth)."
        )
    rows = []
    notes = []
    for run in result.runs:
        slope = NOTHING if run.slope is None else f"{run.slope:.2f}"
        agrees = {True: "yes", False: "no", None: NOTHING}[run.order_matches]
        order = NOTHING if run.order is None else str(run.order)
        if run.order_note is not None:
            order += "*"
            notes.append(f"* {run.integrator}: {run.order_note}")
        rows.append([run.integrator, order, slope, agrees])
        if run.note and system.not_smooth is None:
            notes.append(f"note: {run.integrator}: {run.note}")
    text += table(["integrator", "declared order", "fitted slope", "agrees"], rows, (1, 2))
    return text + "".join(wrap(note) for note in notes)


def _reference_label(reference) -> str:
    """What the errors are measured against, in a few words."""
    if reference.get("method") == "exact":
        return "the exact solution"
    return f"{reference['method']} at rtol {reference['rtol']:g}"
