"""``integrator-lab stability`` and ``integrator-lab area``: stability regions and phase-space
area (:mod:`integrator_lab.core.stability`, :mod:`integrator_lab.core.area`), as JSON or CSV.

Bad input exits with status 2 and one line naming the argument and what it accepts.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

from integrator_lab.cli.argtypes import integer_in
from integrator_lab.cli.main import (
    UsageError,
    _time_span,
    add_output_options,
    add_system_options,
)
from integrator_lab.cli.methods import add_method_options
from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, SYSTEMS, get_system
from integrator_lab.core.area import (
    DEFAULT_POINTS,
    DEFAULT_RADIUS,
    POINTS_RANGE,
    RADIUS_RANGE,
    area_runs,
)
from integrator_lab.core.stability import (
    WINDOW,
    Mode,
    linear_modes,
    method,
    scaled_points,
    stability,
    verdict,
)

#: the most steps times ring points times methods one ``area`` may ask for
MAX_WORK = 50_000_000


def _radius(text: str) -> float:
    lo, hi = RADIUS_RANGE
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(
            f"got {text!r}, expected a number in [{lo:g}, {hi:g}] (relative to the state)"
        )
    return value


def add_subcommands(sub) -> None:
    region = sub.add_parser(
        "stability",
        help="stability regions of integrators, and a system's points dt*lambda",
        description="The stability region of each INTEGRATOR in the plane of z = h lambda "
        "(boundary polylines), its limits on the imaginary axis (h omega of an undamped "
        "oscillator) and the negative real axis, and whether it is A-stable; with --system, "
        "the points dt*lambda of the system's linearised modes where its motion is fastest "
        "(the start, or the bottom of the pendulum's swing) and each method's verdict: "
        '"stable" true when every point lies inside its region, false when a run diverges, '
        "null for the adaptive rk45 (it subdivides dt: no fixed step's region speaks for it). "
        "In JSON an unbounded limit is null and the boundary's pieces are separated by "
        "[null, null].",
    )
    region.add_argument(
        "integrators",
        nargs="*",
        metavar="INTEGRATOR",
        help="one or more of: " + ", ".join(INTEGRATORS),
    )
    add_method_options(region)
    region.add_argument("--system", metavar="SYSTEM", help="one of: " + ", ".join(SYSTEMS))
    region.add_argument(
        "--dt",
        type=_time_span("dt"),
        help="time step in s for the system's points (default: its recommended step)",
    )
    add_output_options(region)
    region.set_defaults(func=cmd_stability)

    area = sub.add_parser(
        "area",
        help="phase-space area of a ring of initial states under each integrator",
        description="Advance a ring of initial states around SYSTEM's start state with each "
        "integrator and write the enclosed area relative to the start, over time: 1 for a "
        "symplectic method (to the polygon's resolution), growing for explicit Euler, "
        "shrinking for implicit Euler.",
    )
    add_system_options(area, "default: " + ", ".join(DEFAULT_INTEGRATORS))
    area.add_argument(
        "--dt",
        type=_time_span("dt"),
        help="time step in s (default: the system's recommended step)",
    )
    area.add_argument(
        "--steps", type=integer_in(1, 10_000_000), required=True, metavar="N", help="steps"
    )
    area.add_argument(
        "--radius",
        type=_radius,
        default=DEFAULT_RADIUS,
        metavar="R",
        help=f"the ring's radius relative to the start state's scale (default {DEFAULT_RADIUS})",
    )
    area.add_argument(
        "--points",
        type=integer_in(*POINTS_RANGE),
        default=DEFAULT_POINTS,
        metavar="P",
        help=f"states on the ring (default {DEFAULT_POINTS})",
    )
    area.add_argument(
        "--every", type=integer_in(1), default=1, metavar="N", help="keep every N-th step"
    )
    add_output_options(area)
    area.set_defaults(func=cmd_area)


def _params(args) -> dict[str, str]:
    params: dict[str, str] = {}
    for name, value in args.set:
        if name in params:
            raise UsageError(f"argument --set: parameter '{name}' given twice")
        params[name] = value
    return params


def _check_names(names, option: str) -> None:
    for name in names:
        if name not in INTEGRATORS:
            raise UsageError(
                f"argument {option}: unknown integrator {name!r}; valid "
                f"integrators: {', '.join(INTEGRATORS)}"
            )


def _emit(args, text: str) -> None:
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as exc:
            raise UsageError(
                f"argument --output: cannot write {args.output!r}: {exc.strerror or exc}"
            ) from None
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def cmd_stability(args) -> int:
    _check_names(args.integrators, "INTEGRATOR")
    entries = list(args.integrators) + list(args.methods)
    if not entries:
        raise UsageError(
            "argument INTEGRATOR: expected at least one integrator (or --tableau, --splitting, "
            "--integrator-file)"
        )
    if args.system is None and (args.set or args.dt is not None):
        raise UsageError("argument --system: required with --set and --dt")
    points: list[tuple[float, float]] = []
    modes: list[Mode] = []
    dt = 0.0
    header: dict[str, object] = {"window": list(WINDOW)}
    if args.system is not None:
        try:
            system = get_system(args.system, **_params(args))
            dt = args.dt if args.dt is not None else system.recommended_dt
            modes = linear_modes(system)
        except ValueError as exc:
            raise UsageError(f"argument --system: {exc}") from None
        points = scaled_points(modes, dt)
        header.update(
            system=system.name,
            dt=dt,
            modes=[
                {"name": m.name, "eigenvalue": [m.eigenvalue.real, m.eigenvalue.imag]}
                for m in modes
            ],
        )
    try:
        results = [stability(entry) for entry in entries]
        verdicts = [verdict(method(entry), modes, dt) if points else None for entry in entries]
    except ValueError as exc:
        raise UsageError(f"argument INTEGRATOR: {exc}") from None
    if args.format == "json":
        methods = [r.to_dict() for r in results]
        if points:
            for described, stable in zip(methods, verdicts):
                described["stable"] = stable
        document = {**header, "methods": methods, "points": [[x, y] for x, y in points]}
        _emit(args, json.dumps(document, allow_nan=False) + "\n")
        return 0
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "row",
            "integrator",
            "piece",
            "re",
            "im",
            "imaginary_limit",
            "real_limit",
            "a_stable",
            "stable",
        ]
    )
    for r, stable in zip(results, verdicts):
        limits = [repr(r.imaginary_limit), repr(r.real_limit), str(r.a_stable).lower()]
        shown = "" if stable is None else str(stable).lower()
        for k, piece in enumerate(r.boundary):
            for x, y in piece:
                writer.writerow(["boundary", r.integrator, k, repr(x), repr(y), *limits, shown])
    for x, y in points:
        writer.writerow(["point", header.get("system", ""), "", repr(x), repr(y), "", "", "", ""])
    _emit(args, out.getvalue())
    return 0


def cmd_area(args) -> int:
    names = args.integrator or ([] if args.methods else list(DEFAULT_INTEGRATORS))
    _check_names(names, "--integrator")
    entries = names + list(args.methods)
    if args.steps * args.points * len(entries) > MAX_WORK:
        raise UsageError(
            f"argument --steps: steps x points x integrators must be at most {MAX_WORK:,} "
            f"(got {args.steps * args.points * len(entries):,})"
        )
    try:
        system = get_system(args.system, **_params(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    dt = args.dt if args.dt is not None else system.recommended_dt
    try:
        runs = area_runs(system, entries, dt, args.steps, args.radius, args.points, args.every)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        document = {
            "system": system.name,
            "params": system.params,
            "dt": dt,
            "steps": args.steps,
            "radius": args.radius,
            "points": args.points,
            "runs": [run.to_dict() for run in runs],
        }
        _emit(args, json.dumps(document, allow_nan=False) + "\n")
        return 0
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["integrator", "t", "area_ratio"])
    for run in runs:
        writer.writerows([run.integrator, repr(t), repr(a)] for t, a in zip(run.t, run.area_ratio))
    _emit(args, out.getvalue())
    return 0
