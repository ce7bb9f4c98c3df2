"""The energy view on the Panel dashboard, in Chromium (issue #27): the same decision as the
static page (views.energy, carried by every frame), applied to the same models. After 10 s of
the default view the spring's axis is symmetric about zero and holds symplectic Euler's
bounded error as a band with room around it, explicit Euler (whose error grows on every
oscillator) is clipped at the top with its label; the log view (the checkbox) draws the
running maximum on a log axis."""

from __future__ import annotations

import math

import pytest
from conftest import LOADED_JS, read, sim_time, wait_until

pytestmark = pytest.mark.browser

# tick "Log scale" as a click does (Panel's Checkbox is a Bokeh Checkbox: `active`)
CHECK_LOG_JS = """() => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes("il-log_scale")) model.active = true;
    }
}"""
LIGHT_REPAINT_JS = """() => Bokeh.require("core/dom").InlineStyleSheet.prototype._update.ilLight
    === true"""
RANGE_JS = """(system) => {
    const r = Bokeh.documents[0].get_model_by_name(`${system}:energy:y`);
    return [r.start, r.end];
}"""


@pytest.fixture
def page(browser, server):
    """A session of its own, given time to load on a busy machine (the server builds each
    session's document)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.goto(server.url, timeout=180_000)
    tab.wait_for_function(LOADED_JS, timeout=180_000)
    yield tab
    context.close()


def test_panel_energy_view_follows_the_bounded_methods_and_clips_the_runaway(page):
    wait_until(lambda: sim_time(page, "spring") >= 10.0, timeout=240.0, what="10 s simulated")
    low, high = page.evaluate(RANGE_JS, "spring")
    assert low == -high and high > 0
    band = [
        e
        for e in read(page, "spring:samples:symplectic-euler", ["error"])["error"]
        if math.isfinite(e)
    ]
    assert len(band) > 300
    assert (max(band) - min(band)) / (high - low) <= 0.75
    assert max(band) < 0.8 * high and min(band) > 0.8 * low
    marks = read(page, "spring:energy:clipped", ["name", "text", "y"])
    # each lane's energy bar: explicit Euler's a gain, printed with its sign
    bars = read(page, "spring:scene:energy-bars", ["name", "text"])
    assert dict(zip(bars["name"], bars["text"]))["euler"].startswith("+")
    clipped = dict(zip(marks["name"], marks["text"]))
    assert clipped["euler"].startswith("euler +") and clipped["euler"].endswith("↑")
    assert "symplectic-euler" not in clipped
    # the log view: a log10 axis from the floor (1e-12) up, no clipped marks
    page.evaluate(CHECK_LOG_JS)
    wait_until(
        lambda: page.evaluate(RANGE_JS, "spring")[0] == -12, timeout=60.0, what="the log axis"
    )
    # (the source keeps a fixed number of rows: blank ones have no text)
    wait_until(
        lambda: not any(read(page, "spring:energy:clipped", ["text"])["text"]), what="no marks"
    )
    # the page repaints its moving glyphs as the static page does (static/js/bokehpaint.js,
    # whose effect tests/site/test_static_page_drawing.py counts): the shared script ran
    assert page.evaluate(LIGHT_REPAINT_JS)
    assert page.errors == []
