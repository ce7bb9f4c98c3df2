"""The first screen: how a panel's scene and its energy view share the window, stated once for
the static page (``static/js/layout.js``) and the Panel dashboard (its page script).

A panel's scene and the plotting area of its energy view must both be on the first screen
(the page scrolled to the top) at 1366x768 and up, and on a phone one system's scene and
energy view must be. So the sizes follow the room the window leaves below the panel's head,
not the panel's width alone: a scene is never taller than that room allows (it keeps its
content's aspect, so it gets narrower, centred), and never grows into empty space.
"""

from __future__ import annotations

from typing import Any

#: Stacked (a panel narrower than ``side_by_side_from``): the energy figure takes this share
#: of the room below the panel's head, within ``energy_min`` to ``energy_max`` px, and the
#: scene what is left, but at least ``scene_min`` px (below that, the page scrolls).
#: Side by side (a wide panel: one system, or a narrow window with one column): the scene
#: takes at most ``side_share`` of the panel's width and at most the room's height, and the
#: energy figure beside it is as tall as the scene (within the same bounds).
FIRST_SCREEN = {
    "energy_share": 0.42,
    "energy_min": 170,  # px: the whole energy figure, axes included
    "energy_max": 460,  # px
    "scene_min": 150,  # px
    "side_share": 0.5,
    "side_by_side_from": 700,  # px of panel width (static/style.css's container query)
    "gap": 6,  # px between the scene and the energy figure, stacked
    "bottom": 14,  # px kept below the energy figure: the panel's padding and border
    "phone_width": 600,  # px of window width: the phone layout (one compact bar, tabs)
}


def page_data() -> dict[str, Any]:
    """:data:`FIRST_SCREEN` in the page's spelling (camelCase keys)."""

    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part.title() for part in rest)

    return {camel(key): value for key, value in FIRST_SCREEN.items()}
