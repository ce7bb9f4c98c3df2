"""Direct manipulation's numbers: which systems can be dragged, how near a press must be to
grab a body, to how many digits a dragged value is kept.

The page answers a pointer synchronously (a touch's scroll can only be refused at its start,
the cursor follows the mouse), so its rules live in ``static/js/dragmath.js`` (which body a
press takes, what a pointer at a point of the scene sets, clamped how), with the numbers this
module puts in each layout (:func:`rules`); ``tests/js/drag.test.mjs`` tests them on the
engine's own scenes.
"""

from __future__ import annotations

from typing import Any

#: systems whose bodies can be dragged in the scene to set the initial state
DRAGGABLE = ("pendulum", "cradle", "spring")
#: a press this many screen pixels outside a body's edge still grabs it (a fingertip is broad)
GRAB_PX = 12.0
#: a dragged value is rounded to what one pixel can tell, never to more digits than this
FINEST_DIGITS = 6


def rules() -> dict[str, Any]:
    """What the page's drag code needs from here, sent in every layout."""
    return {"draggable": list(DRAGGABLE), "grab_px": GRAB_PX, "finest_digits": FINEST_DIGITS}
