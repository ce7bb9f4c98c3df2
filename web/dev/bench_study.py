"""How long a default convergence study takes, in CPython and in Pyodide under Node.

The default study is what ``integrator-lab study spring --duration 10`` runs: every fixed-step
integrator on the damped spring for 10 s, twelve time steps from 0.1 s down to 0.5 ms. The
measuring part uses only the standard library and the core, so this very file runs in both
runtimes (the Pyodide run goes through :mod:`integrator_lab.site.pyodide_node`)::

    python -m integrator_lab.dev.bench_study [--repeats N] [--no-pyodide]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from integrator_lab.core import Study

SYSTEM, DURATION = "spring", 10.0


def measure(repeats: int) -> dict:
    """Wall seconds of the whole default study (median of ``repeats``), and where they go."""
    totals, per_integrator = [], {}
    points = 0
    for _ in range(repeats):
        study = Study(SYSTEM, duration=DURATION)
        began = time.perf_counter()
        while not study.done:
            study.run_next()
        totals.append(time.perf_counter() - began)
        result = study.result()
        points = sum(len(run.dt) for run in result.runs)
        for run in result.runs:
            per_integrator.setdefault(run.integrator, []).append(sum(run.seconds))
    return {
        "runtime": f"{sys.implementation.name} {sys.version.split()[0]} ({sys.platform})",
        "study": f"{SYSTEM}, T = {DURATION:g} s, defaults",
        "points": points,
        "seconds": statistics.median(totals),
        "stepping_seconds": {
            name: statistics.median(values) for name, values in per_integrator.items()
        },
    }


def run_pyodide(repeats: int) -> dict:
    from pathlib import Path

    from integrator_lab.site.pyodide_node import run_python

    code = Path(__file__).read_text(encoding="utf-8")
    outcome = run_python(
        code, argv=["--measure", "--repeats", str(repeats)], filename="bench_study.py", timeout=1800
    )
    if outcome.returncode != 0:
        raise RuntimeError(f"study benchmark failed inside Pyodide:\n{outcome.stderr}")
    return json.loads(outcome.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-pyodide", action="store_true", help="CPython only")
    parser.add_argument(
        "--measure",
        action="store_true",
        help="print this runtime's measurement as JSON (used inside Pyodide)",
    )
    args = parser.parse_args(argv)
    if args.measure:
        json.dump(measure(args.repeats), sys.stdout)
        return 0
    results = {"CPython": measure(args.repeats)}
    if not args.no_pyodide:
        results["Pyodide"] = run_pyodide(args.repeats)
    for name, result in results.items():
        print(
            f"{name:<8} {result['runtime']}: default study ({result['study']}, "
            f"{result['points']} points) {result['seconds']:.2f} s (median of {args.repeats})"
        )
        slowest = sorted(result["stepping_seconds"].items(), key=lambda item: -item[1])
        print("         stepping: " + ", ".join(f"{n} {s:.2f} s" for n, s in slowest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
