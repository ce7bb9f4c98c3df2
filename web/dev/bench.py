"""``integrator-lab bench``: the core benchmarks in CPython and in Pyodide under Node.

The measuring code (:mod:`integrator_lab.dev.bench_core`) uses only the standard library and the
core, so the very same file runs in both runtimes. Numbers are medians; quote ratios.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from integrator_lab.dev import bench_core

#: the goals of the core issue, checked (not asserted) in the printed summary
GOALS = {"overhead_ratio": 4.0, "cradle_cpython": 4.0, "cradle_pyodide": 2.0, "oscillators": 100.0}


def run_pyodide(quick: bool) -> dict:
    from integrator_lab.site.pyodide_node import run_python

    code = Path(bench_core.__file__).read_text(encoding="utf-8")
    outcome = run_python(
        code, argv=["--quick"] if quick else [], filename="bench_core.py", timeout=1800
    )
    if outcome.returncode != 0:
        raise RuntimeError(f"benchmark failed inside Pyodide:\n{outcome.stderr}")
    return json.loads(outcome.stdout)


def report(results: dict) -> str:
    lines = []
    runtimes = list(results)
    lines.append("Steps per second, one integrator at a time (sampling every 10th step)")
    first = results[runtimes[0]]["steps_per_second"]
    integrators = list(next(iter(first.values()))["steps_per_s"])
    for system, entry in first.items():
        lines.append(f"\n  {system} (dt = {entry['dt']:g} s)")
        lines.append("    " + f"{'integrator':<18}" + "".join(f"{r:>14}" for r in runtimes))
        for name in integrators:
            cells = "".join(
                f"{results[r]['steps_per_second'][system]['steps_per_s'][name]:>14,.0f}"
                for r in runtimes
            )
            lines.append(f"    {name:<18}{cells}")
    lines.append(
        "\nEngine overhead, spring + symplectic-euler vs a hand-inlined loop (ratio of times)"
    )
    for r in runtimes:
        o = results[r]["overhead"]
        lines.append(
            f"  {r:<10} stepping only: {o['steps_only']['ratio']:.2f}x   "
            f"sampling every step: {o['sampled_every_step']['ratio']:.2f}x   "
            f"(goal <= {GOALS['overhead_ratio']:g}x)"
        )
    lines.append("\nReal-time factor (simulated seconds per wall second), integrators in lockstep")
    for r in runtimes:
        for entry in results[r]["real_time"]:
            names = entry["integrators"]
            label = "all integrators" if len(names) > 4 else ", ".join(names)
            system = entry["system"] + "".join(
                f" {k}={v}" for k, v in entry.get("params", {}).items()
            )
            lines.append(
                f"  {r:<10} {system:<16} dt={entry['dt']:<7g} "
                f"{entry['real_time_factor']:>9.1f}x  ({label})"
            )
    return "\n".join(lines)


def main(quick: bool = False, pyodide: bool = True) -> int:
    results = {"CPython": bench_core.measure(quick=quick)}
    print(f"CPython: {results['CPython']['runtime']}", file=sys.stderr)
    if pyodide:
        print("running the same benchmark inside Pyodide (Node)...", file=sys.stderr)
        results["Pyodide"] = run_pyodide(quick)
        print(f"Pyodide: {results['Pyodide']['runtime']}", file=sys.stderr)
    print(report(results))
    return 0
