"""Scenes as the engine lays them out and draws them (views.system_run.SystemRun.layout,
views.scene.Scene.frame), as JSON on stdout: what tests/js/drag.test.mjs asks the page's rules
of direct manipulation (static/js/dragmath.js) about. Each draggable system's scene of the
defaults with its lanes after 40 steps (the second lane stopped: drawn greyed where it was,
in the f* columns), and where that scene draws a chosen initial state (``targets``: the
settings a body put there must ask for). NaN is written as null (JSON has no NaN).

Not a pytest module (its name does not match test_*.py); run by the Node test.
"""

from __future__ import annotations

import json
import math
import sys

from integrator_lab.core import DEFAULT_INTEGRATORS, SYSTEMS, get_system
from integrator_lab.views import drag, live

#: the scene's width in pixels the questions assume (a phone's scene is about this wide)
WIDTH_PX = 360
#: initial states a drag must be able to set: (lane, ball, settings); each is drawn where the
#: scene of the defaults draws it, so a body put there asks for these settings again
TARGETS = {
    "pendulum": (2, 0, {"theta0": -2.5, "omega0": 0.0}),
    "spring": (1, 0, {"x0": -0.7, "v0": 0.0}),
    "cradle": (3, 2, {"angle": 0.45, "lifted": 3}),
}


def plain(values):
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]


def case(system: str) -> dict:
    integrators = list(DEFAULT_INTEGRATORS)
    run = live.SystemRun(system, {}, None, integrators)
    layout = run.layout()
    run.runner.advance(40)
    scene = run.scene
    x0, x1 = scene.x_range
    y0, y1 = scene.y_range
    states = [list(lane.q) for lane in run.runner.lanes]
    # the second lane stopped (not finite): drawn where it was last, in the f* columns
    scene.frame(states, run.runner.time)
    states[1] = [math.nan] * len(states[1])
    moving = scene.frame(states, run.runner.time)["bodies"]
    bodies = {c: plain(moving[c]) for c in ("x", "y", "fx", "fy")}
    bodies.update({c: layout["bodies"][c] for c in ("w", "h", "integrator")})
    lane, ball, settings = TARGETS[system]
    target = get_system(system, **{k: v for k, v in settings.items() if k not in ("v0", "omega0")})
    drawn = scene.frame([target.initial_state()[0]] * len(integrators))["bodies"]
    at = lane * scene.bodies_per_lane + ball
    return {
        "layout": {
            k: layout[k] for k in ("shape", "integrators", "counts", "origins", "pivots", "drag")
        },
        "x_range": [x0, x1],
        "y_range": [y0, y1],
        "bodies": bodies,
        "pixel": (x1 - x0) / WIDTH_PX,
        "params": dict(run.system.params),
        "decls": [
            {"name": p.name, "kind": p.kind, "min": p.min, "max": p.max}
            for p in SYSTEMS[system].PARAMS
        ],
        "target": {
            "lane": lane,
            "ball": ball,
            "x": drawn["x"][at],
            "y": drawn["y"][at],
            "settings": settings,
        },
    }


def main() -> None:
    json.dump({system: case(system) for system in drag.DRAGGABLE}, sys.stdout)


if __name__ == "__main__":
    main()
