"""The ``integrator-lab`` command line: run simulations headless, list what exists, benchmark.

Every subcommand is registered here, in ``integrator_lab.cli``: the larger ones
(``build``/``preview``/``bench-page`` in :mod:`integrator_lab.cli.site`, ``serve`` in
:mod:`integrator_lab.cli.serve`, ``study``, ``geometry``) through their module's
``add_subcommands`` function; the packages they drive never touch the command line.
Bad input of any kind exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import shutil
import sys
import tempfile

from integrator_lab import __version__
from integrator_lab.cli.argtypes import integer_in
from integrator_lab.cli.methods import add_method_options
from integrator_lab.cli.output import (
    NOTHING,
    add_format_option,
    chosen_format,
    number_label,
    table,
    time_label,
    time_writer,
    wrap,
)
from integrator_lab.core import (
    DEFAULT_INTEGRATORS,
    INTEGRATORS,
    SYSTEMS,
    Runner,
    catalog,
    get_system,
)
from integrator_lab.core.params import positive_time
from integrator_lab.core.simulate import step_count
from integrator_lab.views.samples import error_scale

PROG = "integrator-lab"
#: subcommand modules that may add themselves (absent ones are skipped)
PLUGINS = (
    "integrator_lab.cli.site",
    "integrator_lab.cli.serve",
    "integrator_lab.cli.study",
    "integrator_lab.cli.geometry",
)
#: a run taking more steps than this shows a progress bar (when stderr is a terminal)
PROGRESS_MIN_STEPS = 200_000


class UsageError(Exception):
    """Bad command-line input: reported on one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        raise UsageError(message)


def _time_span(name):
    def convert(text):
        try:
            return positive_time(name, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None

    convert.__name__ = name
    return convert


def _assignment(text):
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"got {text!r}, expected NAME=VALUE")
    return name.strip(), value.strip()


def add_system_options(parser, default_integrators: str) -> None:
    """SYSTEM, ``--integrator`` (repeatable) and the user's own methods: what ``run`` and
    ``study`` simulate."""
    parser.add_argument("system", metavar="SYSTEM", help="one of: " + ", ".join(SYSTEMS))
    parser.add_argument(
        "--integrator",
        "-i",
        action="append",
        metavar="NAME",
        help=f"integrator (repeatable; {default_integrators}); one of: " + ", ".join(INTEGRATORS),
    )
    add_method_options(parser)


def add_output_options(parser) -> None:
    """``--set NAME=VALUE`` (repeatable), ``--format`` and ``--output``: the system's
    parameters and where the numbers go, for ``run``, ``study``, ``stability`` and ``area``."""
    parser.add_argument(
        "--set",
        action="append",
        type=_assignment,
        default=[],
        metavar="NAME=VALUE",
        help="set a system parameter (repeatable)",
    )
    add_format_option(parser)
    parser.add_argument("--output", "-o", metavar="PATH", help="write here instead of stdout")


def build_parser() -> Parser:
    parser = Parser(
        prog=PROG,
        description="See what numerical time integrators do to "
        "a pendulum, a Newton's cradle and a damped spring.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="COMMAND"
    )

    run = sub.add_parser(
        "run",
        help="simulate and write trajectories and energies",
        description="Simulate SYSTEM under one or more integrators in lockstep. On a "
        "terminal, print a table: per integrator, the relative energy error at the end and "
        "when it diverged; otherwise (or with --format json|csv) write every sample.",
    )
    add_system_options(run, "default: " + ", ".join(DEFAULT_INTEGRATORS))
    run.add_argument(
        "--dt",
        type=_time_span("dt"),
        help="time step in s (default: the system's recommended step)",
    )
    run.add_argument(
        "--duration", type=_time_span("duration"), required=True, help="simulated time in s"
    )
    run.add_argument(
        "--every",
        type=integer_in(1),
        default=1,
        metavar="N",
        help="keep every N-th step (default 1)",
    )
    add_output_options(run)
    run.set_defaults(func=cmd_run)

    listing = sub.add_parser("list", help="list systems, parameters and integrators")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    listing.set_defaults(func=cmd_list)

    bench = sub.add_parser("bench", help="measure steps per second in CPython and Pyodide")
    bench.add_argument("--quick", action="store_true", help="shorter measurements")
    bench.add_argument("--no-pyodide", action="store_true", help="CPython only")
    bench.set_defaults(func=cmd_bench)

    for name in PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.add_subcommands(sub)
    return parser


# -- run ------------------------------------------------------------------------------------
#: samples taken from a runner at a time and written out: what bounds the memory of a run
STREAM_SAMPLES = 4096
#: the per-sample keys of a JSON run, in the document's order (as ``SimulationResult.to_dict``)
JSON_COLUMNS = ("t", "q", "v", "kinetic", "potential", "dissipated", "total")


