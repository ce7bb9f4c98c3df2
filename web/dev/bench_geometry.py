"""What a stability region and a ring update cost, in CPython and in Pyodide under Node.

- a region: :func:`integrator_lab.core.stability.region` on the default window (8 x 8, cells
  of 0.05) for a method with a stability function (``rk4``: a polynomial per grid node) and
  one without (``velocity-verlet``: two steps per node), from a fresh method (no cache);
- the points: a system's linearised modes and ``dt lambda`` (what moving the dt slider redoes);
- a ring update: one step of every state of a 64-point ring on the pendulum plus its area
  (what the live view redoes each frame per integrator and step).

The measuring part uses only the standard library and the core, so this very file runs in both
runtimes::

    python -m integrator_lab.dev.bench_geometry [--repeats N] [--no-pyodide]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from integrator_lab.core import get_system
from integrator_lab.core.area import Ring
from integrator_lab.core.stability import linear_modes, method, region, scaled_points

REGION_METHODS = ("rk4", "velocity-verlet")
RING_METHODS = ("velocity-verlet", "rk4", "implicit-midpoint")
RING_POINTS, RING_STEPS = 64, 200


def _median(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def measure(repeats: int) -> dict:
    result: dict = {
        "runtime": f"{sys.implementation.name} {sys.version.split()[0]} ({sys.platform})",
        "region_s": {},
        "ring_update_ms": {},
    }
    for name in REGION_METHODS:
        result["region_s"][name] = _median(lambda name=name: region(method(name)), repeats)
    cradle = get_system("cradle")
    result["points_us"] = (
        1e6
        * _median(
            lambda: [scaled_points(linear_modes(cradle), dt) for dt in (1e-3,) * 1000], repeats
        )
        / 1000
    )
    pendulum = get_system("pendulum")
    for name in RING_METHODS:

        def updates(name=name):
            ring = Ring(pendulum, name, 0.02, points=RING_POINTS)
            for _ in range(RING_STEPS):
                ring.advance(1)
                ring.area_ratio()

        result["ring_update_ms"][name] = 1e3 * _median(updates, repeats) / RING_STEPS
    return result


def run_pyodide(repeats: int) -> dict:
    from pathlib import Path

    from integrator_lab.site.pyodide_node import run_python

    code = Path(__file__).read_text(encoding="utf-8")
    outcome = run_python(
        code,
        argv=["--measure", "--repeats", str(repeats)],
        filename="bench_geometry.py",
        timeout=1800,
    )
    if outcome.returncode != 0:
        raise RuntimeError(f"geometry benchmark failed inside Pyodide:\n{outcome.stderr}")
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
    for name, r in results.items():
        regions = ", ".join(f"{m} {s:.3f} s" for m, s in r["region_s"].items())
        rings = ", ".join(f"{m} {ms:.2f} ms" for m, ms in r["ring_update_ms"].items())
        print(f"{name:<8} {r['runtime']} (medians of {args.repeats})")
        print(f"         region: {regions}; points dt*lambda (cradle): {r['points_us']:.1f} us")
        print(f"         ring update ({RING_POINTS} points, one step + area): {rings}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
