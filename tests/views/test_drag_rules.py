"""Direct manipulation's rules (views.drag), which both front ends use: the grab margin is a
fingertip's width on the screen whatever the view's scale, a lane not drawn cannot be taken,
a dragged value carries the digits a pixel can tell and is kept in its declared range (the
page's copy of these rules is held to them by tests/js/drag.test.mjs)."""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import SYSTEMS, get_system
from integrator_lab.views import drag, scene

NAMES = ["euler", "symplectic-euler", "velocity-verlet", "rk4"]


@pytest.mark.parametrize("pixel", [1e-3, 1e-2, 0.2])
def test_a_press_grabs_within_the_margin_in_screen_pixels_whatever_the_scale(pixel):
    s = scene.Scene(get_system("spring"), NAMES)
    q = get_system("spring").initial_state()[0]
    placed, _segments = s._draw(2, q)
    x, y = placed[0][0], placed[0][1]
    edge = x + s.bodies["w"][0] / 2.0
    states = [q] * len(NAMES)
    assert drag.grabbed(s, states, edge + (drag.GRAB_PX - 1) * pixel, y, pixel) == (2, 0)
    assert drag.grabbed(s, states, edge + (drag.GRAB_PX + 1) * pixel, y, pixel) is None


def test_a_lane_not_drawn_cannot_be_taken_and_the_press_goes_to_none_behind_it():
    s = scene.Scene(get_system("pendulum"), NAMES)
    q = get_system("pendulum").initial_state()[0]
    placed, _segments = s._draw(1, q)
    x, y = placed[0][0], placed[0][1]
    assert drag.grabbed(s, [q] * 4, x, y, 0.01) == (1, 0)
    assert drag.grabbed(s, [q, None, q, q], x, y, 0.01) is None


def test_a_dragged_value_has_the_digits_a_pixel_tells_and_stays_in_its_range():
    system = get_system("cradle")
    s = scene.Scene(system, NAMES)
    params = dict(system.params)
    (px, py), (ox, oy) = s.geometry.pivots[0], s.offsets[0]
    length = params["length"]
    # ball 0 pulled to 0.3 rad on the left: the angle to the digits of a pixel over the rod
    at = (px + ox - length * math.sin(0.3), py + oy - length * math.cos(0.3))
    declared = SYSTEMS["cradle"].PARAMS
    values, clamped = drag.drag_values(s, declared, params, 0, 0, *at, pixel=0.01 * length)
    assert values == {"angle": 0.3, "lifted": 1} and clamped == {}
    # pulled above the pivot: past the declared 1.5 rad, kept there and said
    values, clamped = drag.drag_values(
        s, declared, params, 0, 0, px + ox - 0.1, py + oy + 1.0, pixel=0.001
    )
    top = next(p for p in declared if p.name == "angle").max
    assert values["angle"] == top and clamped["angle"][1] == top and clamped["angle"][0] > top


def test_pixel_rounding_keeps_the_digits_of_one_pixel_and_never_more_than_six():
    assert drag.pixel_rounded(1.23456789, 0.01) == 1.23
    assert drag.pixel_rounded(1.23456789, 0.002) == 1.235
    assert drag.pixel_rounded(1.23456789, 1e-12) == 1.234568
    assert drag.pixel_rounded(1.23456789, 0.0) == 1.234568