def cmd_run(args) -> int:
    # the defaults run when no method at all was chosen
    names = args.integrator or ([] if args.methods else list(DEFAULT_INTEGRATORS))
    for name in names:
        if name not in INTEGRATORS:
            raise UsageError(
                f"argument --integrator: unknown integrator {name!r}; valid "
                f"integrators: {', '.join(INTEGRATORS)}"
            )
    params = {}
    for name, value in args.set:
        if name in params:
            raise UsageError(f"argument --set: parameter '{name}' given twice")
        params[name] = value
    try:
        system = get_system(args.system, **params)
        entries = names + args.methods
        # validates the names, the user's methods, dt and every once, before anything is
        # written
        probe = Runner(system, entries, args.dt, every=args.every, capacity=1)
        steps = step_count(args.duration, probe.dt)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    run = _Run(
        system,
        {lane.name: entry for lane, entry in zip(probe.lanes, entries)},
        probe.dt,
        args.every,
        steps,
    )
    form = chosen_format(args)
    write = {"json": _write_json, "csv": _write_csv, "table": _write_table}[form]
    if args.output:
        try:
            # opened (and so checked) before the simulation starts
            handle = open(args.output, "w", encoding="utf-8", newline="")
        except OSError as exc:
            raise UsageError(
                f"argument --output: cannot write {args.output!r}: {exc.strerror}"
            ) from None
        try:
            with handle:
                write(handle, run, args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise UsageError(
                f"argument --output: cannot write {args.output!r}: {exc.strerror or exc}"
            ) from None
    else:
        try:
            write(sys.stdout, run, args)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise UsageError(f"cannot write to standard output: {exc.strerror or exc}") from None
    run.finish_progress()
    if form != "table":  # the table has a column for it
        for name, lane in run.lanes.items():
            if lane.diverged_at is not None:
                print(
                    f"{PROG}: note: {name} diverged at t = "
                    f"{time_label(lane.diverged_at, run.dt)} s ({lane.reason})",
                    file=sys.stderr,
                )
    return 0


class _Run:
    """The integrators of one ``run``, simulated one after the other (their lanes are
    independent: the numbers are those of the lockstep runner), each handing out its samples
    in chunks of :data:`STREAM_SAMPLES` as they are made, so memory stays flat whatever the
    duration."""

    def __init__(self, system, methods, dt, every, steps):
        """``methods``: run name -> integrator name or user's method (``core.custom``)."""
        self.system, self.dt, self.every, self.steps = system, dt, every, steps
        self.methods = methods
        self.names = list(methods)
        self.lanes = {}
        self.show = steps * len(self.names) >= PROGRESS_MIN_STEPS and sys.stderr.isatty()
        self.done = 0

    def chunks(self, name):
        """Lists of sample tuples ``(t, *q, *v, kinetic, potential, dissipated, total)``."""
        runner = Runner(
            self.system,
            [self.methods[name]],
            self.dt,
            every=self.every,
            capacity=STREAM_SAMPLES + 1,
        )
        lane = self.lanes[name] = runner.lanes[0]
        # a multiple of every, so a chunk adds exactly STREAM_SAMPLES samples
        chunk = self.every * STREAM_SAMPLES
        done = 0
        while True:
            if lane.pending:
                yield list(lane.pending)
                lane.pending.clear()
            if done >= self.steps or lane.diverged_at is not None:
                break
            block = min(chunk, self.steps - done)
            runner.advance(block)
            done += block
            if done == self.steps:
                runner.record_last()  # as simulate(): a run ends with its last state
            self._progress(block, runner.time)
        self._progress(self.steps - done, runner.time)

    def _progress(self, steps, now):
        self.done += steps
        if self.show and steps:
            total = self.steps * len(self.names)
            filled = 40 * self.done // total
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (40 - filled)}] "
                f"{100 * self.done // total:3d}%  t = {now:.4g} s"
            )
            sys.stderr.flush()

    def finish_progress(self):
        if self.show:
            sys.stderr.write("\n")


def _write_json(out, run, args):
    """The document ``json.dumps`` gives of the header and every run's ``to_dict()``, written
    piece by piece: each run's columns are spooled to temporary files while it runs."""
    header = {
        "system": run.system.name,
        "params": run.system.params,
        "dt": run.dt,
        "duration": args.duration,
        "every": run.every,
    }
    out.write(json.dumps(header)[:-1] + ', "runs": [')
    n = run.system.ndof
    for index, name in enumerate(run.names):
        spools = [tempfile.TemporaryFile("w+", encoding="utf-8") for _ in JSON_COLUMNS]
        try:
            first = True
            for chunk in run.chunks(name):
                columns = (
                    [s[0] for s in chunk],
                    [list(s[1 : 1 + n]) for s in chunk],
                    [list(s[1 + n : 1 + 2 * n]) for s in chunk],
                    [s[-4] for s in chunk],
                    [s[-3] for s in chunk],
                    [s[-2] for s in chunk],
                    [s[-1] for s in chunk],
                )
                for spool, column in zip(spools, columns):
                    if not first:
                        spool.write(", ")
                    spool.write(json.dumps(column, allow_nan=False)[1:-1])
                first = False
            out.write((", " if index else "") + '{"integrator": ' + json.dumps(name))
            for key, spool in zip(JSON_COLUMNS, spools):
                out.write(f', "{key}": [')
                spool.seek(0)
                shutil.copyfileobj(spool, out)
                out.write("]")
            out.write(', "diverged_at": ' + json.dumps(run.lanes[name].diverged_at) + "}")
        finally:
            for spool in spools:
                spool.close()
    out.write("]}\n")


