"""Scenes, presses and drags as Python's rules of direct manipulation answer them
(views.drag: the body a press takes, the settings a pointer sets), as JSON on stdout: the
ground truth of tests/js/drag.test.mjs, which asks the page's own code
(static/js/dragmath.js) the same questions. NaN is written as null (JSON has no NaN).

Not a pytest module (its name does not match test_*.py); run by the Node test.
"""

from __future__ import annotations

import json
import math
import random
import sys

from integrator_lab.core import DEFAULT_INTEGRATORS, SYSTEMS
from integrator_lab.views import drag, live

#: the scene's width in pixels the questions assume (a phone's scene is about this wide)
WIDTH_PX = 360


def plain(values):
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]


def case(system: str, rng: random.Random) -> dict:
    integrators = list(DEFAULT_INTEGRATORS)
    run = live.SystemRun(system, {}, None, integrators)
    layout = run.layout()
    run.runner.advance(40)
    scene = run.scene
    x0, x1 = scene.x_range
    y0, y1 = scene.y_range
    pixel = (x1 - x0) / WIDTH_PX
    states = [list(lane.q) for lane in run.runner.lanes]
    scene.frame(states, run.runner.time)
    # the second lane stopped (not finite): drawn where it was last, in the f* columns
    states[1] = [math.nan] * len(states[1])
    stopped = [lane == 1 for lane in range(len(states))]
    moving = scene.frame(states, run.runner.time, stopped)["bodies"]
    bodies = {c: plain(moving[c]) for c in ("x", "y", "fx", "fy")}
    bodies.update({c: layout["bodies"][c] for c in ("w", "h", "integrator")})
    # presses: at each body, just inside and just outside its grab margin, and anywhere
    half_w, grab = layout["bodies"]["w"][0] / 2, drag.GRAB_PX * pixel
    points = []
    for x, y, fx, fy in zip(bodies["x"], bodies["y"], bodies["fx"], bodies["fy"]):
        bx, by = (x, y) if x is not None else (fx, fy)
        for reach in (0.0, 0.97, 1.03):
            for angle in (0.0, 0.7, 2.0, 4.0):
                r = reach * (half_w + grab)
                points.append((bx + r * math.cos(angle), by + r * math.sin(angle)))
    points += [(rng.uniform(x0, x1), rng.uniform(y0, y1)) for _ in range(150)]
    presses = []
    for hidden in ([], [integrators[0]]):
        shown = [None if name in hidden else q for name, q in zip(integrators, states)]
        for x, y in points:
            found = drag.grabbed(scene, shown, x, y, pixel)
            presses.append(
                {"hidden": hidden, "x": x, "y": y, "found": None if found is None else list(found)}
            )
    # drags: a held body (each ball of a lane) pulled anywhere, out of range too
    params = dict(run.system.params)
    drags = []
    balls = scene.bodies_per_lane
    for k in range(60):
        lane, ball = k % len(integrators), k % balls
        x, y = rng.uniform(2 * x0 - x1, 2 * x1 - x0), rng.uniform(2 * y0 - y1, 2 * y1 - y0)
        values, clamped = drag.drag_values(
            scene, SYSTEMS[system].PARAMS, params, lane, ball, x, y, pixel
        )
        drags.append(
            {
                "lane": lane,
                "ball": ball,
                "x": x,
                "y": y,
                "values": values,
                "clamped": {name: list(pair) for name, pair in clamped.items()},
            }
        )
    return {
        "layout": {
            k: layout[k] for k in ("shape", "integrators", "counts", "origins", "pivots", "drag")
        },
        "bodies": bodies,
        "pixel": pixel,
        "params": params,
        "decls": [
            {"name": p.name, "kind": p.kind, "min": p.min, "max": p.max}
            for p in SYSTEMS[system].PARAMS
        ],
        "presses": presses,
        "drags": drags,
    }


def main() -> None:
    rng = random.Random(20261127)
    json.dump({system: case(system, rng) for system in drag.DRAGGABLE}, sys.stdout)


if __name__ == "__main__":
    main()
