"""Core benchmarks, standard library only, so the same file runs in CPython and in Pyodide.

``measure()`` returns a JSON-able dict; :mod:`integrator_lab.dev.bench` runs it in both
runtimes and prints a table. Times are medians of several repeats (shared machines are noisy).
"""

from __future__ import annotations

import functools
import json
import statistics
import sys
import time

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, SYSTEMS, Runner, get_system


def _run_integrator(system, name, dt, steps):
    Runner(system, [name], dt, every=10).advance(steps)


def _median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def inline_symplectic_euler(mass, k, b, x, v, dt, steps):
    """The spring under symplectic Euler, hand-inlined: the same arithmetic as the engine,
    including the dissipated work, with nothing but local floats."""
    w = 0.0
    k_over_m, b_over_m = k / mass, b / mass
    for _ in range(steps):
        a = -k_over_m * x - b_over_m * v
        p = b * v * v
        v += dt * a
        w += dt * p
        x += dt * v
    return x, v, w


def inline_symplectic_euler_sampled(mass, k, b, x, v, dt, steps):
    """As above, also recording a sample (t, x, v, kinetic, potential, dissipated, total)
    every step, which is what the runner does with ``every=1``."""
    w = 0.0
    k_over_m, b_over_m = k / mass, b / mass
    samples = []
    for i in range(steps):
        a = -k_over_m * x - b_over_m * v
        p = b * v * v
        v += dt * a
        w += dt * p
        x += dt * v
        kinetic, potential = 0.5 * mass * v * v, 0.5 * k * x * x
        samples.append(((i + 1) * dt, x, v, kinetic, potential, w, kinetic + potential + w))
    return samples


def overhead(steps, repeats):
    """Engine versus hand-inlined symplectic Euler on the default spring."""
    system = get_system("spring")
    p = system.params
    q, v = system.initial_state()
    dt = system.recommended_dt

    def engine_steps():
        integ = INTEGRATORS["symplectic-euler"]()
        integ.advance(system, q, v, 0.0, 0.0, dt, steps)

    def engine_sampled():
        Runner(system, ["symplectic-euler"], dt, every=1, capacity=steps + 1).advance(steps)

    args = (p["mass"], p["stiffness"], p["damping"], q[0], v[0], dt, steps)
    t_inline = _median_seconds(lambda: inline_symplectic_euler(*args), repeats)
    t_engine = _median_seconds(engine_steps, repeats)
    t_inline_s = _median_seconds(lambda: inline_symplectic_euler_sampled(*args), repeats)
    t_engine_s = _median_seconds(engine_sampled, repeats)
    return {
        "steps_only": {
            "inline_steps_per_s": steps / t_inline,
            "engine_steps_per_s": steps / t_engine,
            "ratio": t_engine / t_inline,
        },
        "sampled_every_step": {
            "inline_steps_per_s": steps / t_inline_s,
            "engine_steps_per_s": steps / t_engine_s,
            "ratio": t_engine_s / t_inline_s,
        },
    }


def steps_per_second(sim_seconds, repeats):
    """Every system x integrator, one integrator at a time, sampling every 10th step."""
    table = {}
    for name, cls in SYSTEMS.items():
        system = cls()
        dt = system.recommended_dt
        steps = max(10, int(sim_seconds / dt))
        row = {}
        for integ in INTEGRATORS:
            seconds = _median_seconds(
                functools.partial(_run_integrator, system, integ, dt, steps), repeats
            )
            row[integ] = steps / seconds
        table[name] = {"dt": dt, "steps_per_s": row}
    return table


def real_time(system_name, integrators, sim_seconds, repeats, every=10, **params):
    """Real-time factor (simulated s per wall s) of integrators in lockstep, from the start
    of the system with ``params``."""
    system = get_system(system_name, **params)
    dt = system.recommended_dt
    steps = max(10, int(sim_seconds / dt))
    seconds = _median_seconds(
        lambda: Runner(system, integrators, dt, every=every).advance(steps), repeats
    )
    return {
        "system": system_name,
        "params": params,
        "integrators": list(integrators),
        "dt": dt,
        "real_time_factor": steps * dt / seconds,
    }


def measure(quick=False):
    repeats = 3 if quick else 5
    scale = 0.25 if quick else 1.0
    return {
        "runtime": f"{sys.implementation.name} {sys.version.split()[0]} ({sys.platform})",
        "overhead": overhead(int(200_000 * scale), repeats),
        "steps_per_second": steps_per_second(2.0 * scale, repeats),
        "real_time": [
            real_time("cradle", DEFAULT_INTEGRATORS, 2.0 * scale, repeats),
            # the fall, the impacts and the pile at rest (its contacts cost the most)
            real_time("balls", DEFAULT_INTEGRATORS, 8.0 * scale, repeats, count=12),
            real_time("balls", DEFAULT_INTEGRATORS, 8.0 * scale, repeats, count=40),
            real_time("pendulum", list(INTEGRATORS), 10.0 * scale, repeats),
            real_time("spring", list(INTEGRATORS), 10.0 * scale, repeats),
        ],
    }


if __name__ == "__main__":
    json.dump(measure(quick="--quick" in sys.argv), sys.stdout)