def run_csv_columns(ndof: int) -> list[str]:
    """The CSV header of ``run``: the state's columns are ``state_q0 ...`` and ``state_v0 ...``,
    so that none reads as a parameter (the spring's initial velocity is its parameter ``v0``),
    and ``energy_error`` is the signed relative energy error (:class:`_EnergyError`)."""
    return (
        ["integrator", "t"]
        + [f"state_q{i}" for i in range(ndof)]
        + [f"state_v{i}" for i in range(ndof)]
        + ["kinetic", "potential", "dissipated", "total", "energy_error"]
    )


class _EnergyError:
    """The signed relative energy error ``(total - E0) / scale`` of one integrator's samples,
    as the page's energy plot has it (:func:`integrator_lab.views.samples.error_scale`):
    ``total`` includes the work dissipated, so the exact motion has 0; positive is a gain."""

    def __init__(self, system):
        self.system = system
        self.energy0: float | None = None
        self.scale = 1.0

    def __call__(self, sample) -> float:
        total = sample[-1]
        if self.energy0 is None:  # the first sample is the initial state
            self.energy0 = total
            self.scale = error_scale(self.system, total)
        return (total - self.energy0) / self.scale


def _write_csv(out, run, args):
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(run_csv_columns(run.system.ndof))
    time = time_writer(run.dt)
    for name in run.names:
        error = _EnergyError(run.system)
        for chunk in run.chunks(name):
            writer.writerows([name, time(s[0]), *map(repr, s[1:]), repr(error(s))] for s in chunk)


def _write_table(out, run, args):
    """Per integrator: the time of its last sample, its energy error there and when it
    diverged (and why); no sample is kept but the last."""
    dt = run.dt
    rows = []
    error = _EnergyError(run.system)
    for name in run.names:
        error = _EnergyError(run.system)
        last = None
        for chunk in run.chunks(name):
            if last is None:
                error(chunk[0])
            last = chunk[-1]
        lane = run.lanes[name]
        diverged = (
            NOTHING
            if lane.diverged_at is None
            else f"{time_label(lane.diverged_at, dt)} ({lane.reason})"
        )
        rows.append([name, time_label(last[0], dt), number_label(error(last)), diverged])
    out.write(f"{run.system.name}: dt = {time_label(dt, dt)} s, {run.steps} steps\n")
    out.write(table(["integrator", "t (s)", "energy error", "diverged at t (s)"], rows, (1, 2)))
    # every integrator starts from the same state: the last one's E(0) is everyone's
    scale = "|E(0)|" if error.energy0 else f"{error.scale:g} J (the system's energy scale)"
    out.write(
        wrap(
            f"energy error: (E(t) - E(0)) / {scale} at the last t, E = kinetic + potential + "
            "dissipated: 0 for the exact motion, > 0 a gain"
        )
    )


# -- list -----------------------------------------------------------------------------------
def cmd_list(args) -> int:
    data = catalog()
    if args.format == "json":
        print(json.dumps(data, indent=2))
        return 0
    print("SYSTEMS")
    for system in data["systems"]:
        print(
            f"\n  {system['name']}: {system['description']} "
            f"(recommended dt = {system['recommended_dt']:g} s)"
        )
        for p in system["params"]:
            default = p["default"]
            print(
                f"    {p['name']:<12} {p['title']}; default {default!s}; {p['accepted']}"
                f"{'  - ' + p['doc'] if p['doc'] else ''}"
            )
    print("\nINTEGRATORS")
    for i in data["integrators"]:
        kind = ", ".join(
            filter(
                None,
                [
                    "symplectic" if i["symplectic"] else "",
                    "implicit" if i["implicit"] else "explicit",
                ],
            )
        )
        order = f"order {i['order']}" + (f" ({i['order_note']})" if i["order_note"] else "")
        print(
            f"  {i['name']:<18} {order}, {kind}, {i['evaluations_text']} force "
            f"evaluation(s)/step"
            + (f": {i['evaluations_note']}" if i["evaluations_note"] else "")
            + f"\n  {'':<18} {i['description']}"
        )
    return 0


# -- bench ----------------------------------------------------------------------------------
def cmd_bench(args) -> int:
    from integrator_lab.dev import bench

    return bench.main(quick=args.quick, pyodide=not args.no_pyodide)


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: not an error of ours
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
