"""``integrator-lab stability`` and ``integrator-lab area``: stability regions and phase-space
area (:mod:`integrator_lab.core.stability`, :mod:`integrator_lab.core.area`); a table on a
terminal, JSON or CSV for programs.

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
from integrator_lab.cli.output import (
    NOTHING,
    chosen_format,
    table,
    time_label,
    time_writer,
    wrap,
)
from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, SYSTEMS, get_system
from integrator_lab.core.area import (
    DEFAULT_POINTS,
    DEFAULT_RADIUS,
    POINTS_RANGE,
    RADIUS_RANGE,
    area_runs,
)
from integrator_lab.core.simulate import step_count
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
#: the most steps one ``area`` may take (``--steps``, or ``--duration`` over dt)
MAX_AREA_STEPS = 10_000_000


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
        "[null, null]. On a terminal, print each method's limits (and verdict) as a table.",
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
        "shrinking for implicit Euler. On a terminal, print each integrator's ratio at the end.",
    )
    add_system_options(area, "default: " + ", ".join(DEFAULT_INTEGRATORS))
    area.add_argument(
        "--dt",
        type=_time_span("dt"),
        help="time step in s (default: the system's recommended step)",
    )
    span = area.add_mutually_exclusive_group(required=True)
    span.add_argument(
        "--steps", type=integer_in(1, MAX_AREA_STEPS), metavar="N", help="steps (or --duration)"
    )
    span.add_argument(
        "--duration",
        type=_time_span("duration"),
        metavar="T",
        help=f"simulated time in s, in whole steps of dt (at most {MAX_AREA_STEPS:,} steps; "
        "or --steps)",
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
    form = chosen_format(args)
    if form == "table":
        _emit(args, _stability_table(header, modes, dt, results, verdicts))
        return 0
    if form == "json":
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


def _area_steps(args, dt: float) -> int:
    """``--steps``, or the whole steps of ``dt`` that cover ``--duration`` (the last may
    overshoot), at most :data:`MAX_AREA_STEPS`."""
    if args.steps is not None:
        return int(args.steps)
    try:
        steps = step_count(args.duration, dt)
    except ValueError:  # beyond the core's own bound
        steps = MAX_AREA_STEPS + 1
    if steps > MAX_AREA_STEPS:
        raise UsageError(
            f"argument --duration: got {args.duration:g} s, expected a time in "
            f"(0, {MAX_AREA_STEPS * dt:g}] s (at most {MAX_AREA_STEPS:,} steps of dt = {dt:g} s)"
        )
    return steps


#: a method's verdict on a system, in the table
VERDICTS = {True: "stable", False: "unstable", None: f"{NOTHING} (adaptive: it subdivides dt)"}


def _limit(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.4g}"


def _stability_table(header, modes, dt: float, results, verdicts) -> str:
    """Per method: its kind, limits and A-stability; with a system, the points dt*lambda
    above and each method's verdict."""
    text = ""
    headers = ["integrator", "kind", "imaginary limit", "real limit", "A-stable"]
    rows = [
        [r.integrator, r.kind, _limit(r.imaginary_limit), _limit(r.real_limit)]
        + ["yes" if r.a_stable else "no"]
        for r in results
    ]
    if modes:
        points = []
        for mode in modes:
            z = dt * mode.eigenvalue
            pair = f" ± {abs(z.imag):.4g}i" if z.imag else ""
            points.append(f"{mode.name} {z.real:.4g}{pair}")
        text += wrap(
            f"{header['system']}: dt = {time_label(dt, dt)} s; the points dt·λ of its "
            f"linearised modes: {', '.join(points)}"
        )
        headers.append("verdict")
        for row, stable in zip(rows, verdicts):
            row.append(VERDICTS[stable])
    text += table(headers, rows, (2, 3))
    text += wrap(
        "imaginary limit: the largest dt·ω an undamped oscillator may have and stay bounded; "
        "real limit: how far the region reaches along the negative real axis; verdict: stable "
        "when every point lies inside the method's region"
    )
    return text


def cmd_area(args) -> int:
    names = args.integrator or ([] if args.methods else list(DEFAULT_INTEGRATORS))
    _check_names(names, "--integrator")
    entries = names + list(args.methods)
    try:
        system = get_system(args.system, **_params(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    dt = args.dt if args.dt is not None else system.recommended_dt
    steps = _area_steps(args, dt)
    if steps * args.points * len(entries) > MAX_WORK:
        option = "--steps" if args.steps is not None else "--duration"
        raise UsageError(
            f"argument {option}: steps x points x integrators must be at most {MAX_WORK:,} "
            f"(got {steps * args.points * len(entries):,})"
        )
    try:
        runs = area_runs(system, entries, dt, steps, args.radius, args.points, args.every)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    form = chosen_format(args)
    if form == "json":
        document = {
            "system": system.name,
            "params": system.params,
            "dt": dt,
            "steps": steps,
            "radius": args.radius,
            "points": args.points,
            "runs": [run.to_dict() for run in runs],
        }
        _emit(args, json.dumps(document, allow_nan=False) + "\n")
        return 0
    if form == "table":
        _emit(args, _area_table(system, dt, steps, args, runs))
        return 0
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["integrator", "t", "area_ratio"])
    time = time_writer(dt)
    for run in runs:
        writer.writerows([run.integrator, time(t), repr(a)] for t, a in zip(run.t, run.area_ratio))
    _emit(args, out.getvalue())
    return 0


def _area_table(system, dt: float, steps: int, args, runs) -> str:
    """Per integrator: the time of its last ring, the area ratio there, and when it
    diverged."""
    rows = [
        [
            run.integrator,
            time_label(run.t[-1], dt),
            f"{run.area_ratio[-1]:.4g}",
            NOTHING if run.diverged_at is None else time_label(run.diverged_at, dt),
        ]
        for run in runs
    ]
    return (
        f"{system.name}: dt = {time_label(dt, dt)} s, {steps} steps; a ring of {args.points} "
        f"states of radius {args.radius:g} around the start\n"
        + table(["integrator", "t (s)", "area ratio", "diverged at t (s)"], rows, (1, 2))
        + wrap(
            "area ratio: the ring's area at t over its area at the start; 1 for a symplectic "
            "method (to the polygon's resolution)"
        )
    )
