"""The energy view on the real built page, in Chromium (issue #27's acceptance test).

In the default view after 10 s of simulated time, in a screenshot of the damped spring's
energy plotting area, the pixels of symplectic Euler's colour span at most three quarters of
its height and touch neither its top nor its bottom tenth (a band with room around it: the
method conserves a modified energy, its error stays bounded), while explicit Euler (whose
error grows on every oscillator) is clipped at the top with its label.

The module's page is shared (``shared_page``), and runs at 4x real time (``speed=4``, the
page's fastest): the 10 s of simulated time come in 2.5 s, on a machine that keeps up."""

from __future__ import annotations

import io

import pages
import pytest

from integrator_lab.views.scene import INTEGRATOR_COLORS

site = pages.site
shared_page = pages.shared_page
shared_pages = pages.shared_pages

pytestmark = pytest.mark.browser

#: the plotting area (frame) of a system's energy plot, in CSS pixels of the page
FRAME_BOX = """(system) => {
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:energy`);
    const box = view.el.getBoundingClientRect();
    const b = view.frame.bbox;
    return {x: box.left + b.left, y: box.top + b.top, width: b.width, height: b.height};
}"""


def _rgb(hex_color):
    return tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))


def _rows_of_colour(png: bytes, color, tolerance=40):
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    pixels = image.load()
    rows = set()
    for y in range(height):
        for x in range(width):
            p = pixels[x, y]
            if sum((a - b) ** 2 for a, b in zip(p, color)) <= tolerance**2:
                rows.add(y)
    return sorted(rows), height


def test_default_energy_view_is_a_band_for_symplectic_euler_and_clips_euler(shared_page):
    page = shared_page("?speed=4", viewport=(1440, 900))
    page.wait_live()
    page.wait(
        "Object.values(window.integratorLab.status().systems).every((s) => s.simTime >= 10)",
        timeout=240_000,
    )
    status = page.status()["systems"]["spring"]
    energy = status["energy"]
    assert energy["mode"] == "linear"
    low, high = energy["yRange"]
    assert low == -high and high > 0
    clipped = {c["name"]: c for c in energy["clipped"]}
    assert clipped["euler"]["y"] == high and clipped["euler"]["text"].startswith("euler +")
    page.page.locator('.il-panel[data-system="spring"]').scroll_into_view_if_needed()
    box = page.js(FRAME_BOX, "spring")
    png = page.page.screenshot(
        clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]}
    )
    rows, height = _rows_of_colour(png, _rgb(INTEGRATOR_COLORS["symplectic-euler"]))
    assert rows, "symplectic Euler is not drawn"
    top, bottom = rows[0], rows[-1]
    assert (bottom - top + 1) <= 0.75 * height
    assert top > 0.1 * height and bottom < 0.9 * height
    # explicit Euler's label, in its colour, in the top part of the plot
    euler_rows, _ = _rows_of_colour(png, _rgb(INTEGRATOR_COLORS["euler"]))
    assert euler_rows and euler_rows[0] < 0.1 * height
    assert not page.errors
