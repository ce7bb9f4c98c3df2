"""Print, as JSON, a short trajectory of every system under every integrator.

Run unchanged by CPython and by Pyodide (tests/test_pyodide_agreement.py), which must print the
same numbers. Standard library and the core only.
"""

import json
import sys

from integrator_lab.core import INTEGRATORS, SYSTEMS, simulate

STEPS = 200  # per run: short enough that all runs take seconds inside Pyodide
EVERY = 10  # keep one sample in ten


def main() -> None:
    runs = {}
    for system_name in sorted(SYSTEMS):
        # dt=None makes each system use its own recommended time step (s).
        duration = STEPS * SYSTEMS[system_name]().recommended_dt
        for integrator_name in sorted(INTEGRATORS):
            result = simulate(system_name, integrator_name, duration=duration, every=EVERY, dt=None)
            runs[f"{system_name}/{integrator_name}"] = result.to_dict()
    json.dump(runs, sys.stdout, allow_nan=True)


if __name__ == "__main__":
    main()
