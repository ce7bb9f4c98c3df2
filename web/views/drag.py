"""Direct manipulation's decisions, made once for both front ends: which systems can be
dragged, how near a press must be to grab a body, what a pointer at a point of the scene
sets, to how many digits, clamped how.

The Panel dashboard (:mod:`integrator_lab.server.drag`) calls these on each pan event. The
static page answers a pointer synchronously (a touch's scroll can only be refused at its
start, the cursor follows the mouse), so it runs the same rules in ``static/js/dragmath.js``
with the numbers this module puts in each layout (:func:`rules`); ``tests/js/drag.test.mjs``
runs both on the same scenes and points and fails on any difference (the parity test).

The geometry itself (where each body is drawn, the angle a point makes about a pivot) is
:meth:`Scene.body_at <integrator_lab.views.scene.Scene.body_at>` and
:meth:`Scene.dragged_params <integrator_lab.views.scene.Scene.dragged_params>`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from integrator_lab.core.params import Param
from integrator_lab.views.scene import Scene, clamp_to

#: systems whose bodies can be dragged in the scene to set the initial state
DRAGGABLE = ("pendulum", "cradle", "spring")
#: a press this many screen pixels outside a body's edge still grabs it (a fingertip is broad)
GRAB_PX = 12.0
#: a dragged value is rounded to what one pixel can tell, never to more digits than this
FINEST_DIGITS = 6
#: the parameters given in angles (their pixel is the view's pixel over the rod's length)
ANGLES = ("theta0", "angle")


def rules() -> dict[str, Any]:
    """What the page's drag code needs from here, sent in every layout."""
    return {"draggable": list(DRAGGABLE), "grab_px": GRAB_PX, "finest_digits": FINEST_DIGITS}


def pixel_rounded(value: float, unit: float) -> float:
    """``value`` rounded to the digits one pixel (``unit`` of it per pixel) can tell: no
    finer than ``10**-FINEST_DIGITS``, no coarser than a whole unit."""
    if not (math.isfinite(unit) and unit > 0.0):
        return round(value, FINEST_DIGITS)
    digits = min(FINEST_DIGITS, max(0, math.ceil(-math.log10(unit))))
    return round(value, digits)


def grabbed(
    scene: Scene, states: Sequence[list[float] | None], x: float, y: float, pixel: float
) -> tuple[int, int] | None:
    """``(lane, ball)`` of the body a press at view point ``(x, y)`` takes, the lanes at
    ``states`` (None: a lane hidden), one screen pixel being ``pixel`` view units."""
    return scene.body_at(states, x, y, GRAB_PX * pixel)


def drag_values(
    scene: Scene,
    declared: Sequence[Param],
    params: dict[str, Any],
    lane: int,
    ball: int,
    x: float,
    y: float,
    pixel: float,
) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """The settings a pointer at ``(x, y)`` asks for while body ``ball`` of lane ``lane`` is
    held, ``params`` being the system's settings in force: each float rounded to what a
    pixel tells, then clamped to its declared range. Returns ``(values, clamped)``, clamped
    being ``{name: (asked, kept)}`` for the values the range changed."""
    by_name = {p.name: p for p in declared}
    length = float(params.get("length", 1.0)) or 1.0
    values: dict[str, float] = {}
    clamped: dict[str, tuple[float, float]] = {}
    for name, value in scene.dragged_params(lane, ball, x, y).items():
        decl = by_name[name]
        if decl.kind == "float":
            value = pixel_rounded(value, pixel / length if name in ANGLES else pixel)
        kept, was_clamped = clamp_to(decl, value)
        if was_clamped:
            clamped[name] = (value, kept)
        values[name] = kept
    return values, clamped
