"""What running a visitor's Python method in its session's child process costs the Panel server
(:mod:`integrator_lab.server.sandbox`), against running it in the server's process.

The dashboard's default view (pendulum, cradle, spring under the default integrators) plus the
explicit-Euler template written as Python code; each tick covers 45 ms of wall time at speed 1,
every step taken (no compute budget), as a server tick does when it keeps up. Reported: the
median time of a tick's stepping, in process and sandboxed, and the median round trip of one
request (a one-step block on the spring) and of a child's start (the method's check), each
with the child confined by bubblewrap and plain (:mod:`integrator_lab.server.confinement`),
measured in turns.

    .venv/bin/python -m integrator_lab.dev.bench_sandbox [--ticks N] [--runs R]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from integrator_lab.core import DEFAULT_INTEGRATORS, Runner, get_system
from integrator_lab.core.custom import TEMPLATES
from integrator_lab.server.sandbox import Sandbox, SandboxLive
from integrator_lab.views.live import Live

SYSTEMS = ("pendulum", "cradle", "spring")
TICK = 0.045  # s of wall time per tick, as the server's TICK_MS


def _live(cls):
    live = cls(budget=lambda: math.inf, allow_code=True)
    for name in SYSTEMS:
        live.configure(name, {}, None, list(DEFAULT_INTEGRATORS))
    result = live.set_method(TEMPLATES["euler-code"]["definition"])
    assert not result["problems"], result
    return live


def tick_times(cls, ticks: int) -> list[float]:
    live = _live(cls)
    live.advance(TICK)  # the first request starts the child
    out = []
    for _ in range(ticks):
        started = time.perf_counter()
        live.advance(TICK)
        out.append(time.perf_counter() - started)
    if isinstance(live, SandboxLive):
        live.close()
    return out


def round_trips(requests: int, confined: bool) -> tuple[float, list[float]]:
    """A child's start (the method's check) and ``requests`` one-step round trips (s)."""
    started = time.perf_counter()
    live = SandboxLive(budget=lambda: math.inf, allow_code=True, sandbox=Sandbox(confined=confined))
    result = live.set_method(TEMPLATES["euler-code"]["definition"])
    assert not result["problems"], result
    start = time.perf_counter() - started
    runner = Runner(get_system("spring"), [live.method], every=1)
    runner.advance(1)
    out = []
    for _ in range(requests):
        started = time.perf_counter()
        runner.advance(1)
        out.append(time.perf_counter() - started)
    live.close()
    return start, out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ticks", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    local, remote = [], []
    for _ in range(args.runs):  # in turns, so that the machine's load falls on both
        local += tick_times(Live, args.ticks)
        remote += tick_times(SandboxLive, args.ticks)
    a, b = statistics.median(local), statistics.median(remote)
    print(f"tick stepping, in process: median {a * 1e3:.2f} ms")
    print(f"tick stepping, sandboxed:  median {b * 1e3:.2f} ms (ratio {b / a:.2f})")
    starts: dict[bool, list[float]] = {True: [], False: []}
    trips: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.runs):
        for confined in (True, False):
            start, out = round_trips(500, confined)
            starts[confined].append(start)
            trips[confined] += out
    for confined, how in ((True, "confined (bwrap)"), (False, "plain")):
        print(
            f"one request (a one-step block), {how}: median "
            f"{statistics.median(trips[confined]) * 1e6:.0f} us; a child's start "
            f"{statistics.median(starts[confined]) * 1e3:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
