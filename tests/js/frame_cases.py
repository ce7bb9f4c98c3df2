"""Frames the worker's Python packs (views.system_run.SystemRun.frame), with what they hold
column by column, as JSON on stdout: the ground truth of tests/js/frames.test.mjs, which
unpacks them with the page's own code (static/js/frames.js). NaN is written as null (JSON has
no NaN).

Not a pytest module (its name does not match test_*.py); run by the Node test.
"""

from __future__ import annotations

import json
import math
import sys

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.site.build import page_data
from integrator_lab.views import live, shared
from integrator_lab.views.figures import DashboardConfig


def plain(values):
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]


def case(system: str, steps: int) -> dict:
    integrators = list(DEFAULT_INTEGRATORS)
    packed = live.SystemRun(system, {}, None, integrators)
    twin = live.SystemRun(system, {}, None, integrators)  # the same run, read column by column
    counts = packed.layout()["counts"]
    twin.layout()
    packed.runner.advance(steps)
    twin.runner.advance(steps)
    frame = packed.frame(everything=True)
    runner = twin.runner
    states = [lane.q for lane in runner.lanes]
    stopped = [lane.diverged_at is not None for lane in runner.lanes]
    scene = twin.scene.frame(states, runner.time, stopped)
    batch = runner.take_batch(True)
    samples = {}
    for name, flat in batch["lanes"].items():
        cols = live.sample_columns(
            flat, batch["stride"], twin.system.ndof, twin.energy0, twin.scale, wrap=twin.wrap
        )
        samples[name] = {c: plain(cols[c]) for c in shared.SAMPLE_COLUMNS}
    return {
        "counts": counts,
        "frame": {"time": frame["time"], "lanes": frame["lanes"], "data": plain(frame["data"])},
        "scene": {
            role: {c: plain(scene[role][c]) for c in cols} for role, cols in shared.FRAME_SCENE
        },
        "samples": samples,
    }


def main() -> None:
    data = page_data(DashboardConfig())
    out = {
        "frameLayout": data["frameLayout"],
        "integrators": list(DEFAULT_INTEGRATORS),
        "cases": {system: case(system, 50) for system in shared.PANEL_SYSTEMS},
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
